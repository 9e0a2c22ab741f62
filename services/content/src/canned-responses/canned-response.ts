// Canned responses: a company's ready answers, company-wide or for one game, in several
// languages, with placeholders filled for the ticket at hand and optional actions applied
// with the reply. Agents pick them in the support application's composer; admins write them.
import { isLanguageCode } from "../common/language.ts";
import { isUuid, requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";

/** What a response may do besides the reply: tags added, then waiting / on hold, or resolved. */
export interface CannedActions {
  addTags: string[];
  /** waiting (for the player) or on_hold; null: the status follows the reply as usual. */
  status: "waiting" | "on_hold" | null;
  resolve: boolean;
}

export interface CannedResponse {
  id: string;
  companyId: string;
  /** null: for every game of the company. */
  gameId: string | null;
  name: string;
  /** The text by language code; at least one. */
  texts: Record<string, string>;
  actions: CannedActions;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CannedResponseInput {
  gameId?: string | null | undefined;
  name: unknown;
  texts: unknown;
  actions?: unknown;
}

export type CannedResponseValues = Pick<CannedResponse, "gameId" | "name" | "texts" | "actions">;

/** The placeholders a text may hold, `{{player.name}}` and so on. */
export const PLACEHOLDERS = ["player.name", "ticket.number", "agent.name", "game.name"] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
const PLACEHOLDER = /\{\{\s*([a-z.]+)\s*\}\}/g;

export const MAX_TEXT_LENGTH = 10_000;

function parseActions(value: unknown, issues: ValidationIssue[]): CannedActions {
  if (value === undefined || value === null) return { addTags: [], status: null, resolve: false };
  if (typeof value !== "object" || Array.isArray(value)) {
    issues.push({ path: "/actions", message: "must be an object" });
    return { addTags: [], status: null, resolve: false };
  }
  const v = value as Record<string, unknown>;
  for (const key of Object.keys(v)) if (!["addTags", "status", "resolve"].includes(key)) issues.push({ path: `/actions/${key}`, message: "is not a canned response action" });
  const addTags: string[] = [];
  if (v.addTags !== undefined) {
    if (!Array.isArray(v.addTags)) issues.push({ path: "/actions/addTags", message: "must be an array of tag names" });
    else
      v.addTags.forEach((tag, index) => {
        if (typeof tag !== "string" || tag.trim() === "") issues.push({ path: `/actions/addTags/${index}`, message: "must be a tag name" });
        else if (!addTags.includes(tag.trim())) addTags.push(tag.trim());
      });
  }
  let status: CannedActions["status"] = null;
  if (v.status !== undefined && v.status !== null) {
    if (v.status !== "waiting" && v.status !== "on_hold") issues.push({ path: "/actions/status", message: "must be waiting or on_hold" });
    else status = v.status;
  }
  if (v.resolve !== undefined && typeof v.resolve !== "boolean") issues.push({ path: "/actions/resolve", message: "must be a boolean" });
  const resolve = v.resolve === true;
  // A ticket takes one status change per request: resolving is one.
  if (resolve && status !== null) issues.push({ path: "/actions/status", message: "cannot be set when the response resolves the ticket" });
  return { addTags, status, resolve };
}

export function parseCannedResponse(input: CannedResponseInput): CannedResponseValues {
  const issues: ValidationIssue[] = [];
  const gameId = input.gameId ?? null;
  if (gameId !== null && !isUuid(gameId)) issues.push({ path: "/gameId", message: "must be a game id or null" });
  const name = requiredText(input.name, "/name", issues, 120);
  const texts: Record<string, string> = {};
  if (input.texts === null || typeof input.texts !== "object" || Array.isArray(input.texts)) {
    issues.push({ path: "/texts", message: "must be an object of texts by language code" });
  } else {
    for (const [language, text] of Object.entries(input.texts as Record<string, unknown>)) {
      if (!isLanguageCode(language)) issues.push({ path: `/texts/${language}`, message: "is not a language code" });
      else if (typeof text !== "string" || text.trim() === "") issues.push({ path: `/texts/${language}`, message: "must be a text" });
      else if (text.length > MAX_TEXT_LENGTH) issues.push({ path: `/texts/${language}`, message: `must be at most ${MAX_TEXT_LENGTH} characters` });
      else {
        for (const match of text.matchAll(PLACEHOLDER)) {
          if (!(PLACEHOLDERS as readonly string[]).includes(match[1]!)) {
            issues.push({ path: `/texts/${language}`, message: `has an unknown placeholder {{${match[1]}}} (known: ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ")})` });
          }
        }
        texts[language] = text;
      }
    }
    if (Object.keys(texts).length === 0 && !issues.some((issue) => issue.path.startsWith("/texts"))) issues.push({ path: "/texts", message: "must hold at least one text" });
  }
  const actions = parseActions(input.actions, issues);
  throwIfInvalid(issues);
  return { gameId: gameId === null ? null : gameId.toLowerCase(), name, texts, actions };
}

/**
 * The language of the response for a ticket: the ticket's language, else its base language
 * (`pt` for `pt-BR`), else the company's primary language, else the first the response has.
 */
export function pickLanguage(texts: Record<string, string>, ticketLanguage: string, primaryLanguage: string): string {
  const base = ticketLanguage.split("-")[0]!;
  for (const candidate of [ticketLanguage, base, primaryLanguage]) if (candidate in texts) return candidate;
  return Object.keys(texts)[0]!;
}

/** The text with its placeholders filled; a value that is not known (a player without a name) becomes empty. */
export function fillPlaceholders(text: string, values: Partial<Record<Placeholder, string>>): string {
  return text.replace(PLACEHOLDER, (_whole, name: string) => values[name as Placeholder] ?? "");
}
