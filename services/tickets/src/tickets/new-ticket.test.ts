// checkNewTicket, the one check of a new ticket from either source: each rule with the path and
// message the API error body shows, and each default applied by it (and only by it).
import { describe, expect, it } from "vitest";
import { isAppError, type ValidationIssue } from "@support/errors";
import { checkNewTicket, MAX_ATTACHMENTS, MAX_MESSAGE_LENGTH, type UncheckedNewTicket } from "./new-ticket.ts";

const COMPANY = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const GAME = "BBBBBBBB-BBBB-4BBB-8BBB-BBBBBBBBBBBB";
const SESSION = "CCCCCCCC-CCCC-4CCC-8CCC-CCCCCCCCCCCC";

/** A valid POST /tickets request as the RPC edge maps it. */
function api(overrides: Partial<UncheckedNewTicket> = {}): UncheckedNewTicket {
  return {
    supportSource: "API",
    companyId: COMPANY,
    gameId: GAME,
    player: { externalId: "p-1", email: "pat@example.com", name: "Pat" },
    message: "My ship is gone",
    attachmentIds: [],
    language: "fr",
    channels: ["email"],
    tags: ["bug"],
    fields: { level: 12 },
    skipDuplicateCheck: false,
    ...overrides,
  };
}

/** A valid web support page request as the player-side RPC edge maps it (no channels, platform or duplicate flag). */
function web(overrides: Partial<UncheckedNewTicket> = {}): UncheckedNewTicket {
  return {
    supportSource: "WEB",
    companyId: COMPANY,
    gameId: GAME,
    sessionId: SESSION,
    player: { externalId: "p-1" },
    message: "Hello from the support page",
    attachmentIds: [],
    tags: [],
    fields: {},
    ...overrides,
  };
}

function issuesOf(request: UncheckedNewTicket): ValidationIssue[] {
  try {
    checkNewTicket(request);
  } catch (error) {
    if (isAppError(error) && error.code === "invalid_argument" && error.details?.type === "VALIDATION_ERROR") return error.details.issues ?? [];
    throw error;
  }
  return [];
}

describe("checkNewTicket", () => {
  it("makes a POST /tickets request into the new ticket: ids lower-case, player values trimmed, channels once", () => {
    expect(checkNewTicket(api({
      player: { externalId: " p-1 ", email: " pat@example.com ", name: "  ", tier: 2 },
      channels: ["email", "email"],
      platform: "ios",
      skipDuplicateCheck: true,
    }))).toEqual({
      supportSource: "API",
      companyId: COMPANY,
      gameId: GAME.toLowerCase(),
      environmentId: null,
      sessionId: null,
      player: { externalId: "p-1", email: "pat@example.com", name: null, tier: 2 },
      message: "My ship is gone",
      attachmentIds: [],
      language: "fr",
      channels: ["email"],
      platform: "ios",
      tags: ["bug"],
      fields: { level: 12 },
      skipDuplicateCheck: true,
      reopenedFromTicketId: null,
      article: null,
    });
  });

  it("makes a support page request into the same shape: a web chat, its session and environment lower-case, no duplicate check", () => {
    expect(checkNewTicket(web({ environmentId: "DDDDDDDD-DDDD-4DDD-8DDD-DDDDDDDDDDDD", player: { email: "ada@example.com", name: " Ada ", tier: 3 } }))).toEqual({
      supportSource: "WEB",
      companyId: COMPANY,
      gameId: GAME.toLowerCase(),
      environmentId: "dddddddd-dddd-4ddd-8ddd-dddddddddddd",
      sessionId: SESSION.toLowerCase(),
      player: { externalId: null, email: "ada@example.com", name: "Ada", tier: 3 },
      message: "Hello from the support page",
      attachmentIds: [],
      language: "en",
      channels: ["chat"],
      platform: "web",
      tags: [],
      fields: {},
      skipDuplicateCheck: true,
      reopenedFromTicketId: null,
      article: null,
    });
  });

  it("keeps the help article a support page request names, and none from a mail", () => {
    expect(checkNewTicket(web({ player: { email: "ada@example.com" }, article: { key: "refunds", title: "Refund policy" } })).article).toEqual({ key: "refunds", title: "Refund policy" });
    expect(checkNewTicket(web({ player: { email: "ada@example.com" }, article: { key: "refunds", title: "x".repeat(300) } })).article?.title).toHaveLength(200);
    expect(checkNewTicket({ ...web({ sessionId: undefined, player: { email: "ada@example.com" }, article: { key: "refunds", title: "Refunds" } }), supportSource: "EMAIL", reopenedFromTicketId: "EEEEEEEE-EEEE-4EEE-8EEE-EEEEEEEEEEEE" }).article).toBeNull();
  });

  it("makes a player's mail to a closed ticket into its follow-up: an email ticket of no session, with the closed one named and no duplicate check", () => {
    const closed = "EEEEEEEE-EEEE-4EEE-8EEE-EEEEEEEEEEEE";
    expect(checkNewTicket({ ...web({ sessionId: undefined, player: { email: "pat@example.com" } }), supportSource: "EMAIL", reopenedFromTicketId: closed })).toMatchObject({
      supportSource: "EMAIL",
      sessionId: null,
      channels: ["email"],
      platform: "not_specified",
      skipDuplicateCheck: true,
      reopenedFromTicketId: closed.toLowerCase(),
    });
    expect(issuesOf({ ...web({ sessionId: undefined, player: { email: "pat@example.com" } }), supportSource: "EMAIL", reopenedFromTicketId: "not-a-ticket" })).toEqual([
      { path: "/reopenedFromTicketId", message: "must be a uuid" },
    ]);
  });

  describe("defaults, applied here once", () => {
    it("gives a request naming no platform not_specified from the API and web from the support page", () => {
      expect(checkNewTicket(api({ platform: undefined })).platform).toBe("not_specified");
      expect(checkNewTicket(web()).platform).toBe("web");
    });

    it("keeps a platform the request names", () => {
      expect(checkNewTicket(api({ platform: "switch_2" })).platform).toBe("switch_2");
      expect(checkNewTicket(web({ platform: "android" })).platform).toBe("android");
    });

    it("gives a request naming no language en, and keeps a named one", () => {
      expect(checkNewTicket(web()).language).toBe("en");
      expect(checkNewTicket(web({ language: "pt-BR" })).language).toBe("pt-BR");
      expect(checkNewTicket(api({ language: undefined })).language).toBe("en");
    });

    it("gives a request naming no channels its source's, and no duplicate flag its source's", () => {
      expect(checkNewTicket(api({ channels: undefined, skipDuplicateCheck: undefined }))).toMatchObject({ channels: ["email"], skipDuplicateCheck: false });
      expect(checkNewTicket(web())).toMatchObject({ channels: ["chat"], skipDuplicateCheck: true });
      expect(checkNewTicket(web({ skipDuplicateCheck: false })).skipDuplicateCheck).toBe(false);
    });
  });

  describe("rules of both sources", () => {
    for (const [source, request] of [["API", api], ["WEB", web]] as const) {
      it(`${source}: refuses a game id that is not a uuid`, () => {
        expect(issuesOf(request({ gameId: "galaxy" }))).toEqual([{ path: "/gameId", message: "must be a uuid" }]);
      });

      it(`${source}: refuses a blank message and one over ${MAX_MESSAGE_LENGTH} characters, and accepts one of exactly that`, () => {
        expect(issuesOf(request({ message: " \n\t" }))).toEqual([{ path: "/message", message: "must not be blank" }]);
        expect(issuesOf(request({ message: "x".repeat(MAX_MESSAGE_LENGTH + 1) }))).toEqual([
          { path: "/message", message: `must be at most ${MAX_MESSAGE_LENGTH} characters` },
        ]);
        expect(issuesOf(request({ message: "x".repeat(MAX_MESSAGE_LENGTH) }))).toEqual([]);
      });

      it(`${source}: refuses more than ${MAX_ATTACHMENTS} attachments and accepts exactly that many`, () => {
        const ids = (count: number) => Array.from({ length: count }, (_, index) => `attachment-${index}`);
        expect(issuesOf(request({ attachmentIds: ids(MAX_ATTACHMENTS + 1) }))).toEqual([
          { path: "/attachments", message: `must have at most ${MAX_ATTACHMENTS} items` },
        ]);
        expect(issuesOf(request({ attachmentIds: ids(MAX_ATTACHMENTS) }))).toEqual([]);
      });

      it(`${source}: refuses a language that is not a supported code (an empty one too)`, () => {
        expect(issuesOf(request({ language: "xx" }))).toEqual([{ path: "/language", message: "must be a language code" }]);
        expect(issuesOf(request({ language: "" }))).toEqual([{ path: "/language", message: "must be a language code" }]);
      });

      it(`${source}: refuses a platform outside the enumeration`, () => {
        expect(issuesOf(request({ platform: "amiga" }))).toEqual([
          { path: "/platform", message: expect.stringMatching(/^must be one of ios, android, .*, not_specified$/) },
        ]);
      });

      it(`${source}: refuses an empty list of channels`, () => {
        expect(issuesOf(request({ channels: [] }))).toEqual([{ path: "/channels", message: "must have at least 1 item" }]);
      });
    }

    it("refuses from each source the channels of the other, by index", () => {
      expect(issuesOf(api({ channels: ["email", "chat"] }))).toEqual([{ path: "/channels/1", message: "must be email" }]);
      expect(issuesOf(web({ channels: ["email"] }))).toEqual([{ path: "/channels/0", message: "must be chat" }]);
    });
  });

  describe("the REST API: every bad value refuses the request, named by its path in the body", () => {
    it("requires the player's email", () => {
      expect(issuesOf(api({ player: { externalId: "p-1" } }))).toEqual([{ path: "/metadata/player/email", message: "is required" }]);
      expect(issuesOf(api({ player: { externalId: "p-1", email: "  " } }))).toEqual([{ path: "/metadata/player/email", message: "is required" }]);
    });

    it("refuses an email that is not an address, and accepts an email-only player", () => {
      for (const email of ["nope", "a@", "@b", "a b@c"]) {
        expect(issuesOf(api({ player: { email } })), email).toEqual([{ path: "/metadata/player/email", message: "must be an email address" }]);
      }
      expect(checkNewTicket(api({ player: { email: "only@example.com" } })).player).toEqual({ externalId: null, email: "only@example.com", name: null, tier: null });
    });

    it("refuses a blank player id", () => {
      expect(issuesOf(api({ player: { externalId: " ", email: "pat@example.com" } }))).toEqual([{ path: "/metadata/player/id", message: "must not be blank" }]);
    });

    it("refuses a tier other than 1, 2 or 3", () => {
      for (const tier of [0, 4, 7, -1]) {
        expect(issuesOf(api({ player: { email: "pat@example.com", tier } })), String(tier)).toEqual([{ path: "/metadata/player/tier", message: "must be 1, 2 or 3" }]);
      }
      expect(checkNewTicket(api({ player: { email: "pat@example.com", tier: 1 } })).player.tier).toBe(1);
    });

    it("refuses field values that are not a string, number, boolean or array of strings, escaping the key", () => {
      expect(issuesOf(api({ fields: { level: { nested: 1 }, "a/b": [["x"]], ok: ["x"], also: true } }))).toEqual([
        { path: "/metadata/fields/level", message: "must be a string, a number, a boolean or an array of strings" },
        { path: "/metadata/fields/a~1b", message: "must be a string, a number, a boolean or an array of strings" },
      ]);
    });

    it("names every bad value in one error, in the order of the body", () => {
      expect(issuesOf(api({
        gameId: "x", message: "  ", language: "xx", channels: [], platform: "amiga",
        player: { externalId: "", email: "nope", tier: 7 }, fields: { level: null },
      })).map((issue) => issue.path)).toEqual([
        "/gameId", "/message", "/language", "/channels", "/platform", "/metadata/player/email", "/metadata/player/id", "/metadata/player/tier", "/metadata/fields/level",
      ]);
    });

    it("needs no web support session", () => {
      expect(checkNewTicket(api()).sessionId).toBeNull();
    });
  });

  describe("the support page: the session's metadata is taken leniently", () => {
    it("refuses a session naming neither a player id nor an email", () => {
      expect(issuesOf(web({ player: {} }))).toEqual([{ path: "/player", message: "the session has no player id or email" }]);
      expect(issuesOf(web({ player: { externalId: " ", email: " ", name: "Ada" } }))).toEqual([{ path: "/player", message: "the session has no player id or email" }]);
      expect(checkNewTicket(web({ player: { email: "ada@example.com" } })).player.email).toBe("ada@example.com");
    });

    it("drops a bad tier, a blank id and field values of no field type instead of refusing", () => {
      const ticket = checkNewTicket(web({ player: { externalId: " ", email: "ada@example.com", tier: 7 }, fields: { level: { nested: 1 }, note: "kept" } }));
      expect(ticket.player).toEqual({ externalId: null, email: "ada@example.com", name: null, tier: null });
      expect(ticket.fields).toEqual({ note: "kept" });
    });

    it("requires the session opening the ticket, as a uuid", () => {
      expect(issuesOf(web({ sessionId: undefined }))).toEqual([{ path: "/sessionId", message: "must be a uuid" }]);
      expect(issuesOf(web({ sessionId: "session-1" }))).toEqual([{ path: "/sessionId", message: "must be a uuid" }]);
    });

    it("names every bad value in one error", () => {
      expect(issuesOf(web({ gameId: "x", message: "", language: "xx", player: {}, sessionId: "" })).map((issue) => issue.path)).toEqual([
        "/gameId", "/message", "/language", "/player", "/sessionId",
      ]);
    });
  });
});
