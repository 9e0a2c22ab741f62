import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseTenantFile, TenantFileError } from "./tenant-file.ts";

const minimal = () => ({
  company: { name: "Studio" },
  apiKeys: [{ name: "main" }],
  games: [{ ref: "g", name: "Game", slug: "game", languages: ["en"], environments: [{ ref: "prod", name: "production" }] }],
  users: [{ ref: "alice", name: "Alice", email: "alice@example.com", games: ["g"] }],
  tags: [{ name: "bug", game: null }],
  fields: [{ key: "level", name: "Level", type: "number", game: "g" }],
});

function issuesOf(value: unknown) {
  try {
    parseTenantFile(value);
  } catch (error) {
    if (error instanceof TenantFileError) return error.issues;
    throw error;
  }
  return [];
}

describe("tenant file", () => {
  it("accepts the demo tenant of the local stack", () => {
    const demo = JSON.parse(readFileSync(new URL("../../../scripts/demo-tenant.json", import.meta.url), "utf8"));
    expect(issuesOf(demo)).toEqual([]);
  });

  it("accepts a minimal file", () => {
    expect(issuesOf(minimal())).toEqual([]);
    expect(issuesOf({ company: { name: "Only a company" } })).toEqual([]);
  });

  it("takes API rate limits per company and per key as positive integers", () => {
    expect(issuesOf({ company: { name: "Limited", apiRateLimitPerMinute: 600 }, apiKeys: [{ name: "ci", rateLimitPerMinute: 60 }] })).toEqual([]);
    expect(issuesOf({ company: { name: "Limited", apiRateLimitPerMinute: 0 }, apiKeys: [{ name: "ci", rateLimitPerMinute: 1.5 }] })).toEqual(
      expect.arrayContaining([
        { path: "company/apiRateLimitPerMinute", message: "must be >= 1" },
        { path: "apiKeys/0/rateLimitPerMinute", message: "must be integer" },
      ]),
    );
  });

  it("takes the company's mail sender: a name of 1-100 characters without line breaks and a plain address", () => {
    expect(issuesOf({ company: { name: "Star", email: { senderName: "Star Studio Support", senderAddress: "help@studio.example" } } })).toEqual([]);
    expect(issuesOf({ company: { name: "Star", email: { senderAddress: "help@mail.studio.example" } } })).toEqual([]);
    expect(issuesOf({ company: { name: "Star", email: {} } })).toEqual([]);
    expect(issuesOf({ company: { name: "Star", email: { senderName: "Star\r\nBcc: victim@example.com", senderAddress: "Star <help@studio.example>" } } })).toEqual([
      { path: "company/email/senderName", message: "must be 1-100 characters without line breaks, not blank" },
      { path: "company/email/senderAddress", message: "must be a plain email address (name@example.com)" },
    ]);
    for (const bad of ["help", "help@studio", "help@@studio.example", "he lp@studio.example", "help@studio.example\n", "help@-studio.example"]) {
      expect(issuesOf({ company: { name: "Star", email: { senderAddress: bad } } }), bad).toEqual([
        { path: "company/email/senderAddress", message: "must be a plain email address (name@example.com)" },
      ]);
    }
    expect(issuesOf({ company: { name: "Star", email: { senderName: "" } } })).toContainEqual({ path: "company/email/senderName", message: "must NOT have fewer than 1 characters" });
    expect(issuesOf({ company: { name: "Star", email: { senderName: "   " } } })).toEqual([
      { path: "company/email/senderName", message: "must be 1-100 characters without line breaks, not blank" },
    ]);
    expect(issuesOf({ company: { name: "Star", email: { senderName: "x".repeat(101) } } })).toEqual([
      { path: "company/email/senderName", message: "must NOT have more than 100 characters" },
    ]);
    expect(issuesOf({ company: { name: "Star", email: { replyTo: "a@b.example" } } })).toEqual([{ path: "company/email/replyTo", message: "is not allowed here" }]);
  });

  it("takes a game's branding: an accent colour as #rgb or #rrggbb and a colour scheme", () => {
    const branded = (branding: unknown) => ({ ...minimal(), games: [{ ...minimal().games[0]!, branding }] });
    expect(issuesOf(branded({ accentColor: "#0F766E", colorScheme: "dark" }))).toEqual([]);
    expect(issuesOf(branded({ accentColor: "#abc" }))).toEqual([]);
    expect(issuesOf(branded({ accentColor: null, colorScheme: "system" }))).toEqual([]);
    expect(issuesOf(branded({ accentColor: "teal", colorScheme: "sepia", logo: "logo.png" }))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "games/0/branding/accentColor" }),
        expect.objectContaining({ path: "games/0/branding/colorScheme" }),
        expect.objectContaining({ path: "games/0/branding/logo" }),
      ]),
    );
  });

  it("names the path of each bad value", () => {
    const file = minimal();
    file.games[0]!.languages = ["en", "klingon"];
    (file.company as Record<string, unknown>).autoCloseWaitingAfterHours = 0;
    (file.games[0] as Record<string, unknown>).enviroments = [];
    delete (file.users[0] as Record<string, unknown>).email;
    expect(issuesOf(file)).toEqual(
      expect.arrayContaining([
        { path: "games/0/languages/1", message: "must be equal to one of the allowed values" },
        { path: "company/autoCloseWaitingAfterHours", message: "must be > 0" },
        { path: "games/0/enviroments", message: "is not allowed here" },
        { path: "users/0/email", message: "is required" },
      ]),
    );
  });

  it("accepts localized text as a map or a plain string and names keys that are not languages", () => {
    const file = minimal();
    (file.games[0]!.environments[0] as Record<string, unknown>).announcement = { shortContent: "Hello", longContent: { en: "More", fr: null } };
    expect(issuesOf(file)).toEqual([]);
    (file.games[0]!.environments[0] as Record<string, unknown>).announcement = { shortContent: { en: "Hi", english: "Hi" } };
    expect(issuesOf(file)).toEqual([{ path: "games/0/environments/0/announcement/shortContent/english", message: "is not a language code" }]);
  });

  it("checks dropdown options", () => {
    const file = minimal();
    const withOptions = {
      ...file,
      fields: [
        { key: "a", name: "A", type: "dropdown", game: null },
        { key: "b", name: "B", type: "text", game: null, options: ["x"] },
      ],
    };
    expect(issuesOf(withOptions)).toEqual([
      { path: "fields/0/options", message: "is required" },
      { path: "fields/1/options", message: "only dropdown fields have options" },
    ]);
  });

  it("names game refs that are not in games", () => {
    const file = minimal();
    file.users[0]!.games = ["g", "nope"];
    file.tags = [{ name: "crash", game: "missing" as unknown as null }];
    file.fields[0]!.game = "other";
    expect(issuesOf(file)).toEqual([
      { path: "users/0/games/1", message: 'unknown game ref "nope" (not in games)' },
      { path: "tags/0/game", message: 'unknown game ref "missing" (not in games)' },
      { path: "fields/0/game", message: 'unknown game ref "other" (not in games)' },
    ]);
  });

  it("names duplicates", () => {
    const file = minimal();
    file.apiKeys.push({ name: "main" });
    file.games.push({ ...file.games[0]!, name: "Again" });
    file.users.push({ ref: "bob", name: "Bob", email: "ALICE@example.com", games: ["g", "g"] });
    file.tags.push({ name: "bug", game: null });
    expect(issuesOf(file)).toEqual([
      { path: "apiKeys/1/name", message: "duplicates the name of apiKeys/0/name" },
      { path: "games/1/ref", message: "duplicates the ref of games/0/ref" },
      { path: "games/1/slug", message: "duplicates the slug of games/0/slug" },
      { path: "users/1/email", message: "duplicates the email of users/0/email" },
      { path: "users/1/games/1", message: "duplicates the game ref at users/1/games/0" },
      { path: "tags/1/name", message: "duplicates the tag (same name and game) at tags/0/name" },
    ]);
  });

  it("takes a user's skills as tag names, each once (whether they are skill tags is the content service's check)", () => {
    const withSkills = (skills: unknown) => ({ ...minimal(), users: [{ ref: "alice", name: "Alice", email: "alice@example.com", skills }] });
    expect(issuesOf(withSkills(["billing", "refunds"]))).toEqual([]);
    expect(issuesOf(withSkills([]))).toEqual([]);
    expect(issuesOf(withSkills(["billing", "refunds", " billing"]))).toEqual([{ path: "users/0/skills/2", message: "duplicates the skill at users/0/skills/0" }]);
    expect(issuesOf(withSkills(["", 7]))).toEqual([
      { path: "users/0/skills/0", message: "must NOT have fewer than 1 characters" },
      { path: "users/0/skills/1", message: "must be string" },
    ]);
    expect(issuesOf(withSkills("billing"))).toEqual([{ path: "users/0/skills", message: "must be array" }]);
  });

  it("takes a user's routing settings: ticket languages each once, a capacity from 0 to 1000, a game's routing switch", () => {
    const withUser = (user: Record<string, unknown>) => ({ ...minimal(), users: [{ ref: "alice", name: "Alice", email: "alice@example.com", ...user }] });
    expect(issuesOf(withUser({ languages: ["en", "de"], capacity: 0 }))).toEqual([]);
    expect(issuesOf(withUser({ languages: ["en", "de", "en"] }))).toEqual([{ path: "users/0/languages/2", message: "duplicates the language at users/0/languages/0" }]);
    expect(issuesOf(withUser({ capacity: -1 }))).toEqual([{ path: "users/0/capacity", message: "must be >= 0" }]);
    expect(issuesOf(withUser({ capacity: 1001 }))).toEqual([{ path: "users/0/capacity", message: "must be <= 1000" }]);
    expect(issuesOf(withUser({ capacity: 2.5 }))).toEqual([{ path: "users/0/capacity", message: "must be integer" }]);
    expect(issuesOf({ ...minimal(), games: [{ ...minimal().games[0]!, routing: true }] })).toEqual([]);
    expect(issuesOf({ ...minimal(), games: [{ ...minimal().games[0]!, routing: "yes" }] })).toEqual([{ path: "games/0/routing", message: "must be boolean" }]);
  });

  it("allows the same tag name company-wide and per game", () => {
    const file = minimal();
    file.tags = [{ name: "bug", game: null }, { name: "bug", game: "g" as unknown as null }];
    expect(issuesOf(file)).toEqual([]);
  });

  it("accepts blocked players named by player id or email", () => {
    const file = { ...minimal(), blockedPlayers: [{ game: "g", playerId: "p1" }, { game: "g", email: "cheater@example.com" }] };
    expect(issuesOf(file)).toEqual([]);
    expect(issuesOf({ ...minimal(), blockedPlayers: [] })).toEqual([]);
  });

  it("names the path of a bad blocked player", () => {
    const file = {
      ...minimal(),
      blockedPlayers: [
        { game: "g", playerId: "p1", email: "p1@example.com" },
        { game: "g" },
        { game: "g", playerId: "  " },
        { game: "g", email: "not-an-email" },
        { game: "g", playerId: "p2", note: "x" },
      ],
    };
    expect(issuesOf(file)).toEqual([
      { path: "blockedPlayers/0", message: "give exactly one of playerId and email" },
      { path: "blockedPlayers/1", message: "give exactly one of playerId and email" },
      { path: "blockedPlayers/2/playerId", message: "must not be blank" },
      { path: "blockedPlayers/3/email", message: "must be an email address" },
      { path: "blockedPlayers/4/note", message: "is not allowed here" },
    ]);
    expect(issuesOf({ ...minimal(), blockedPlayers: [{ game: "g", playerId: "p1" }, { game: "elsewhere", playerId: "p1" }] })).toEqual([
      { path: "blockedPlayers/1/game", message: 'unknown game ref "elsewhere" (not in games)' },
    ]);
  });

  it("accepts localized resources and collectors, and names each bad collector value", () => {
    const file = minimal() as Record<string, unknown> & ReturnType<typeof minimal>;
    Object.assign(file.games[0]!, {
      resources: [{ key: "faq", title: { en: "FAQ", fr: "FAQ" }, body: "# Hi" }, { key: "b", title: "B", body: null }],
      collectors: [{ ref: "c", title: "Contact", contactForm: true, fields: [{ key: "t", label: "Topic", type: "DROPDOWN", options: ["a"], required: true }] }],
    });
    expect(issuesOf(file)).toEqual([]);
    Object.assign(file.games[0]!, {
      resources: [{ key: "faq", title: { xx: "?" } }],
      collectors: [
        { ref: "c", title: "Contact", contactForm: true, fields: [{ key: "t", label: "Topic", type: "DROPDOWN" }] },
        { ref: "c", title: "Other", contactForm: true, fields: [{ key: "u", label: "U", type: "COLOR" }, { key: "v", label: "V", type: "TEXT", options: ["x"] }] },
      ],
    });
    expect(issuesOf(file).map((issue) => issue.path).sort()).toEqual([
      "games/0/collectors/1/fields/0/type",
      "games/0/resources/0/title/xx",
    ]);
    (file.games[0] as unknown as { collectors: { fields: { type: string }[] }[] }).collectors[1]!.fields[0]!.type = "TEXT";
    (file.games[0] as unknown as { resources: unknown[] }).resources = [];
    expect(issuesOf(file).map((issue) => issue.path).sort()).toEqual([
      "games/0/collectors/0/fields/0/options",
      "games/0/collectors/1/contactForm",
      "games/0/collectors/1/fields/1/options",
      "games/0/collectors/1/ref",
    ]);
  });

  it("accepts webhooks with known events and game refs, and names each bad entry's path", () => {
    const file = {
      ...minimal(),
      webhooks: [
        { url: "https://hooks.example.com/a", events: ["ticket.created", "player.deleted"], games: ["g"], description: "dashboard", enabled: false },
        { url: "https://hooks.example.com/b", events: ["ticket.resolved"] },
      ],
    };
    expect(issuesOf(file)).toEqual([]);
    file.webhooks.push(
      { url: "ftp://hooks.example.com/c", events: ["ticket.exploded"], games: ["nope"] } as never,
      { url: "https://hooks.example.com/a", events: [] } as never,
      { url: "https://hooks.example.com/d", event: ["ticket.created"] } as never,
    );
    expect(issuesOf(file)).toEqual(
      expect.arrayContaining([
        { path: "webhooks/2/url", message: "must be an http(s) URL" },
        { path: "webhooks/2/events/0", message: "must be equal to one of the allowed values" },
        { path: "webhooks/3/events", message: "must NOT have fewer than 1 items" },
        { path: "webhooks/4/events", message: "is required" },
        { path: "webhooks/4/event", message: "is not allowed here" },
      ]),
    );
    file.webhooks.splice(2);
    file.webhooks.push({ url: "https://hooks.example.com/a", events: ["ticket.created"], games: ["g", "nope"] } as never);
    expect(issuesOf(file)).toEqual([
      { path: "webhooks/2/url", message: "duplicates the url of webhooks/0/url" },
      { path: "webhooks/2/games/1", message: 'unknown game ref "nope" (not in games)' },
    ]);
  });

  it("accepts the tickets service's rules, sla, triage and outbreaks, and names each bad value's path", () => {
    const file = {
      ...minimal(),
      rules: [
        { name: "Crashes", trigger: { type: "ticket_created" }, conditions: [{ type: "game", in: ["g"] }, { type: "text", contains: "crash" }], actions: [{ type: "addTags", tagNames: ["bug"] }] },
        { name: "Nudge", enabled: false, trigger: { type: "time", status: "waiting", hours: 48 }, actions: [{ type: "sendMessage", message: "Still there?" }] },
        { name: "Outage", trigger: { type: "outbreak" }, actions: [{ type: "addTags", tagNames: ["outage"] }] },
        { name: "Missed", trigger: { type: "sla_breached" }, actions: [{ type: "addPrivateNote", message: "SLA missed." }] },
      ],
      sla: {
        calendar: { timeZone: "Europe/Berlin", hours: [{ day: 1, start: "09:00", end: "24:00" }], holidays: ["2026-12-25"] },
        policies: [{ id: "std", name: "Standard", games: ["g"], tiers: [1], targets: { firstResponseMinutes: 60 }, businessHours: true }],
      },
      triage: { threshold: 0.85 },
      outbreaks: { enabled: true, minTickets: 5 },
    };
    expect(issuesOf(file)).toEqual([]);
    expect(issuesOf({ ...file, sla: { calendar: null, policies: [] }, outbreaks: {} })).toEqual([]);
    expect(
      issuesOf({
        ...file,
        rules: [...file.rules, { name: "Crashes", trigger: { type: "sometimes" }, conditions: [{ type: "game", in: ["nope"] }], actions: [], extra: 1 }],
        sla: { calendar: { timeZone: "UTC", hours: [{ day: 8, start: "9:00", end: "17:00" }] }, policies: [{ id: "Std!", name: "x", targets: {} }] },
        triage: { threshold: 0.3 },
        outbreaks: { minTickets: 2, similarity: 0.99, often: true },
      }),
    ).toEqual(
      expect.arrayContaining([
        { path: "rules/4/extra", message: "is not allowed here" },
        { path: "rules/4/trigger/type", message: "must be equal to one of the allowed values" },
        { path: "rules/4/actions", message: "must NOT have fewer than 1 items" },
        { path: "sla/calendar/hours/0/day", message: "must be <= 7" },
        { path: "sla/calendar/hours/0/start", message: "must be a time HH:MM" },
        { path: "sla/policies/0/id", message: "must be 1-64 of a-z, 0-9, '-' and '_'" },
        { path: "sla/policies/0/targets", message: "must NOT have fewer than 1 properties" },
        { path: "triage/threshold", message: "must be >= 0.5" },
        { path: "outbreaks/minTickets", message: "must be >= 3" },
        { path: "outbreaks/similarity", message: "must be <= 0.95" },
        { path: "outbreaks/often", message: "is not allowed here" },
      ]),
    );
    // Cross-references: names unique, game refs of the file.
    expect(
      issuesOf({
        ...file,
        rules: [...file.rules, { name: "Crashes", trigger: { type: "ticket_created" }, conditions: [{ type: "game", in: ["nope"] }], actions: [{ type: "unassignTicket" }] }],
        sla: { policies: [file.sla.policies[0], { ...file.sla.policies[0], games: ["g", "nope"] }] },
      }),
    ).toEqual([
      { path: "rules/4/name", message: "duplicates the name of rules/0/name" },
      { path: "rules/4/conditions/0/in/0", message: 'unknown game ref "nope" (not in games)' },
      { path: "sla/policies/1/id", message: "duplicates the id of sla/policies/0/id" },
      { path: "sla/policies/1/games/1", message: 'unknown game ref "nope" (not in games)' },
    ]);
  });
});
