// Service users of a company: agents, with access to a set of its games, and admins, with the
// whole company. They sign in to the support application (agents/).
import { isEmail, isUuid, requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";
import { isLanguageCode } from "../common/language.ts";
import { checkTagName, type Tag } from "../tags/tag.ts";

export const USER_ROLES = ["admin", "agent"] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface User {
  id: string;
  companyId: string;
  name: string;
  /** The name players see on the user's replies; null: `name`. */
  displayName: string | null;
  email: string;
  role: UserRole;
  /** An inactive user cannot sign in and has no live session. */
  active: boolean;
  gameIds: string[];
  /**
   * Names of the company's skill tags (tags marked isSkill, company-wide or of any game), in the
   * order given: what routing will match a ticket's tags against.
   */
  skills: string[];
  /** Whether routing may assign the user tickets (their own toggle; default away). */
  available: boolean;
  /** Ticket languages the user speaks; empty (the default): every language. */
  languages: string[];
  /** The most open tickets routing assigns to the user (default 10). */
  capacity: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewUserInput {
  name: string;
  email: string;
  role?: string | undefined;
  displayName?: string | undefined;
  gameIds: readonly string[];
  /** Default: none. */
  skills?: readonly string[] | undefined;
  /** Default: none (every language). */
  languages?: readonly string[] | undefined;
  /** Default: DEFAULT_CAPACITY. */
  capacity?: number | undefined;
}

export type NewUser = Pick<User, "name" | "email" | "role" | "displayName" | "gameIds" | "skills"> & Partial<Pick<User, "languages" | "capacity">>;

/** Open tickets routing gives a user who has no capacity of their own (the column's default). */
export const DEFAULT_CAPACITY = 10;
/** The most open tickets a capacity may name: beyond it routing would be no limit at all. */
export const MAX_CAPACITY = 1000;

/** The name players see. */
export const displayNameOf = (user: Pick<User, "name" | "displayName">): string => user.displayName ?? user.name;

/** The longest address mail can be sent to (RFC 5321's 256-octet path less its angle brackets). */
export const MAX_USER_EMAIL_LENGTH = 254;

export function parseNewUser(input: NewUserInput): NewUser {
  const issues: ValidationIssue[] = [];
  const name = requiredText(input.name, "/name", issues);
  const email = typeof input.email === "string" ? input.email.trim() : "";
  if (email.length > MAX_USER_EMAIL_LENGTH || !isEmail(email)) issues.push({ path: "/email", message: "must be an email address" });
  const role = input.role ?? "agent";
  if (!(USER_ROLES as readonly string[]).includes(role)) issues.push({ path: "/role", message: `must be one of ${USER_ROLES.join(", ")}` });
  const displayName = input.displayName === undefined ? null : requiredText(input.displayName, "/displayName", issues, 100);
  const gameIds = parseGameIds(input.gameIds, issues);
  const skills = input.skills === undefined ? [] : parseSkills(input.skills, issues);
  const routing: Partial<Pick<User, "languages" | "capacity">> = {};
  if (input.languages !== undefined) routing.languages = parseLanguages(input.languages, issues);
  if (input.capacity !== undefined) routing.capacity = parseCapacity(input.capacity, issues);
  throwIfInvalid(issues);
  return { name, email, role: role as UserRole, displayName, gameIds, skills, ...routing };
}

function parseGameIds(input: unknown, issues: ValidationIssue[]): string[] {
  const gameIds: string[] = [];
  if (!Array.isArray(input)) issues.push({ path: "/gameIds", message: "must be an array of game ids" });
  else {
    input.forEach((gameId: unknown, index) => {
      if (typeof gameId !== "string" || !isUuid(gameId)) issues.push({ path: `/gameIds/${index}`, message: "must be a UUID" });
      else if (gameIds.includes(gameId.toLowerCase())) issues.push({ path: `/gameIds/${index}`, message: "is listed twice" });
      else gameIds.push(gameId.toLowerCase());
    });
  }
  return gameIds;
}

function parseSkills(input: unknown, issues: ValidationIssue[]): string[] {
  const skills: string[] = [];
  if (!Array.isArray(input)) issues.push({ path: "/skills", message: "must be an array of tag names" });
  else {
    input.forEach((value, index) => {
      const skill = checkTagName(value, `/skills/${index}`, issues);
      if (skill === "") return;
      if (skills.includes(skill)) issues.push({ path: `/skills/${index}`, message: "is listed twice" });
      else skills.push(skill);
    });
  }
  return skills;
}

/** The ticket languages a user speaks: language codes of the API, each once. */
function parseLanguages(input: unknown, issues: ValidationIssue[]): string[] {
  const languages: string[] = [];
  if (!Array.isArray(input)) issues.push({ path: "/languages", message: "must be an array of language codes" });
  else {
    input.forEach((value: unknown, index) => {
      if (typeof value !== "string" || !isLanguageCode(value)) issues.push({ path: `/languages/${index}`, message: "must be a language code" });
      else if (languages.includes(value)) issues.push({ path: `/languages/${index}`, message: "is listed twice" });
      else languages.push(value);
    });
  }
  return languages;
}

function parseCapacity(input: unknown, issues: ValidationIssue[]): number {
  if (typeof input !== "number" || !Number.isInteger(input) || input < 0 || input > MAX_CAPACITY) {
    issues.push({ path: "/capacity", message: `must be an integer from 0 to ${MAX_CAPACITY}` });
    return DEFAULT_CAPACITY;
  }
  return input;
}

/** What an admin changes of a user in the team settings: each part when given. */
export interface UserChangeInput {
  role?: string | undefined;
  gameIds?: readonly string[] | undefined;
  skills?: readonly string[] | undefined;
  languages?: readonly string[] | undefined;
  capacity?: number | undefined;
}

export type UserChange = Partial<Pick<User, "role" | "gameIds" | "skills" | "languages" | "capacity">>;

export function parseUserChange(input: UserChangeInput): UserChange {
  const issues: ValidationIssue[] = [];
  const change: UserChange = {};
  if (input.role !== undefined) {
    if (!(USER_ROLES as readonly string[]).includes(input.role)) issues.push({ path: "/role", message: `must be one of ${USER_ROLES.join(", ")}` });
    else change.role = input.role as UserRole;
  }
  if (input.gameIds !== undefined) change.gameIds = parseGameIds(input.gameIds, issues);
  if (input.skills !== undefined) change.skills = parseSkills(input.skills, issues);
  if (input.languages !== undefined) change.languages = parseLanguages(input.languages, issues);
  if (input.capacity !== undefined) change.capacity = parseCapacity(input.capacity, issues);
  throwIfInvalid(issues);
  return change;
}

/** A user as the audit log records them before and after a change (never a credential). */
export function userAuditView(user: User): Record<string, unknown> {
  return { name: user.name, displayName: user.displayName, email: user.email, role: user.role, active: user.active, gameIds: user.gameIds, skills: user.skills, languages: user.languages, capacity: user.capacity };
}

/**
 * Each skill must name a tag of the company marked isSkill: routing matches skills against the
 * tags tickets carry, so a name no ticket can carry would route nothing. Any live tag of that
 * name counts, company-wide or of a game. `tags` are the company's live tags.
 */
export function skillIssues(skills: readonly string[], tags: readonly Pick<Tag, "name" | "isSkill">[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  skills.forEach((skill, index) => {
    const named = tags.filter((tag) => tag.name === skill);
    if (named.length === 0) issues.push({ path: `/skills/${index}`, message: `must be a skill tag of the company; no tag is named ${JSON.stringify(skill)}` });
    else if (!named.some((tag) => tag.isSkill)) issues.push({ path: `/skills/${index}`, message: `must be a skill tag of the company; the tag ${JSON.stringify(skill)} is not marked isSkill` });
  });
  return issues;
}

export function userEventData(user: User) {
  return {
    id: user.id,
    name: user.name,
    displayName: displayNameOf(user),
    email: user.email,
    role: user.role,
    active: user.active,
    gameIds: user.gameIds,
    skills: user.skills,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}
