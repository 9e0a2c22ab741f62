import { describe, expect, it } from "vitest";
import type { AppError } from "@support/errors";
import { parseNewUser, parseUserChange, skillIssues, type NewUserInput } from "./user.ts";

const user = (skills: unknown): NewUserInput => ({ name: "Ada", email: "ada@example.com", gameIds: [], skills: skills as string[] });

function issuesOf(input: NewUserInput) {
  try {
    parseNewUser(input);
  } catch (error) {
    return (error as AppError).details?.issues;
  }
  return [];
}

describe("a user's skills", () => {
  it("default to none and keep the order given, trimmed", () => {
    expect(parseNewUser({ name: "Ada", email: "ada@example.com", gameIds: [] }).skills).toEqual([]);
    expect(parseNewUser(user(["refunds ", "billing"])).skills).toEqual(["refunds", "billing"]);
  });

  it("are tag names, each once", () => {
    expect(issuesOf(user(["billing", " ", "a,b", "billing", 3]))).toEqual([
      { path: "/skills/1", message: "must be a nonblank string" },
      { path: "/skills/2", message: "must not contain a comma" },
      { path: "/skills/3", message: "is listed twice" },
      { path: "/skills/4", message: "must be a nonblank string" },
    ]);
    expect(issuesOf(user("billing"))).toEqual([{ path: "/skills", message: "must be an array of tag names" }]);
  });

  it("must each name a tag marked isSkill, company-wide or of any game", () => {
    const tags = [
      { name: "bug", isSkill: false },
      { name: "billing", isSkill: true },
      // The same name company-wide without isSkill and in one game with it: a skill.
      { name: "refunds", isSkill: false },
      { name: "refunds", isSkill: true },
    ];
    expect(skillIssues(["billing", "refunds"], tags)).toEqual([]);
    expect(skillIssues(["billing", "nope", "bug", "Billing"], tags)).toEqual([
      { path: "/skills/1", message: 'must be a skill tag of the company; no tag is named "nope"' },
      { path: "/skills/2", message: 'must be a skill tag of the company; the tag "bug" is not marked isSkill' },
      { path: "/skills/3", message: 'must be a skill tag of the company; no tag is named "Billing"' },
    ]);
  });
});

describe("a user's routing settings", () => {
  it("default to none (every language) and no capacity of their own, and take language codes each once and a capacity from 0 to 1000", () => {
    const base = { name: "Ada", email: "ada@example.com", gameIds: [] };
    expect(parseNewUser(base)).not.toHaveProperty("languages");
    expect(parseNewUser({ ...base, languages: ["en", "pt-BR"], capacity: 0 })).toMatchObject({ languages: ["en", "pt-BR"], capacity: 0 });
    expect(issuesOf({ ...base, languages: ["en", "xx", "en"], capacity: 1001 })).toEqual([
      { path: "/languages/1", message: "must be a language code" },
      { path: "/languages/2", message: "is listed twice" },
      { path: "/capacity", message: "must be an integer from 0 to 1000" },
    ]);
    expect(parseUserChange({ languages: [], capacity: 3 })).toEqual({ languages: [], capacity: 3 });
    expect(() => parseUserChange({ capacity: 1.5 })).toThrow();
  });
});
