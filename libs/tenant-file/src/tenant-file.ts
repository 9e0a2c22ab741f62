// The tenant file of `pnpm admin apply`: its shape (tenant-file.schema.json, checked with ajv)
// and the cross-references a schema cannot express (refs that must exist, names that must be
// unique). Every problem is reported with the path of the bad value, e.g. `games/0/languages/1`.
import { Ajv, type ErrorObject } from "ajv";
import schema from "./tenant-file.schema.json" with { type: "json" };

export type LocalizedText = string | Record<string, string | null>;

export interface TenantFile {
  company: {
    name: string;
    primaryLanguage?: string;
    allowImmediateDeletion?: boolean;
    autoCloseWaitingAfterHours?: number;
    /** Requests per minute of all the company's API keys together (default: the gateway's). */
    apiRateLimitPerMinute?: number;
    /** Every user must sign in with two-factor (default false). */
    requireTwoFactor?: boolean;
    /** Single sign-on with the company's OpenID provider; the secret itself stays in the content service's Secret content-sso. */
    singleSignOn?: { issuer: string; clientId: string; clientSecretKey: string; allowJustInTimeUsers?: boolean; emailDomains?: string[] };
    /** The From of the mails to the players of its email tickets (default: "<game> Support" <MAIL_FROM's address>). */
    email?: { senderName?: string; senderAddress?: string };
  };
  /** rateLimitPerMinute: requests per minute of the key (default: the company's limit). */
  apiKeys?: { name: string; rateLimitPerMinute?: number }[];
  games?: {
    ref: string;
    name: string;
    slug: string;
    languages: string[];
    environments?: {
      ref: string;
      name: string;
      announcement?: { shortContent: LocalizedText; longContent?: LocalizedText | null };
    }[];
    /** title and body: a string (the company's primary language) or a localization map. */
    resources?: { key: string; title: LocalizedText; body?: LocalizedText | null }[];
    collectors?: TenantCollector[];
    metadataJwks?: { keys: Record<string, unknown>[] };
    blockUnverifiedPlayers?: boolean;
    routing?: boolean;
    /** The web support page's look (the logo is uploaded in the console). */
    branding?: { accentColor?: string | null; colorScheme?: "light" | "dark" | "system" };
  }[];
  users?: { ref: string; name: string; email: string; role?: "admin" | "agent"; displayName?: string; games?: string[]; skills?: string[]; languages?: string[]; capacity?: number }[];
  tags?: { name: string; game: string | null; description?: string | null; isAiTag?: boolean; isSkill?: boolean }[];
  fields?: {
    key: string;
    name: string;
    type: string;
    game: string | null;
    description?: string | null;
    isAiField?: boolean;
    options?: string[];
  }[];
  blockedPlayers?: { game: string; playerId?: string; email?: string }[];
  /** Webhook subscriptions, matched by url (webhooks service). */
  webhooks?: { url: string; description?: string; events: string[]; games?: string[]; enabled?: boolean }[];
  /** Automation rules, matched by name (tickets service; checked in full there). */
  rules?: TenantRule[];
  /** SLA calendar and policies, replaced whole (tickets service). */
  sla?: {
    calendar?: { timeZone: string; hours: { day: number; start: string; end: string }[]; holidays?: string[] } | null;
    policies: TenantSlaPolicy[];
  };
  triage?: { threshold: number };
  /** Outbreak detection; a value left out keeps the company's. */
  outbreaks?: { enabled?: boolean; minTickets?: number; windowMinutes?: number; similarity?: number };
}

/** A rule as the settings take it; a `game` condition names refs of the file's games. */
export interface TenantRule {
  name: string;
  enabled?: boolean;
  trigger: { type: string; [key: string]: unknown };
  conditions?: { type: string; not?: boolean; [key: string]: unknown }[];
  actions: { type: string; [key: string]: unknown }[];
}

/** An SLA policy as the settings take it, with `games` (refs of the file's games) for `gameIds`. */
export interface TenantSlaPolicy {
  id: string;
  name: string;
  games?: string[];
  tiers?: number[];
  tags?: string[];
  targets: { firstResponseMinutes?: number; nextResponseMinutes?: number; resolutionMinutes?: number };
  businessHours?: boolean;
  pauseWhileWaiting?: boolean;
  warnBeforeMinutes?: number;
}

/** The eight field types of a collector result. */
export type CollectorFieldType = "TEXT" | "SELECT_GROUP" | "DROPDOWN" | "DATE" | "EMAIL" | "CHECKBOX" | "PLATFORM_SELECTOR" | "FILE";

/** A collector definition of a game: a form whose answers tickets stores as a COLLECTOR_RESULT. */
export interface TenantCollector {
  ref: string;
  title: string;
  contactForm?: boolean;
  fields: { key: string; label: string; type: CollectorFieldType; options?: string[]; required?: boolean }[];
}

/** A problem in the file: `path` is a JSON pointer without the leading slash ("" for the root). */
export interface TenantFileIssue {
  path: string;
  message: string;
}

export class TenantFileError extends Error {
  readonly issues: TenantFileIssue[];
  constructor(issues: TenantFileIssue[], message = "the tenant file is invalid") {
    super(message);
    this.name = "TenantFileError";
    this.issues = issues;
  }
}

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const validateShape = ajv.compile<TenantFile>(schema);

function join(base: string, token: string | number): string {
  const escaped = String(token).replaceAll("~", "~0").replaceAll("/", "~1");
  return base === "" ? escaped : `${base}/${escaped}`;
}

// ajv's pattern messages quote the regular expression; say what it means instead.
const patternMessages: Record<string, string> = {
  slug: "must be 1-64 lower-case letters, digits and inner hyphens",
  key: "must be 1-64 letters, digits, '_' or '-'",
  email: "must be an email address",
  name: "must not contain a comma",
  playerId: "must not be blank",
  url: "must be an http(s) URL",
  senderName: "must be 1-100 characters without line breaks, not blank",
  senderAddress: "must be a plain email address (name@example.com)",
  id: "must be 1-64 of a-z, 0-9, '-' and '_'",
  start: "must be a time HH:MM",
  end: "must be a time HH:MM (24:00: the end of the day)",
};

// ajv's oneOf message ("must match exactly one schema in oneOf") does not say which; keyed by
// the list whose entries carry the oneOf.
const oneOfMessages: Record<string, string> = {
  blockedPlayers: "give exactly one of playerId and email",
};

/** Turns ajv's errors into one issue per bad value, naming the value itself where ajv names its parent. */
function shapeIssues(errors: ErrorObject[]): TenantFileIssue[] {
  const issues: TenantFileIssue[] = [];
  for (const error of errors) {
    const at = error.instancePath.replace(/^\//, "");
    // Summaries of other errors on the same value ("must match then schema") add nothing.
    if (error.keyword === "if" || error.keyword === "anyOf") continue;
    if (error.keyword === "propertyNames") continue;
    // The branches of a oneOf ("playerId is required", "email is required"): its own message says it.
    if (error.schemaPath.includes("/oneOf/")) continue;
    if (error.propertyName !== undefined) {
      issues.push({ path: join(at, error.propertyName), message: "is not a language code" });
    } else if (error.keyword === "required") {
      issues.push({ path: join(at, (error.params as { missingProperty: string }).missingProperty), message: "is required" });
    } else if (error.keyword === "additionalProperties") {
      issues.push({ path: join(at, (error.params as { additionalProperty: string }).additionalProperty), message: "is not allowed here" });
    } else if (error.keyword === "pattern") {
      const property = error.schemaPath.split("/").at(-2) ?? "";
      issues.push({ path: at, message: patternMessages[property] ?? error.message ?? "is invalid" });
    } else if (error.keyword === "oneOf") {
      const list = error.schemaPath.split("/").at(-3) ?? "";
      issues.push({ path: at, message: oneOfMessages[list] ?? error.message ?? "is invalid" });
    } else if (error.keyword === "maxItems" && at.endsWith("/options")) {
      issues.push({ path: at, message: "only dropdown fields have options" });
    } else {
      issues.push({ path: at, message: error.message ?? "is invalid" });
    }
  }
  return issues;
}

function duplicates<T>(items: readonly T[], keyOf: (item: T) => string | undefined, path: (index: number) => string, what: string): TenantFileIssue[] {
  const first = new Map<string, number>();
  const issues: TenantFileIssue[] = [];
  items.forEach((item, index) => {
    const key = keyOf(item);
    if (key === undefined) return;
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, index);
    else issues.push({ path: path(index), message: `duplicates ${what} ${path(earlier)}` });
  });
  return issues;
}

const NEEDS_OPTIONS = new Set(["SELECT_GROUP", "DROPDOWN"]);
const MAY_HAVE_OPTIONS = new Set(["SELECT_GROUP", "DROPDOWN", "PLATFORM_SELECTOR"]);

/** Field keys unique in a collector; options where the type needs them, none where it takes none. */
function collectorFieldIssues(collector: TenantCollector, path: string): TenantFileIssue[] {
  return [
    ...duplicates(collector.fields, (f) => f.key, (i) => `${path}/fields/${i}/key`, "the key of"),
    ...collector.fields.flatMap((field, i): TenantFileIssue[] => {
      if (NEEDS_OPTIONS.has(field.type) && field.options === undefined) return [{ path: `${path}/fields/${i}/options`, message: `a ${field.type} field needs options` }];
      if (!MAY_HAVE_OPTIONS.has(field.type) && field.options !== undefined) {
        return [{ path: `${path}/fields/${i}/options`, message: "only SELECT_GROUP, DROPDOWN and PLATFORM_SELECTOR fields have options" }];
      }
      return [];
    }),
  ];
}

function crossReferenceIssues(file: TenantFile): TenantFileIssue[] {
  const games = file.games ?? [];
  const gameRefs = new Set(games.map((g) => g.ref));
  const unknownGame = (ref: string | null, path: string): TenantFileIssue[] =>
    ref === null || gameRefs.has(ref) ? [] : [{ path, message: `unknown game ref ${JSON.stringify(ref)} (not in games)` }];
  const scopeOf = (game: string | null) => (game === null ? "" : game);

  return [
    ...duplicates(file.apiKeys ?? [], (k) => k.name, (i) => `apiKeys/${i}/name`, "the name of"),
    ...duplicates(games, (g) => g.ref, (i) => `games/${i}/ref`, "the ref of"),
    ...duplicates(games, (g) => g.slug, (i) => `games/${i}/slug`, "the slug of"),
    ...games.flatMap((game, g) => [
      ...duplicates(game.environments ?? [], (e) => e.ref, (i) => `games/${g}/environments/${i}/ref`, "the ref of"),
      ...duplicates(game.environments ?? [], (e) => e.name, (i) => `games/${g}/environments/${i}/name`, "the name of"),
      ...duplicates(game.resources ?? [], (r) => r.key, (i) => `games/${g}/resources/${i}/key`, "the key of"),
      ...duplicates(game.collectors ?? [], (c) => c.ref, (i) => `games/${g}/collectors/${i}/ref`, "the ref of"),
      ...duplicates(game.collectors ?? [], (c) => (c.contactForm === true ? "contactForm" : undefined), (i) => `games/${g}/collectors/${i}/contactForm`, "the contact form"),
      ...(game.collectors ?? []).flatMap((collector, c) => collectorFieldIssues(collector, `games/${g}/collectors/${c}`)),
    ]),
    ...duplicates(file.users ?? [], (u) => u.ref, (i) => `users/${i}/ref`, "the ref of"),
    ...duplicates(file.users ?? [], (u) => u.email.toLowerCase(), (i) => `users/${i}/email`, "the email of"),
    ...(file.users ?? []).flatMap((user, u) => [
      ...(user.games ?? []).flatMap((ref, i) => unknownGame(ref, `users/${u}/games/${i}`)),
      ...duplicates(user.games ?? [], (ref) => ref, (i) => `users/${u}/games/${i}`, "the game ref at"),
      ...duplicates(user.skills ?? [], (name) => name.trim(), (i) => `users/${u}/skills/${i}`, "the skill at"),
      ...duplicates(user.languages ?? [], (code) => code, (i) => `users/${u}/languages/${i}`, "the language at"),
    ]),
    ...(file.tags ?? []).flatMap((tag, i) => unknownGame(tag.game, `tags/${i}/game`)),
    ...duplicates(file.tags ?? [], (t) => `${scopeOf(t.game)}\u0000${t.name.trim()}`, (i) => `tags/${i}/name`, "the tag (same name and game) at"),
    ...(file.fields ?? []).flatMap((field, i) => unknownGame(field.game, `fields/${i}/game`)),
    ...duplicates(file.fields ?? [], (f) => `${scopeOf(f.game)}\u0000${f.key}`, (i) => `fields/${i}/key`, "the field (same key and game) at"),
    ...(file.blockedPlayers ?? []).flatMap((entry, i) => unknownGame(entry.game, `blockedPlayers/${i}/game`)),
    ...duplicates(file.webhooks ?? [], (w) => w.url, (i) => `webhooks/${i}/url`, "the url of"),
    ...(file.webhooks ?? []).flatMap((webhook, w) => (webhook.games ?? []).flatMap((ref, i) => unknownGame(ref, `webhooks/${w}/games/${i}`))),
    ...duplicates(file.rules ?? [], (r) => r.name.trim(), (i) => `rules/${i}/name`, "the name of"),
    ...(file.rules ?? []).flatMap((rule, r) =>
      (rule.conditions ?? []).flatMap((condition, c) => {
        if (condition.type !== "game") return [];
        if (!Array.isArray(condition.in)) return [{ path: `rules/${r}/conditions/${c}/in`, message: "must be a list of game refs" }];
        return condition.in.flatMap((ref, i) => (typeof ref === "string" ? unknownGame(ref, `rules/${r}/conditions/${c}/in/${i}`) : [{ path: `rules/${r}/conditions/${c}/in/${i}`, message: "must be a game ref" }]));
      }),
    ),
    ...duplicates(file.sla?.policies ?? [], (p) => p.id, (i) => `sla/policies/${i}/id`, "the id of"),
    ...(file.sla?.policies ?? []).flatMap((policy, p) => (policy.games ?? []).flatMap((ref, i) => unknownGame(ref, `sla/policies/${p}/games/${i}`))),
  ];
}

/** Checks a parsed tenant file; throws TenantFileError naming every bad path. */
export function parseTenantFile(value: unknown): TenantFile {
  if (!validateShape(value)) throw new TenantFileError(shapeIssues(validateShape.errors ?? []));
  const issues = crossReferenceIssues(value);
  if (issues.length > 0) throw new TenantFileError(issues);
  return value;
}
