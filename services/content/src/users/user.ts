// Service users (support agents) of a company, with access to a set of its games.
import { isUuid, requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";

export interface User {
  id: string;
  companyId: string;
  name: string;
  email: string;
  gameIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface NewUserInput {
  name: string;
  email: string;
  gameIds: readonly string[];
}

export type NewUser = Pick<User, "name" | "email" | "gameIds">;

// Deliberately loose: one @, no spaces, a dot in the domain. Mail delivery is the real check.
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(value: unknown): value is string {
  return typeof value === "string" && value.length <= 254 && emailPattern.test(value);
}

export function parseNewUser(input: NewUserInput): NewUser {
  const issues: ValidationIssue[] = [];
  const name = requiredText(input.name, "/name", issues);
  const email = typeof input.email === "string" ? input.email.trim() : "";
  if (!isEmail(email)) issues.push({ path: "/email", message: "must be an email address" });
  const gameIds: string[] = [];
  if (!Array.isArray(input.gameIds)) issues.push({ path: "/gameIds", message: "must be an array of game ids" });
  else {
    input.gameIds.forEach((gameId, index) => {
      if (!isUuid(gameId)) issues.push({ path: `/gameIds/${index}`, message: "must be a UUID" });
      else if (gameIds.includes(gameId.toLowerCase())) issues.push({ path: `/gameIds/${index}`, message: "is listed twice" });
      else gameIds.push(gameId.toLowerCase());
    });
  }
  throwIfInvalid(issues);
  return { name, email, gameIds };
}

export function userEventData(user: User) {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    gameIds: user.gameIds,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}
