import { describe, expect, it } from "vitest";
import { AppError } from "@support/errors";
import {
  checkLocalizationMap, normalizeLongContent, parseAnnouncementContent, pickAnnouncementInForce, type Announcement,
} from "./announcement.ts";

function rejection(work: () => unknown): AppError {
  try {
    work();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected a validation error");
}

describe("parseAnnouncementContent", () => {
  it("requires nonblank shortContent in the company's primary language", () => {
    const error = rejection(() => parseAnnouncementContent({ shortContent: { en: "   ", de: "Hallo" } }, "en"));
    expect(error.code).toBe("invalid_argument");
    expect(error.message).toBe("shortContent must be nonblank in the primary language en");
    expect(error.details).toMatchObject({ type: "VALIDATION_ERROR", issues: [{ path: "/shortContent/en" }] });
  });

  it("checks the primary language, not English", () => {
    expect(rejection(() => parseAnnouncementContent({ shortContent: { en: "Hello" } }, "pt-BR")).details?.issues).toEqual([
      { path: "/shortContent/pt-BR", message: expect.stringContaining("pt-BR") },
    ]);
    expect(parseAnnouncementContent({ shortContent: { "pt-BR": "Olá" } }, "pt-BR").shortContent).toEqual({ "pt-BR": "Olá" });
  });

  it("treats a missing or null primary text as blank", () => {
    expect(rejection(() => parseAnnouncementContent({ shortContent: { en: null, fr: "Bonjour" } }, "en")).code).toBe("invalid_argument");
    expect(rejection(() => parseAnnouncementContent({ shortContent: {} }, "en")).code).toBe("invalid_argument");
    expect(rejection(() => parseAnnouncementContent({ shortContent: undefined }, "en")).code).toBe("invalid_argument");
  });

  it("keeps other languages as given, null and blank included", () => {
    const content = parseAnnouncementContent({ shortContent: { en: "Hi", fr: null, de: "" }, longContent: { en: "# Notes", ja: null } }, "en");
    expect(content).toEqual({ shortContent: { en: "Hi", fr: null, de: "" }, longContent: { en: "# Notes", ja: null } });
  });

  it("names every key that is not a language code, in either map", () => {
    const error = rejection(() =>
      parseAnnouncementContent({ shortContent: { en: "Hi", english: "Hi" }, longContent: { "fr/CA": "x", EN: "y" } }, "en"),
    );
    expect(error.details?.issues?.map((issue) => issue.path)).toEqual(["/shortContent/english", "/longContent/fr~1CA", "/longContent/EN"]);
  });

  it("reports bad keys and the missing primary text together", () => {
    const error = rejection(() => parseAnnouncementContent({ shortContent: { xx: "Hi" } }, "en"));
    expect(error.details?.issues?.map((issue) => issue.path)).toEqual(["/shortContent/xx", "/shortContent/en"]);
  });

  it("refuses values that are neither string nor null", () => {
    const error = rejection(() => parseAnnouncementContent({ shortContent: { en: "Hi", fr: 3 }, longContent: { en: { nested: true } } }, "en"));
    expect(error.details?.issues).toEqual([
      { path: "/shortContent/fr", message: "must be a string or null" },
      { path: "/longContent/en", message: "must be a string or null" },
    ]);
  });

  it("clears the details for a null, absent or empty longContent", () => {
    expect(parseAnnouncementContent({ shortContent: { en: "Hi" }, longContent: null }, "en").longContent).toEqual({});
    expect(parseAnnouncementContent({ shortContent: { en: "Hi" } }, "en").longContent).toEqual({});
    expect(parseAnnouncementContent({ shortContent: { en: "Hi" }, longContent: {} }, "en").longContent).toEqual({});
  });
});

describe("localization maps", () => {
  it("refuses arrays and scalars", () => {
    for (const value of [[], "en", 1]) {
      const issues: { path: string; message: string }[] = [];
      checkLocalizationMap(value, "/shortContent", issues);
      expect(issues).toEqual([{ path: "/shortContent", message: expect.any(String) }]);
    }
  });

  it("normalises absent details to an empty map", () => {
    expect(normalizeLongContent(undefined, [])).toEqual({});
  });
});

describe("pickAnnouncementInForce", () => {
  const at = new Date(0);
  const make = (scope: Announcement["scope"], gameId: string | null, environmentId: string | null): Announcement => ({
    companyId: "c",
    scope,
    gameId,
    environmentId,
    shortContent: { en: scope },
    longContent: {},
    createdAt: at,
    updatedAt: at,
  });
  const shared = make("shared", null, null);
  const game = make("game", "g1", null);
  const otherGame = make("game", "g2", null);
  const environment = make("environment", "g1", "e1");
  const otherEnvironment = make("environment", "g1", "e2");
  const target = { gameId: "g1", environmentId: "e1" };

  it("prefers the environment override, then the game, then the shared announcement", () => {
    expect(pickAnnouncementInForce([shared, game, environment], target)).toEqual({ announcement: environment, source: "environment" });
    expect(pickAnnouncementInForce([shared, game, otherEnvironment], target)).toEqual({ announcement: game, source: "game" });
    expect(pickAnnouncementInForce([shared, otherGame], target)).toEqual({ announcement: shared, source: "shared" });
    expect(pickAnnouncementInForce([otherGame, otherEnvironment], target)).toEqual({ announcement: null, source: "none" });
  });

  it("keeps game and environment announcements when there is no shared one", () => {
    expect(pickAnnouncementInForce([game], target).source).toBe("game");
    expect(pickAnnouncementInForce([environment], target).source).toBe("environment");
  });
});
