import { describe, expect, it } from "vitest";
import { createContentReference, type ContentSource } from "./content-reference.ts";

/** A content source that counts its calls. */
function countingSource() {
  const calls: string[] = [];
  const source: ContentSource = {
    async company(companyId) {
      calls.push(`company ${companyId}`);
      return { autoCloseWaitingAfterHours: 24 };
    },
    async game(_companyId, gameId) {
      return { id: gameId, languages: ["en"], environmentIds: [] };
    },
    async definitions() {
      return { tags: [], fields: [] };
    },
    async hasGameAccess() {
      return true;
    },
  };
  return { source, calls };
}

describe("content reference cache", () => {
  it("keeps at most maxEntries entries, the least recently used going first", async () => {
    const { source, calls } = countingSource();
    const reference = createContentReference(source, { ttlMs: 60_000, maxEntries: 2 });
    for (const company of ["a", "b", "a", "c"]) await reference.getCompany(company);
    expect(calls).toEqual(["company a", "company b", "company c"]);
    await reference.getCompany("a"); // kept: used after b
    await reference.getCompany("b"); // evicted by c
    expect(calls).toEqual(["company a", "company b", "company c", "company b"]);
  });
});
