// The message catalogs: German translates every text of English with the same placeholders, and
// the language choice falls back from a regional tag to its base language, else to English.
import { describe, expect, it } from "vitest";
import { catalogLanguage, translator } from "../src/i18n.ts";
import { de } from "../src/messages/de.ts";
import { en } from "../src/messages/en.ts";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe("the console's message catalogs", () => {
  it("German has every text of English with the same placeholders", () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    for (const [key, text] of Object.entries(en)) expect(placeholders(de[key as keyof typeof en]!), key).toEqual(placeholders(text));
  });

  it("chooses the first preferred language it has, by base language, else English", () => {
    expect(catalogLanguage(["de-AT", "en"])).toBe("de");
    expect(catalogLanguage(["fr-FR", "de"])).toBe("de");
    expect(catalogLanguage(["pt-BR"])).toBe("en");
    expect(translator("de")("nav.signedInAs", { name: "Ada" })).toBe("Angemeldet als Ada");
  });
});
