import { gunzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CORPUS_FILE, CORPUS_SCHEMA, corpusLines, generateCorpus, readCorpusFile } from "./generate.ts";

describe("the labelled corpus", () => {
  it("is the committed file, as the generator makes it from its seed", () => {
    expect(gunzipSync(readFileSync(CORPUS_FILE)).toString("utf8")).toBe(corpusLines(generateCorpus()));
  });

  it("is multilingual, covers every label and value, and has the noise of real labels", () => {
    const tickets = readCorpusFile();
    const languages = new Set(tickets.map((t) => t.language));
    for (const language of ["en", "de", "fr", "es", "pt-BR", "ja", "ko", "zh-Hans", "ru"]) expect(languages).toContain(language);
    for (const tag of CORPUS_SCHEMA.tags) expect(tickets.filter((t) => t.tags?.includes(tag)).length, tag).toBeGreaterThan(300);
    for (const field of CORPUS_SCHEMA.fields) for (const value of field.values) expect(tickets.some((t) => t.fields[field.key] === value)).toBe(true);
    const unlabelled = tickets.filter((t) => t.tags === null).length / tickets.length;
    expect(unlabelled).toBeGreaterThan(0.05);
    expect(unlabelled).toBeLessThan(0.12);
    expect(tickets.filter((t) => (t.tags?.length ?? 0) > 1).length).toBeGreaterThan(300);
    // Varied: few tickets share their first message word for word.
    expect(new Set(tickets.map((t) => t.messages[0])).size / tickets.length).toBeGreaterThan(0.8);
  });
});
