// `pnpm admin apply`: a tenant file, applied in three parts that each service owns. Content's
// part (company, API keys, games, environments, announcements, resources, collectors, users,
// tags, fields) is one transaction in the content service; the players' part (blockedPlayers) is one
// transaction in the players service, idempotent and retried with backoff; the webhooks part
// (webhooks, only when the file has the key) is one transaction in the webhooks service that
// makes the company's file-declared subscriptions match the list, also idempotent. The file's digest
// (SHA-256 of its canonical JSON) makes the whole command safe to run again: content creates
// nothing for a digest it has applied and returns the ids it recorded, and blocking a blocked
// player changes nothing. So a failure after content committed is finished by running the
// same command again. The digest leaves `webhooks` out: their list is declarative per company
// (created, updated or deleted by URL on every run), so a file whose webhooks changed applies
// them to the company it created before. It leaves `company.email` out for the same reason:
// content sets the sender on the company the digest names.
import { createHash } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import type { AppError} from "@support/errors";
import { type ValidationIssue } from "@support/errors";
import type { Logger } from "@support/logging";
import { connectToAppError } from "@support/rpc";
import type { TenantFile } from "@support/tenant-file";
import stableStringify from "fast-json-stable-stringify";
import type { AdminClients } from "./clients.ts";

/** What `apply` prints: API key secrets only when this run created the keys. */
export interface TenantOutput {
  companyId: string;
  /** Key name -> secret; null when an earlier run of the same file created the key (its secret was printed then). */
  apiKeys: Record<string, string | null>;
  games: Record<string, { id: string; environments: Record<string, { id: string; token: string }>; collectors: Record<string, string> }>;
  users: Record<string, string>;
  /** Present (true) when the file had been applied before and content created nothing. */
  alreadyApplied?: true;
  /**
   * What the webhooks part did, per URL (only when the file has `webhooks`): the signing
   * secret of a subscription this run created, printed this once.
   */
  webhooks?: { url: string; id: string; action: string; enabled: boolean; secret?: string }[];
}

export interface RetryPolicy {
  attempts: number;
  /** First delay; doubled after each failed attempt. */
  delayMs: number;
}

/**
 * The players' part failed after content committed its part. The message says what was
 * applied and how to finish; `applied` is the output of content's part (with any new secrets).
 */
export class PartialApplyError extends Error {
  override readonly cause: AppError;
  readonly applied: TenantOutput;
  readonly rerun: string;
  readonly issues: ValidationIssue[] | undefined;
  constructor(cause: AppError, applied: TenantOutput, rerun: string, issues: ValidationIssue[] | undefined, part: "blockedPlayers" | "webhooks" = "blockedPlayers") {
    super(
      part === "blockedPlayers"
        ? `content's part of the tenant file was applied (company ${applied.companyId}), but blocking its blockedPlayers failed: ${cause.message}. ` +
            `Run \`${rerun}\` again to finish: it creates nothing new in content and blocks the players again.`
        : `content's and players' parts of the tenant file were applied (company ${applied.companyId}), but applying its webhooks failed: ${cause.message}. ` +
            `Fix the file and run \`${rerun}\` again: it creates nothing new in content and applies the webhooks again.`,
    );
    this.name = "PartialApplyError";
    this.cause = cause;
    this.applied = applied;
    this.rerun = rerun;
    this.issues = issues;
  }
}

/** Hex SHA-256 of the file's canonical JSON (keys sorted at every level, no whitespace). */
export function tenantDigest(file: unknown): string {
  return createHash("sha256").update(stableStringify(file), "utf8").digest("hex");
}

// Failures that another attempt may not see: the service was down, slow, or restarting.
const transient = new Set(["unavailable", "deadline_exceeded", "internal", "unknown", "aborted", "resource_exhausted"]);

/** Runs `call` until it succeeds, a permanent error, or the last attempt. */
export async function withRetries<T>(policy: RetryPolicy, logger: Logger | undefined, what: string, call: () => Promise<T>): Promise<T> {
  let delay = policy.delayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const appError = connectToAppError(error);
      if (attempt >= policy.attempts || !transient.has(appError.code)) throw appError;
      logger?.warn({ attempt, code: appError.code, err: appError.message, retryInMs: delay }, `${what} failed; retrying`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
    }
  }
}

export async function applyTenantFile(
  clients: AdminClients,
  file: TenantFile,
  options: { retry: RetryPolicy; logger?: Logger; rerun: string },
): Promise<TenantOutput> {
  // Content's part leaves `webhooks` out, digest included: editing only a file's webhooks and
  // applying it again finds the company the file created and updates its subscriptions,
  // instead of creating another company.
  const { webhooks: _webhooks, ...contentPart } = file;
  // company.email (the sender of the company's mails) is sent but left out of the digest too, so
  // that an edited sender is set on the company the file created rather than making another.
  const { email: _email, ...digestedCompany } = contentPart.company;
  let applied;
  try {
    applied = await clients.content.applyTenant({ digest: tenantDigest({ ...contentPart, company: digestedCompany }), tenant: contentPart as unknown as JsonObject });
  } catch (error) {
    throw connectToAppError(error);
  }
  const output: TenantOutput = {
    companyId: applied.companyId,
    apiKeys: Object.fromEntries(applied.apiKeys.map((key) => [key.name, key.secret ?? null])),
    games: Object.fromEntries(
      applied.games.map((game) => [
        game.ref,
        {
          id: game.gameId,
          environments: Object.fromEntries(game.environments.map((e) => [e.ref, { id: e.environmentId, token: e.token }])),
          collectors: Object.fromEntries(game.collectors.map((c) => [c.ref, c.collectorId])),
        },
      ]),
    ),
    users: Object.fromEntries(applied.users.map((user) => [user.ref, user.userId])),
    ...(applied.alreadyApplied ? { alreadyApplied: true as const } : {}),
  };

  const blocked = file.blockedPlayers ?? [];
  if (blocked.length > 0) {
    // parseTenantFile has checked that every entry names a game of the file.
    const targets = blocked.map((entry) => ({ gameId: output.games[entry.game]!.id, externalId: entry.playerId, email: entry.email }));
    try {
      await withRetries(options.retry, options.logger, "blocking the file's players", () =>
        clients.players.blockPlayers({ companyId: output.companyId, targets }),
      );
    } catch (error) {
      const appError = connectToAppError(error);
      const issues = appError.details?.issues?.map((issue) => ({ path: issue.path.replace(/^\/targets\//, "blockedPlayers/"), message: issue.message }));
      throw new PartialApplyError(appError, output, options.rerun, issues);
    }
  }
  if (file.webhooks !== undefined) output.webhooks = await applyWebhooks(clients, file, output, options);
  return output;
}

// The service names the request's pointers; the operator wrote the file's.
const webhookIssuePath = (path: string) =>
  path.replace(/^\/webhooks\/(\d+)\/eventTypes/, "webhooks/$1/events").replace(/^\/webhooks\/(\d+)\/gameIds/, "webhooks/$1/games").replace(/^\//, "");

async function applyWebhooks(clients: AdminClients, file: TenantFile, output: TenantOutput, options: { rerun: string }) {
  // parseTenantFile has checked that every game ref names a game of the file.
  const webhooks = (file.webhooks ?? []).map((webhook) => ({
    url: webhook.url,
    description: webhook.description ?? "",
    eventTypes: webhook.events,
    gameIds: (webhook.games ?? []).map((ref) => output.games[ref]!.id),
    enabled: webhook.enabled ?? true,
  }));
  // One attempt: a call lost after the service committed would be answered "unchanged" by a
  // retry, and the secrets of the subscriptions it created would never be printed.
  try {
    const response = await clients.webhooks.applyWebhooks({ companyId: output.companyId, webhooks });
    return response.webhooks.map((applied) => ({
      url: applied.webhook!.url,
      id: applied.webhook!.id,
      action: applied.action,
      enabled: applied.webhook!.enabled,
      ...(applied.secret !== undefined ? { secret: applied.secret } : {}),
    }));
  } catch (error) {
    const appError = connectToAppError(error);
    const issues = appError.details?.issues?.map((issue) => ({ path: webhookIssuePath(issue.path), message: issue.message }));
    throw new PartialApplyError(appError, output, options.rerun, issues, "webhooks");
  }
}
