// Player identity: a player of a game is found by its external id when the
// game gives one ("identified"), else by its email. These are the rules only: no SQL, no RPC.
import { isEmail, isUuid, validationError, type ValidationIssue } from "@support/errors";

export type Tier = 1 | 2 | 3;

export interface Player {
  id: string;
  companyId: string;
  gameId: string;
  externalId: string | null;
  name: string | null;
  /** As given (trimmed), for display; matching uses the normalised form. */
  email: string | null;
  tier: Tier | null;
  blocked: boolean;
  /** When the player was blocked; null while it is not. */
  blockedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What identifies a player within a game: its external id, or without one its email. */
export type PlayerKey =
  | { kind: "external"; externalId: string }
  | { kind: "email"; email: string; emailNormalized: string };

/** A found-or-created player and whether this call created it. */
export interface PlayerOutcome {
  player: Player;
  created: boolean;
}

/** The validated input of ResolvePlayer. `name`, `email`, `tier` null mean "not given". */
export interface ResolveValues {
  companyId: string;
  gameId: string;
  key: PlayerKey;
  name: string | null;
  email: string | null;
  emailNormalized: string | null;
  tier: Tier | null;
  /** The tier a newly created player gets (`tier`, else 1 for an identified player). */
  tierOnCreate: Tier | null;
}

export interface BlockValues {
  companyId: string;
  gameId: string;
  key: PlayerKey;
  /** The tier a player created by the block gets. */
  tierOnCreate: Tier | null;
}

export interface PlayerInfo {
  name: string | null;
  tier: Tier | null;
}

export const MAX_EXTERNAL_ID_LENGTH = 255;
export const MAX_NAME_LENGTH = 255;
export const MAX_EMAIL_LENGTH = 320;

/** The form emails are matched by: `Ann@Example.com ` and `ann@example.com` are one player. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** An identified player gets tier 1 unless a tier is given; others keep what was given. */
export function tierOnCreate(identified: boolean, tier: Tier | null): Tier | null {
  return tier ?? (identified ? 1 : null);
}

export function isTier(value: unknown): value is Tier {
  return value === 1 || value === 2 || value === 3;
}

function checkUuid(value: string, path: string, issues: ValidationIssue[]): string {
  if (!isUuid(value)) issues.push({ path, message: "must be a UUID" });
  return value.toLowerCase();
}

function checkTier(value: number | null | undefined, issues: ValidationIssue[]): Tier | null {
  if (value === undefined || value === null) return null;
  if (!isTier(value)) {
    issues.push({ path: "/tier", message: "must be 1, 2 or 3" });
    return null;
  }
  return value;
}

function checkExternalId(value: string | null | undefined, issues: ValidationIssue[]): string | null {
  if (value === undefined || value === null) return null;
  const externalId = value.trim();
  if (externalId === "") issues.push({ path: "/externalId", message: "must not be blank" });
  else if (externalId.length > MAX_EXTERNAL_ID_LENGTH) issues.push({ path: "/externalId", message: `must be at most ${MAX_EXTERNAL_ID_LENGTH} characters` });
  return externalId === "" ? null : externalId;
}

function checkEmail(value: string | null | undefined, issues: ValidationIssue[]): string | null {
  if (value === undefined || value === null) return null;
  const email = value.trim();
  if (email.length > MAX_EMAIL_LENGTH) issues.push({ path: "/email", message: `must be at most ${MAX_EMAIL_LENGTH} characters` });
  else if (!isEmail(email)) issues.push({ path: "/email", message: "must be an email address" });
  return email === "" ? null : email;
}

function checkName(value: string | null | undefined, issues: ValidationIssue[]): string | null {
  if (value === undefined || value === null) return null;
  const name = value.trim();
  if (name === "") issues.push({ path: "/name", message: "must not be blank" });
  else if (name.length > MAX_NAME_LENGTH) issues.push({ path: "/name", message: `must be at most ${MAX_NAME_LENGTH} characters` });
  return name === "" ? null : name;
}

function throwIfInvalid(issues: ValidationIssue[]): void {
  if (issues.length > 0) throw validationError(issues);
}

export interface ResolveInput {
  companyId: string;
  gameId: string;
  externalId?: string | null | undefined;
  email?: string | null | undefined;
  name?: string | null | undefined;
  tier?: number | null | undefined;
}

/** ResolvePlayer: an external id, or else an email, names the player; both may be given. */
export function parseResolveInput(input: ResolveInput): ResolveValues {
  const issues: ValidationIssue[] = [];
  const companyId = checkUuid(input.companyId, "/companyId", issues);
  const gameId = checkUuid(input.gameId, "/gameId", issues);
  const externalId = checkExternalId(input.externalId, issues);
  const email = checkEmail(input.email, issues);
  const name = checkName(input.name, issues);
  const tier = checkTier(input.tier, issues);
  const identityGiven = (input.externalId ?? null) !== null || (input.email ?? null) !== null;
  if (!identityGiven) issues.push({ path: "", message: "a player needs an externalId or an email" });
  throwIfInvalid(issues);
  const emailNormalized = email === null ? null : normalizeEmail(email);
  const key: PlayerKey =
    externalId !== null ? { kind: "external", externalId } : { kind: "email", email: email!, emailNormalized: emailNormalized! };
  return { companyId, gameId, key, name, email, emailNormalized, tier, tierOnCreate: tierOnCreate(key.kind === "external", tier) };
}

export interface BlockInput {
  companyId: string;
  gameId: string;
  externalId?: string | null | undefined;
  email?: string | null | undefined;
}

/** Block/Unblock: exactly one of external id and email names the player. */
export function parseBlockInput(input: BlockInput): BlockValues {
  const issues: ValidationIssue[] = [];
  const companyId = checkUuid(input.companyId, "/companyId", issues);
  const gameId = checkUuid(input.gameId, "/gameId", issues);
  const givenExternalId = input.externalId ?? null;
  const givenEmail = input.email ?? null;
  if ((givenExternalId === null) === (givenEmail === null)) {
    issues.push({ path: "", message: "give exactly one of externalId and email" });
  }
  const externalId = checkExternalId(givenExternalId, issues);
  const email = checkEmail(givenEmail, issues);
  throwIfInvalid(issues);
  const key: PlayerKey =
    externalId !== null ? { kind: "external", externalId } : { kind: "email", email: email!, emailNormalized: normalizeEmail(email!) };
  return { companyId, gameId, key, tierOnCreate: tierOnCreate(key.kind === "external", null) };
}

/** SetPlayerInfo: only what is given changes; a blank name is refused rather than clearing it. */
export function parsePlayerInfo(input: { name?: string | null | undefined; tier?: number | null | undefined }): PlayerInfo {
  const issues: ValidationIssue[] = [];
  const name = checkName(input.name, issues);
  const tier = checkTier(input.tier, issues);
  throwIfInvalid(issues);
  return { name, tier };
}

/** Data of the players.player.* domain events. Emails travel only in created/updated, where consumers need the address. */
export function playerCreatedData(player: Player) {
  return {
    playerId: player.id,
    gameId: player.gameId,
    externalId: player.externalId,
    name: player.name,
    email: player.email,
    tier: player.tier,
    blocked: player.blocked,
  };
}

export function playerUpdatedData(player: Player) {
  return { playerId: player.id, gameId: player.gameId, externalId: player.externalId, name: player.name, email: player.email, tier: player.tier };
}

export function playerBlockChangeData(player: Player) {
  return { playerId: player.id, gameId: player.gameId, externalId: player.externalId };
}

export const playerEventTypes = {
  created: "players.player.created",
  updated: "players.player.updated",
  blocked: "players.player.blocked",
  unblocked: "players.player.unblocked",
} as const;
