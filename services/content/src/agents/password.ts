// Passwords of the support application's users: the rule a new one must meet, and its hash.
// argon2id (through @node-rs/argon2) with its parameters written out, so that a library update
// cannot weaken them silently; a hash records its own parameters, so older ones still verify.
import { hash, verify, type Algorithm } from "@node-rs/argon2";
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as common from "@zxcvbn-ts/language-common";
import * as english from "@zxcvbn-ts/language-en";
import type { ValidationIssue } from "../common/validation.ts";

/** Long enough for a passphrase of four words; a manager's random password passes easily. */
export const MIN_PASSWORD_LENGTH = 12;
/** Far above any real passphrase, low enough to bound the hashing work of one request. */
export const MAX_PASSWORD_LENGTH = 1024;
/** zxcvbn's score (0–4) a password needs: 3 is "safely unguessable: moderate protection from offline slow-hash scenario". */
export const MIN_PASSWORD_SCORE = 3;

/** OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane (about 17 ms on this hardware). */
// Algorithm is a const enum (not readable under erasable syntax): 2 is Argon2id.
const ARGON2_OPTIONS = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

const strength = new ZxcvbnFactory({
  dictionary: { ...common.dictionary, ...english.dictionary },
  graphs: common.adjacencyGraphs,
  translations: english.translations,
});

/**
 * What is wrong with a new password, for the user it will belong to (their name and email count
 * as guessable words); empty when nothing is.
 */
export function passwordIssues(password: string, user: { name: string; email: string }): ValidationIssue[] {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return [{ path: "/password", message: `must be at least ${MIN_PASSWORD_LENGTH} characters` }];
  if (length > MAX_PASSWORD_LENGTH) return [{ path: "/password", message: `must be at most ${MAX_PASSWORD_LENGTH} characters` }];
  const guessable = [user.name, ...user.name.split(/\s+/), user.email, ...user.email.split(/[@.+_-]/)].filter((word) => word.length > 1);
  const result = strength.check(password, guessable);
  if (result.score < MIN_PASSWORD_SCORE) {
    const hint = result.feedback.warning ?? result.feedback.suggestions[0];
    return [{ path: "/password", message: `is too easy to guess${hint ? `: ${hint}` : ""}` }];
  }
  return [];
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password).catch(() => false);
}

/**
 * A hash of a password nobody has, verified when the email is unknown so that an unknown
 * account takes as long to refuse as a wrong password.
 */
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword("decoy password that is never anyone's");
  return decoyHash;
}
