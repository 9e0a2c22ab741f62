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
// The automation the tickets service owns (rules, sla, triage, outbreaks) is applied last, once
// content has made the games its rules and policies name: one call, one transaction in tickets,
// declarative per company like the webhooks (rules matched by name) and left out of the digest
// for the same reason.
// An edited file is applied to the company an earlier file created by naming it (`--company`):
// content then converges that company on the file and reports, object by object, what it
// created, changed and left alone, what it refused (conflicts: then nothing was written) and
// what the company has that the file does not name (kept). Without `--company`, a file whose
// company name is that of a company an earlier file created is refused rather than made into a
// second company. `--dry-run` asks content for the same report and writes nothing anywhere.
import { createHash } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import type { AppError} from "@support/errors";
import { type ValidationIssue } from "@support/errors";
import type { Logger } from "@support/logging";
import { connectToAppError } from "@support/rpc";
import type { TenantFile } from "@support/tenant-file";
import stableStringify from "fast-json-stable-stringify";
import type { AdminClients } from "./clients.ts";

/** One object of the report, as printed: empty members left out. */
export interface ReportItem {
  kind: string;
  name: string;
  path?: string;
  id?: string;
  attributes?: string[];
  message?: string;
}

/** What applying the file did (or, in a dry run, would do) to content's part, object by object. */
export interface TenantReport {
  created: ReportItem[];
  changed: ReportItem[];
  unchanged: ReportItem[];
  /** Changes the file cannot make; when there is any, nothing was written. */
  conflicts: ReportItem[];
  /** What the company has that the file does not name: kept, never deleted. */
  notInFile: ReportItem[];
}

/** What `apply` prints: API key secrets only when this run created the keys. */
export interface TenantOutput {
  companyId: string;
  /** Key name -> secret; null when an earlier run of the same file created the key (its secret was printed then). */
  apiKeys: Record<string, string | null>;
  games: Record<string, { id: string; environments: Record<string, { id: string; token: string }>; collectors: Record<string, string> }>;
  users: Record<string, string>;
  /** Present (true) when the file had been applied before and content created nothing. */
  alreadyApplied?: true;
  /** Present (true) for a dry run: nothing was written, and the ids of what it would create do not exist. */
  dryRun?: true;
  /** What content's part did, object by object (absent when the file had been applied before). */
  report?: TenantReport;
  /**
   * What the webhooks part did, per URL (only when the file has `webhooks`): the signing
   * secret of a subscription this run created, printed this once.
   */
  webhooks?: { url: string; id: string; action: string; enabled: boolean; secret?: string }[];
  /** What the tickets part did to each rule (only when the file has `rules`). */
  rules?: { name: string; id: string; action: string }[];
  /** What the tickets part did to each settings section the file has: "updated" or "unchanged". */
  automation?: Record<string, string>;
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
  constructor(cause: AppError, applied: TenantOutput, rerun: string, issues: ValidationIssue[] | undefined, part: "blockedPlayers" | "webhooks" | "automation" = "blockedPlayers") {
    super(
      part === "blockedPlayers"
        ? `content's part of the tenant file was applied (company ${applied.companyId}), but blocking its blockedPlayers failed: ${cause.message}. ` +
            `Run \`${rerun}\` again to finish: it creates nothing new in content and blocks the players again.`
        : part === "webhooks"
          ? `content's and players' parts of the tenant file were applied (company ${applied.companyId}), but applying its webhooks failed: ${cause.message}. ` +
            `Fix the file and run \`${rerun}\` again: it creates nothing new in content and applies the webhooks again.`
          : `content's, players' and webhooks' parts of the tenant file were applied (company ${applied.companyId}), but applying its rules and automation settings failed (nothing of them was written): ${cause.message}. ` +
            `Fix the file and run \`${rerun}\` again: it creates nothing new in content and applies them again.`,
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

/**
 * The file could not be applied as it is: the report's conflicts say what it would change that
 * cannot change. Nothing was written (content rolled its transaction back; players and webhooks
 * were not called).
 */
export class TenantConflictError extends Error {
  readonly report: TenantReport;
  readonly companyId: string;
  readonly dryRun: boolean;
  constructor(companyId: string, report: TenantReport, dryRun: boolean) {
    super(
      `the file conflicts with company ${companyId} in ${report.conflicts.length} place(s); nothing was changed: ` +
        report.conflicts.map((conflict) => `${conflict.path || conflict.kind + " " + conflict.name}: ${conflict.message}`).join("; "),
    );
    this.name = "TenantConflictError";
    this.companyId = companyId;
    this.report = report;
    this.dryRun = dryRun;
  }
}

interface ReportMessage {
  created: ItemMessage[];
  changed: ItemMessage[];
  unchanged: ItemMessage[];
  conflicts: ItemMessage[];
  notInFile: ItemMessage[];
}
interface ItemMessage {
  kind: string;
  name: string;
  path: string;
  id: string;
  attributes: string[];
  message: string;
}

function reportOf(message: ReportMessage): TenantReport {
  const items = (list: ItemMessage[]) =>
    list.map(({ kind, name, path, id, attributes, message: why }) => ({
      kind,
      name,
      ...(path !== "" ? { path } : {}),
      ...(id !== "" ? { id } : {}),
      ...(attributes.length > 0 ? { attributes: [...attributes] } : {}),
      ...(why !== "" ? { message: why } : {}),
    }));
  return { created: items(message.created), changed: items(message.changed), unchanged: items(message.unchanged), conflicts: items(message.conflicts), notInFile: items(message.notInFile) };
}

/** The report as lines for a person: one per object, unchanged ones counted only. */
export function describeReport(report: TenantReport, dryRun: boolean): string {
  const label = (entry: ReportItem) => `${entry.kind} ${entry.name}${entry.path ? ` (${entry.path})` : ""}`;
  const lines = [
    `${dryRun ? "dry run (nothing written): would create" : "created"} ${report.created.length}, ${dryRun ? "would change" : "changed"} ${report.changed.length}, ` +
      `unchanged ${report.unchanged.length}, conflicts ${report.conflicts.length}, not in the file ${report.notInFile.length}`,
    ...report.created.map((entry) => `  + ${label(entry)}`),
    ...report.changed.map((entry) => `  ~ ${label(entry)}: ${(entry.attributes ?? []).join(", ")}`),
    ...report.conflicts.map((entry) => `  ! ${label(entry)}: ${(entry.attributes ?? []).join(", ")}: ${entry.message ?? ""}`),
    ...report.notInFile.map((entry) => `  ? ${label(entry)}: not in the file, kept`),
  ];
  return `${lines.join("\n")}\n`;
}

export interface ApplyOptions {
  retry: RetryPolicy;
  logger?: Logger;
  rerun: string;
  /** The company to converge on the file (one an earlier file created). */
  companyId?: string | undefined;
  /** Report only: content rolls back, players and webhooks are not called. */
  dryRun?: boolean | undefined;
}

export async function applyTenantFile(clients: AdminClients, file: TenantFile, options: ApplyOptions): Promise<TenantOutput> {
  // Content's part leaves `webhooks` out, digest included: editing only a file's webhooks and
  // applying it again finds the company the file created and updates its subscriptions,
  // instead of creating another company.
  // The tickets service's sections are left out the same way.
  const { webhooks: _webhooks, rules: _rules, sla: _sla, triage: _triage, outbreaks: _outbreaks, ...contentPart } = file;
  // company.email (the sender of the company's mails) is sent but left out of the digest too, so
  // that an edited sender is set on the company the file created rather than making another.
  const { email: _email, ...digestedCompany } = contentPart.company;
  let applied;
  try {
    applied = await clients.content.applyTenant({
      digest: tenantDigest({ ...contentPart, company: digestedCompany }),
      tenant: contentPart as unknown as JsonObject,
      companyId: options.companyId ?? "",
      dryRun: options.dryRun === true,
      // An operator's file never silently makes a second company of a name a file already made.
      uniqueCompanyName: true,
    });
  } catch (error) {
    throw connectToAppError(error);
  }
  const report = applied.report ? reportOf(applied.report) : undefined;
  if (report && report.conflicts.length > 0) throw new TenantConflictError(applied.companyId || (options.companyId ?? ""), report, options.dryRun === true);
  if (options.dryRun) {
    return { companyId: applied.companyId, apiKeys: {}, games: {}, users: {}, ...(applied.alreadyApplied ? { alreadyApplied: true as const } : {}), dryRun: true, ...(report ? { report } : {}) };
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
    // A new company's report would only list the whole file as created: printed for a converge.
    ...(report && options.companyId !== undefined ? { report } : {}),
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
  if (file.rules !== undefined || file.sla !== undefined || file.triage !== undefined || file.outbreaks !== undefined) {
    Object.assign(output, await applyAutomation(clients, file, output, options));
  }
  return output;
}

/**
 * The tickets sections as the tickets service takes them: refs of the file's games turned into
 * ids (a rule's `game` condition, a policy's `games` as `gameIds`) and an assignTicket's
 * assigneeId that is a user ref of the file into that user's id.
 */
export function automationRequest(file: TenantFile, output: Pick<TenantOutput, "games" | "users">): JsonObject {
  const gameId = (ref: string) => output.games[ref]?.id ?? ref;
  const automation: Record<string, unknown> = {};
  if (file.rules !== undefined) {
    automation.rules = file.rules.map((rule) => ({
      ...rule,
      ...(rule.conditions
        ? { conditions: rule.conditions.map((condition) => (condition.type === "game" && Array.isArray(condition.in) ? { ...condition, in: condition.in.map((ref) => gameId(String(ref))) } : condition)) }
        : {}),
      actions: rule.actions.map((action) =>
        action.type === "assignTicket" && typeof action.assigneeId === "string" && output.users[action.assigneeId] !== undefined ? { ...action, assigneeId: output.users[action.assigneeId] } : action,
      ),
    }));
  }
  if (file.sla !== undefined) {
    automation.sla = {
      calendar: file.sla.calendar ?? null,
      policies: file.sla.policies.map(({ games, ...policy }) => ({ ...policy, ...(games ? { gameIds: games.map(gameId) } : {}) })),
    };
  }
  if (file.triage !== undefined) automation.triage = file.triage;
  if (file.outbreaks !== undefined) automation.outbreaks = file.outbreaks;
  return automation as JsonObject;
}

// The service names the request's pointers; the operator wrote the file's.
const automationIssuePath = (path: string) => path.replace(/^\/sla\/policies\/(\d+)\/gameIds/, "/sla/policies/$1/games").replace(/^\//, "");

async function applyAutomation(clients: AdminClients, file: TenantFile, output: TenantOutput, options: { rerun: string }): Promise<Pick<TenantOutput, "rules" | "automation">> {
  try {
    const response = await clients.tickets.applyAutomation({ companyId: output.companyId, automation: automationRequest(file, output) });
    return {
      ...(file.rules !== undefined ? { rules: response.rules.map(({ name, id, action }) => ({ name, id, action })) } : {}),
      ...(response.settings.length > 0 ? { automation: Object.fromEntries(response.settings.map((setting) => [setting.section, setting.action])) } : {}),
    };
  } catch (error) {
    const appError = connectToAppError(error);
    const issues = appError.details?.issues?.map((issue) => ({ path: automationIssuePath(issue.path), message: issue.message }));
    throw new PartialApplyError(appError, output, options.rerun, issues, "automation");
  }
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
