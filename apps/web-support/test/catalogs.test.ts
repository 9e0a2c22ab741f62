// The message catalogs: every language the page ships translates every text (English is the
// fallback, not a substitute), placeholders match, and the language choice and fallback work.
import { readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { CATALOG_LANGUAGES, catalogLanguage, directionOf, formatMoment, loadLocale } from "../src/i18n.ts";
import { en, type Catalog } from "../src/messages/en.ts";
import { API_LANGUAGES } from "./api-languages.ts";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

/** Each catalog file of src/messages/ with its exported catalog (the one export of the module). */
async function shippedCatalogs(): Promise<[string, Catalog][]> {
  const files = (await readdir(new URL("../src/messages/", import.meta.url))).filter((name) => name.endsWith(".ts") && name !== "en.ts");
  return Promise.all(
    files.map(async (file) => {
      const language = file.replace(/\.ts$/, "");
      const module = (await import(`../src/messages/${language}.ts`)) as Record<string, Catalog>;
      return [language, Object.values(module)[0]!] as [string, Catalog];
    }),
  );
}


describe("message catalogs", () => {
  it("ships a catalog file for every catalog language, and no other", async () => {
    const files = (await shippedCatalogs()).map(([language]) => language);
    expect(["en", ...files].sort()).toEqual([...CATALOG_LANGUAGES].sort());
  });

  it("has every text of English with the same placeholders in every catalog, each translated", async () => {
    const catalogs = await shippedCatalogs();
    expect(catalogs.length).toBe(30);
    for (const [language, catalog] of catalogs) {
      expect(Object.keys(catalog).sort(), language).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(en)) {
        const translated = catalog[key as keyof typeof en]!;
        expect(translated.trim(), `${language} ${key}`).not.toBe("");
        expect(placeholders(translated), `${language} ${key}`).toEqual(placeholders(text));
      }
      // A catalog copied from English and not translated would show English under another `lang`.
      const same = Object.keys(en).filter((key) => catalog[key as keyof typeof en] === en[key as keyof typeof en]);
      expect(same.length, `${language}: texts identical to English: ${same.join(", ")}`).toBeLessThan(8);
    }
  });

  it("shows a catalog for every language of the API", () => {
    for (const [tag, language] of Object.entries(API_LANGUAGES)) expect(catalogLanguage(tag), tag).toBe(language);
  });

  it("falls back from the exact tag to an alias, the base language, then English", () => {
    expect(catalogLanguage("pt-BR")).toBe("pt-BR");
    expect(catalogLanguage("pt-br")).toBe("pt-BR");
    expect(catalogLanguage("pt_BR")).toBe("pt-BR");
    expect(catalogLanguage("pt-PT")).toBe("pt");
    expect(catalogLanguage("pt-AO")).toBe("pt");
    expect(catalogLanguage("es-AR")).toBe("es");
    expect(catalogLanguage("es-419")).toBe("es");
    expect(catalogLanguage("zh")).toBe("zh-Hans");
    expect(catalogLanguage("zh-CN")).toBe("zh-Hans");
    expect(catalogLanguage("zh-SG")).toBe("zh-Hans");
    expect(catalogLanguage("zh-TW")).toBe("zh-Hant");
    expect(catalogLanguage("zh-HK")).toBe("zh-Hant");
    expect(catalogLanguage("zh-MO")).toBe("zh-Hant");
    expect(catalogLanguage("zh-Hant-CN")).toBe("zh-Hant");
    expect(catalogLanguage("zh-Hans-HK")).toBe("zh-Hans");
    expect(catalogLanguage("no")).toBe("nb");
    expect(catalogLanguage("nb-NO")).toBe("nb");
    expect(catalogLanguage("nn")).toBe("nb");
    expect(catalogLanguage("tl")).toBe("fil");
    expect(catalogLanguage("de-AT")).toBe("de");
    expect(catalogLanguage("fr-CA")).toBe("fr");
    expect(catalogLanguage("en-GB")).toBe("en");
    expect(catalogLanguage("he")).toBe("en");
    expect(catalogLanguage("xx-YY")).toBe("en");
    expect(catalogLanguage("")).toBe("en");
    expect(catalogLanguage(null)).toBe("en");
  });

  it("writes Arabic right to left, every other catalog left to right", () => {
    for (const language of CATALOG_LANGUAGES) expect(directionOf(language), language).toBe(language === "ar" ? "rtl" : "ltr");
    expect(directionOf("he-IL")).toBe("rtl");
  });

  it("loads a language's catalog, and gives English for a tag without one", async () => {
    const chinese = await loadLocale("zh-TW");
    expect(chinese).toMatchObject({ language: "zh-Hant", dir: "ltr" });
    expect(chinese.t("home.unread", { n: 3 })).not.toBe(en["home.unread"].replace("{n}", "3"));
    const arabic = await loadLocale("ar");
    expect(arabic.dir).toBe("rtl");
    const unknown = await loadLocale("xx");
    expect(unknown.language).toBe("en");
    expect(unknown.t("home.unread", { n: 3 })).toBe("3 new");
  });

  it("shows a moment one way in a language, the conversations' list and the chat alike: medium date, short time", () => {
    const moment = "2026-11-28T05:05:00Z";
    const local = (language: string) => new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(moment));
    for (const language of ["fr", "ja", "ar", "en"]) expect(formatMoment({ language }, moment), language).toBe(local(language));
  });
});
