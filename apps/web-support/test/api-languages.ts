// Every language code of the API (the OpenAPI document's `Language`), and the catalog each one shows.
export const API_LANGUAGES: Record<string, string> = {
  en: "en", de: "de", es: "es", "es-AR": "es", "es-MX": "es", fi: "fi", fil: "fil", fr: "fr", id: "id", ja: "ja", ko: "ko",
  ms: "ms", pt: "pt", "pt-BR": "pt-BR", ru: "ru", tr: "tr", uk: "uk", vi: "vi", zh: "zh-Hans", "zh-Hans": "zh-Hans",
  "zh-Hant": "zh-Hant", ar: "ar", cs: "cs", da: "da", nl: "nl", el: "el", hu: "hu", it: "it", no: "nb", nb: "nb", pl: "pl",
  ro: "ro", sk: "sk", sv: "sv", th: "th",
};
