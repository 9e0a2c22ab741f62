// The message catalogs: every language the page ships translates every text (English is the
// fallback, not a substitute), placeholders match, and the language choice and fallback work.
import { describe, expect, it } from "vitest";
import { catalogLanguage } from "../src/i18n.ts";
import { ar } from "../src/messages/ar.ts";
import { de } from "../src/messages/de.ts";
import { en, type Catalog } from "../src/messages/en.ts";
import { fr } from "../src/messages/fr.ts";
import { ja } from "../src/messages/ja.ts";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe("message catalogs", () => {
  it.each([["de", de], ["fr", fr], ["ja", ja], ["ar", ar]] as [string, Catalog][])("%s has every text of English with the same placeholders", (_language, catalog) => {
    expect(Object.keys(catalog).sort()).toEqual(Object.keys(en).sort());
    for (const [key, text] of Object.entries(en)) expect(placeholders(catalog[key as keyof typeof en]!), key).toEqual(placeholders(text));
  });

  it("chooses the session's language, its base language, else English", () => {
    expect(catalogLanguage("ar")).toBe("ar");
    expect(catalogLanguage("de-AT")).toBe("de");
    expect(catalogLanguage("fr-CA")).toBe("fr");
    expect(catalogLanguage("pt-BR")).toBe("en");
    expect(catalogLanguage(null)).toBe("en");
  });
});
