// Service users (support agents) of a company, with access to a set of its games.
import { isEmail, isUuid, requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";

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

/** The longest address mail can be sent to (RFC 5321's 256-octet path less its angle brackets). */
export const MAX_USER_EMAIL_LENGTH = 254;

export function parseNewUser(input: NewUserInput): NewUser {
  const issues: ValidationIssue[] = [];
  const name = requiredText(input.name, "/name", issues);
  const email = typeof input.email === "string" ? input.email.trim() : "";
  if (email.length > MAX_USER_EMAIL_LENGTH || !isEmail(email)) issues.push({ path: "/email", message: "must be an email address" });
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
