// The operators' admin command, run as `pnpm admin <verb>` from the repository root (or in the
// cluster, see deploy/README.md). It talks to the content and players services only through
// their admin RPCs (ContentAdminService, PlayersAdminService) with the admin token; each service
// writes its own schema in its own transactions, so changes reach NATS through its outbox.
// Contract: logs go to stderr; stdout gets exactly one JSON object (the result, or
// {"error": ...} on failure) or the help text. Exit 0 ok, 1 runtime failure, 2 usage or input.
import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { parseArgs } from "node:util";
import { ConfigError } from "@support/config";
import { isAppError, isUuid, type ValidationIssue } from "@support/errors";
import { createLogger, type Logger } from "@support/logging";
import { parseTenantFile, TenantFileError } from "@support/tenant-file";
import { describeReport, PartialApplyError, TenantConflictError, type TenantOutput } from "./apply.ts";
import { createAdminClients } from "./clients.ts";
import { loadAdminConfig } from "./config.ts";
import { runCommand, type AdminCommand } from "./commands.ts";
import { CONSUMER_NAME, positiveInteger, runDeadLetterCommand, type DeadLetterCommand } from "./dead-letters.ts";

export const USAGE = `Usage: pnpm admin <command> [arguments]

Commands:
  apply [--company <companyId>] [--dry-run] <file>
                                                Create a company from a tenant file (JSON; "-" reads
                                                stdin): content's part in one transaction, then the
                                                blockedPlayers (retried). Prints the company id, the
                                                API key secrets (shown only now), game, environment
                                                and user ids. The same file again creates nothing:
                                                it prints the same ids, null for each secret, and
                                                "alreadyApplied": true. A file with "webhooks"
                                                then makes the company's file-declared webhook
                                                subscriptions match it (by url) and prints
                                                "webhooks": [{url, id, action, enabled, secret?}]
                                                (a new subscription's secret, shown only now). Schema:
                                                libs/tenant-file/src/tenant-file.schema.json
                                                A file whose company name is that of a company an
                                                earlier file created is refused (exit 2): apply an
                                                edited file to that company with --company, which
                                                converges it: what the file names is matched by
                                                identity, created when missing, changed when it
                                                differs; what else the company has is reported,
                                                never deleted. Prints "report": {created, changed,
                                                unchanged, conflicts, notInFile}; a conflict (a
                                                change the file cannot make) writes nothing (exit
                                                2). --dry-run prints the report and writes nothing.
  plan [--company <companyId>] <file>           apply --dry-run.
  api-keys create --company <companyId> --name <name>
                                                Create an API key; prints {apiKeyId, name, secret}.
  api-keys revoke <apiKeyId>                    Revoke an API key; prints {apiKeyId, revoked: true}.
  games delete <gameId>                         Soft-delete a game; prints {gameId, deleted: true}.
  players block --game <gameId> (--player-id <id> | --email <email>)
                                                Block a player of the game (one not seen yet is
                                                created blocked); prints the player: {playerId,
                                                companyId, gameId, externalId, email, name, tier,
                                                blocked, created}.
  players unblock --game <gameId> (--player-id <id> | --email <email>)
                                                Lift a block; prints the player as above. An
                                                unknown player is an error (exit 1).
  players schedules [--company <companyId>]     List the pending scheduled deletions, soonest
                                                due first: {schedules: [{scheduleId, servicePlayerId,
                                                companyId, gameId, requestedBy, scheduledAt, dueAt}]}.
  players cancel-deletion <servicePlayerId>     Cancel the player's scheduled deletion; prints the
                                                schedule with "cancelled": true. A player without a
                                                pending schedule is an error (exit 1).
  users set-password --email <email>            Set the password of the active user with this
                                                email (read from stdin: its first line, or all of
                                                it when piped without a newline), after the
                                                password rule (docs/agents.md); the user's
                                                sessions end. Prints {userId, companyId,
                                                passwordSet: true}.
  users invite --company <companyId> --email <email> --name <name> [--role agent|admin]
               [--display-name <name>] [--games <gameId,gameId...>]
                                                Create a user of the company (or take the one with
                                                this email and no password yet) and an invitation
                                                link (72 h, single use), mailed when the content
                                                service has SMTP_URL; prints {userId, link,
                                                expiresAt, mailed}. A user with a password: exit 1.
  users reset-password --email <email>          A password-reset link (1 h, single use) for the
                                                active user with this email, mailed as above;
                                                prints {userId, link, expiresAt, mailed}.
  users deactivate --company <companyId> --email <email>
                                                The user can no longer sign in; their sessions
                                                end. Prints {userId, deactivated: true,
                                                endedSessions}.
  users reset-2fa --email <email>               Turn two-factor off for the active user with this
                                                email (a lost phone): deletes the secret and the
                                                recovery codes, ends the user's sessions. Prints
                                                {userId, companyId, twoFactorReset: true,
                                                hadTwoFactor, sessionsEnded}.
  dead-letters list [--consumer <name>] [--limit <n>] [--after <seq>]
                                                The messages consumers set aside (unreadable, an
                                                unknown envelope version, failing past their bound,
                                                rejected), oldest first, at most n (default 100)
                                                after sequence seq: {deadLetters: [{seq, consumer,
                                                reason, detail, subject, stream, streamSequence,
                                                deliveries, deadLetteredAt, messageId, body or
                                                bodyBase64, headers}], total}. Talks to NATS.
  dead-letters replay <seq> [--keep]            Publish the dead letter's body to its original
                                                subject again (every consumer of it receives it
                                                anew), then delete it unless --keep; prints
                                                {deadLetter, replayed: {stream, seq}, deleted}.
  dead-letters delete <seq>                     Delete a dead letter; prints {seq, deleted: true}.
  help, --help, -h                              Show this text (on stdout, exit 0).

Without a command the text goes to stderr and the exit code is 2.

Environment:
  CONTENT_URL       content service (default http://127.0.0.1:50051)
  PLAYERS_URL       players service (default http://127.0.0.1:50054)
  WEBHOOKS_URL      webhooks service (default http://127.0.0.1:50055; apply of a file with "webhooks")
  TICKETS_URL       tickets service (default http://127.0.0.1:50052; apply of a file with "rules", "sla", "triage" or "outbreaks")
  ADMIN_TOKEN       the services' admin token; unset, it is read from ADMIN_TOKEN_FILE
                    (default .data/admin-token, written by \`make up\`)
  SERVICE_IDENTITY_KEY  the tool's service identity key (\`admin\`); unset, it is read from
                    SERVICE_IDENTITY_KEY_FILE (default .data/service-identity/admin.key,
                    written by \`make up\`)
  RPC_TIMEOUT_MS    deadline of each call (default 30000)
  PLAYERS_ATTEMPTS  attempts at apply's blockedPlayers (default 5), RETRY_DELAY_MS apart
                    (default 500, doubled each time)
  LOG_LEVEL         fatal|error|warn|info|debug|trace|silent (default info); logs go to stderr
  NATS_URL          NATS servers, comma-separated (default nats://127.0.0.1:4222; dead-letters)
  NATS_PREFIX       the deployment's prefix of subjects and streams (default empty; dead-letters)

Output: one JSON object on stdout, {"error": {"code", "message", "issues"?}} on failure. When
apply's blockedPlayers or webhooks fail after content applied its part, the error also carries
"companyId", "applied" (the ids and secrets content created) and "rerun" (the command that
finishes the job). An apply refused for conflicts carries "companyId" and "report". apply and
plan also write the report for a person on stderr (+ created, ~ changed, ! conflict, ? not in
the file).
Exit codes: 0 done, 1 runtime failure (service unreachable, unknown id, wrong token), 2 usage
error or invalid input (nothing was changed).
`;

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  /** Where a relative tenant file name is resolved. */
  cwd: string;
}

class UsageError extends Error {}

/** Input that cannot be used (unreadable file, not JSON): exit 2 like a usage error, without the usage text. */
class InputError extends Error {}

type ParsedCommand =
  | { verb: "help" }
  | { verb: "apply"; source: string; companyId?: string; dryRun?: boolean }
  | { verb: "users set-password"; email: string }
  | Exclude<AdminCommand, { verb: "apply" } | { verb: "users set-password" }>
  | DeadLetterCommand;

export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: "boolean", short: "h" },
        company: { type: "string" },
        name: { type: "string" },
        game: { type: "string" },
        "player-id": { type: "string" },
        email: { type: "string" },
        consumer: { type: "string" },
        limit: { type: "string" },
        after: { type: "string" },
        keep: { type: "boolean" },
        role: { type: "string" },
        "display-name": { type: "string" },
        games: { type: "string" },
        "dry-run": { type: "boolean" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [verb, sub, ...rest] = positionals;
  if (values.help || verb === "help") return { verb: "help" };
  if (verb === undefined) throw new UsageError("no command given");
  if (verb === "dead-letters") return parseDeadLetters(sub, rest, values);
  const deadLetterOptions = (["consumer", "limit", "after", "keep"] as const).filter((option) => values[option] !== undefined);
  if (deadLetterOptions.length > 0) throw new UsageError(`${[verb, sub].filter(Boolean).join(" ")} takes no ${deadLetterOptions.map((option) => `--${option}`).join(" or ")}`);

  const refuseOptions = (command: string, names: readonly (keyof typeof values)[]) => {
    const given = names.filter((option) => values[option] !== undefined);
    if (given.length > 0) throw new UsageError(`${command} takes no ${given.map((option) => `--${option}`).join(" or ")}`);
  };
  const playerOptions = ["game", "player-id", "email"] as const;
  const noOptions = (command: string) => refuseOptions(command, ["company", "name", ...playerOptions]);
  const uuidArgument = (value: string | undefined, what: string, command: string): string => {
    if (value === undefined || rest.length > 0) throw new UsageError(`${command} takes exactly one ${what}`);
    if (!isUuid(value)) throw new UsageError(`${what} must be a UUID: ${value}`);
    return value.toLowerCase();
  };

  if (verb === "apply" || verb === "plan") {
    refuseOptions(verb, ["name", ...playerOptions]);
    if (sub === undefined || rest.length > 0) throw new UsageError(`${verb} takes exactly one file (or - for stdin)`);
    if (values.company !== undefined && !isUuid(values.company)) throw new UsageError(`--company must be a UUID: ${values.company}`);
    return {
      verb: "apply",
      source: sub,
      ...(values.company !== undefined ? { companyId: values.company.toLowerCase() } : {}),
      ...(verb === "plan" || values["dry-run"] === true ? { dryRun: true } : {}),
    };
  }
  if (values["dry-run"] !== undefined) throw new UsageError(`${[verb, sub].filter(Boolean).join(" ")} takes no --dry-run`);
  if (verb === "api-keys" && sub === "create") {
    refuseOptions("api-keys create", playerOptions);
    if (rest.length > 0) throw new UsageError("api-keys create takes no positional arguments");
    if (values.company === undefined || values.name === undefined) throw new UsageError("api-keys create needs --company and --name");
    if (!isUuid(values.company)) throw new UsageError(`--company must be a UUID: ${values.company}`);
    if (values.name.trim() === "") throw new UsageError("--name must not be blank");
    return { verb: "api-keys create", companyId: values.company.toLowerCase(), name: values.name };
  }
  if (verb === "api-keys" && sub === "revoke") {
    noOptions("api-keys revoke");
    return { verb: "api-keys revoke", apiKeyId: uuidArgument(rest.shift(), "apiKeyId", "api-keys revoke") };
  }
  if (verb === "games" && sub === "delete") {
    noOptions("games delete");
    return { verb: "games delete", gameId: uuidArgument(rest.shift(), "gameId", "games delete") };
  }
  if (verb === "players" && sub === "schedules") {
    refuseOptions("players schedules", ["name", ...playerOptions]);
    if (rest.length > 0) throw new UsageError("players schedules takes no positional arguments");
    if (values.company !== undefined && !isUuid(values.company)) throw new UsageError(`--company must be a UUID: ${values.company}`);
    return { verb: "players schedules", ...(values.company !== undefined ? { companyId: values.company.toLowerCase() } : {}) };
  }
  if (verb === "players" && sub === "cancel-deletion") {
    noOptions("players cancel-deletion");
    return { verb: "players cancel-deletion", servicePlayerId: uuidArgument(rest.shift(), "servicePlayerId", "players cancel-deletion") };
  }
  if (verb === "players" && (sub === "block" || sub === "unblock")) {
    const command = `players ${sub}` as const;
    refuseOptions(command, ["company", "name"]);
    if (rest.length > 0) throw new UsageError(`${command} takes no positional arguments`);
    if (values.game === undefined) throw new UsageError(`${command} needs --game`);
    if (!isUuid(values.game)) throw new UsageError(`--game must be a UUID: ${values.game}`);
    const playerId = values["player-id"];
    const email = values.email;
    if ((playerId === undefined) === (email === undefined)) throw new UsageError(`${command} needs exactly one of --player-id and --email`);
    if (playerId !== undefined && playerId.trim() === "") throw new UsageError("--player-id must not be blank");
    if (email !== undefined && email.trim() === "") throw new UsageError("--email must not be blank");
    return { verb: command, gameId: values.game.toLowerCase(), ...(playerId !== undefined ? { playerId } : { email: email! }) };
  }
  if (verb !== "users" || sub !== "invite") {
    const userOptions = (["role", "display-name", "games"] as const).filter((option) => values[option] !== undefined);
    if (userOptions.length > 0) throw new UsageError(`${[verb, sub].filter(Boolean).join(" ")} takes no ${userOptions.map((option) => `--${option}`).join(" or ")}`);
  }
  const companyOption = (command: string): string => {
    if (values.company === undefined) throw new UsageError(`${command} needs --company`);
    if (!isUuid(values.company)) throw new UsageError(`--company must be a UUID: ${values.company}`);
    return values.company.toLowerCase();
  };
  const emailOption = (command: string): string => {
    if (values.email === undefined || values.email.trim() === "") throw new UsageError(`${command} needs --email`);
    return values.email.trim();
  };
  if (verb === "users" && sub === "invite") {
    refuseOptions("users invite", ["game", "player-id"]);
    if (rest.length > 0) throw new UsageError("users invite takes no positional arguments");
    const companyId = companyOption("users invite");
    const email = emailOption("users invite");
    if (values.name === undefined || values.name.trim() === "") throw new UsageError("users invite needs --name");
    const gameIds = (values.games ?? "").split(",").map((id) => id.trim()).filter((id) => id !== "");
    for (const id of gameIds) if (!isUuid(id)) throw new UsageError(`--games must be UUIDs separated by commas: ${id}`);
    return {
      verb: "users invite", companyId, email, name: values.name.trim(), gameIds: gameIds.map((id) => id.toLowerCase()),
      ...(values.role !== undefined ? { role: values.role } : {}),
      ...(values["display-name"] !== undefined ? { displayName: values["display-name"] } : {}),
    };
  }
  if (verb === "users" && sub === "reset-password") {
    refuseOptions("users reset-password", ["company", "name", "game", "player-id"]);
    if (rest.length > 0) throw new UsageError("users reset-password takes no positional arguments");
    return { verb: "users reset-password", email: emailOption("users reset-password") };
  }
  if (verb === "users" && sub === "deactivate") {
    refuseOptions("users deactivate", ["name", "game", "player-id"]);
    if (rest.length > 0) throw new UsageError("users deactivate takes no positional arguments");
    return { verb: "users deactivate", companyId: companyOption("users deactivate"), email: emailOption("users deactivate") };
  }
  if (verb === "users" && sub === "set-password") {
    refuseOptions("users set-password", ["company", "name", "game", "player-id"]);
    if (rest.length > 0) throw new UsageError("users set-password takes no positional arguments (the password comes on stdin)");
    if (values.email === undefined || values.email.trim() === "") throw new UsageError("users set-password needs --email");
    return { verb: "users set-password", email: values.email.trim() };
  }
  if (verb === "users" && sub === "reset-2fa") {
    refuseOptions("users reset-2fa", ["company", "name", "game", "player-id"]);
    if (rest.length > 0) throw new UsageError("users reset-2fa takes no positional arguments");
    if (values.email === undefined || values.email.trim() === "") throw new UsageError("users reset-2fa needs --email");
    return { verb: "users reset-2fa", email: values.email.trim() };
  }
  throw new UsageError(`unknown command: ${[verb, sub].filter(Boolean).join(" ")}`);
}

/** The password on stdin: its first line (a trailing newline or CR is not part of it). */
async function readPassword(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
  const password = Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? "";
  if (password === "") throw new InputError("no password on stdin");
  return password;
}

function parseDeadLetters(sub: string | undefined, rest: string[], values: Record<string, string | boolean | undefined>): DeadLetterCommand {
  const command = `dead-letters ${sub ?? ""}`.trim();
  const allowed: Record<string, readonly string[]> = { list: ["consumer", "limit", "after"], replay: ["keep"], delete: [] };
  if (sub === undefined || !(sub in allowed)) throw new UsageError(`unknown command: ${command}`);
  const refused = Object.keys(values).filter((option) => values[option] !== undefined && !allowed[sub]!.includes(option));
  if (refused.length > 0) throw new UsageError(`${command} takes no ${refused.map((option) => `--${option}`).join(" or ")}`);
  const integer = (value: string | boolean | undefined, what: string): number => {
    const number = typeof value === "string" ? positiveInteger(value) : undefined;
    if (number === undefined) throw new UsageError(`${what} must be a positive integer: ${String(value)}`);
    return number;
  };
  if (sub === "list") {
    if (rest.length > 0) throw new UsageError("dead-letters list takes no positional arguments");
    const consumer = values.consumer as string | undefined;
    if (consumer !== undefined && !CONSUMER_NAME.test(consumer)) throw new UsageError(`--consumer must be a consumer's name (letters, digits, - and _): ${consumer}`);
    return {
      verb: "dead-letters list",
      ...(consumer !== undefined ? { consumer } : {}),
      limit: values.limit !== undefined ? Math.min(integer(values.limit, "--limit"), 10_000) : 100,
      ...(values.after !== undefined ? { after: integer(values.after, "--after") } : {}),
    };
  }
  if (rest.length !== 1) throw new UsageError(`${command} takes exactly one sequence number`);
  const seq = integer(rest[0], "the sequence number");
  return sub === "replay" ? { verb: "dead-letters replay", seq, keep: values.keep === true } : { verb: "dead-letters delete", seq };
}

async function readTenantFile(source: string, io: CliIo): Promise<unknown> {
  let text: string;
  try {
    if (source === "-") {
      const chunks: Buffer[] = [];
      for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
      text = Buffer.concat(chunks).toString("utf8");
    } else {
      text = await readFile(isAbsolute(source) ? source : resolve(io.cwd, source), "utf8");
    }
  } catch (error) {
    throw new InputError(`cannot read ${source}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`${source === "-" ? "stdin" : source} is not valid JSON: ${(error as Error).message}`);
  }
}

/** The parsed tenant file; its problems are reported with the file's name and each bad value's path. */
async function readAndCheck(source: string, io: CliIo) {
  const value = await readTenantFile(source, io);
  try {
    return parseTenantFile(value);
  } catch (error) {
    if (error instanceof TenantFileError) throw new TenantFileError(error.issues, `${source === "-" ? "stdin" : source}: the tenant file is invalid`);
    throw error;
  }
}

function writeJson(stream: Writable, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints a failure (human lines on stderr, one JSON object on stdout) and returns the exit code. */
function fail(error: unknown, io: CliIo, logger: Logger | undefined): number {
  let code = "internal";
  const message = error instanceof Error ? error.message : String(error);
  let issues: ValidationIssue[] | undefined;
  let exitCode = 1;
  let extra: Record<string, unknown> = {};
  if (error instanceof TenantConflictError) {
    code = "failed_precondition";
    exitCode = 2;
    extra = { companyId: error.companyId, report: error.report };
    io.stderr.write(describeReport(error.report, error.dryRun));
  } else if (error instanceof PartialApplyError) {
    code = error.cause.code;
    issues = error.issues;
    extra = { companyId: error.applied.companyId, applied: error.applied, rerun: error.rerun };
  } else if (error instanceof UsageError) {
    code = "usage";
    exitCode = 2;
  } else if (error instanceof InputError || error instanceof ConfigError) {
    code = "invalid_argument";
    exitCode = 2;
  } else if (error instanceof TenantFileError) {
    code = "invalid_argument";
    issues = error.issues;
    exitCode = 2;
  } else if (isAppError(error)) {
    code = error.code;
    issues = error.details?.issues?.map((issue) => ({ path: issue.path.replace(/^\//, ""), message: issue.message }));
    exitCode = error.code === "invalid_argument" || error.code === "failed_precondition" ? 2 : 1;
  } else {
    logger?.error({ err: error }, "admin command failed");
  }
  const lines = [`error: ${message}`, ...(issues ?? []).map((issue) => `  ${issue.path || "(file)"}: ${issue.message}`)];
  if (error instanceof UsageError) lines.push("Run `pnpm admin help` for usage.");
  io.stderr.write(`${lines.join("\n")}\n`);
  writeJson(io.stdout, { error: { code, message, ...(issues ? { issues } : {}), ...extra } });
  return exitCode;
}

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ParsedCommand;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError && argv.length === 0) {
      io.stderr.write(USAGE);
      return 2;
    }
    return fail(error, io, undefined);
  }
  if (parsed.verb === "help") {
    io.stdout.write(USAGE);
    return 0;
  }

  let logger: Logger | undefined;
  if (parsed.verb.startsWith("dead-letters ")) {
    try {
      logger = createLogger({ service: "admin", level: io.env.LOG_LEVEL || "info", destination: io.stderr });
      const result = await runDeadLetterCommand(parsed as DeadLetterCommand, io.env);
      logger.info({ verb: parsed.verb }, "admin command done");
      writeJson(io.stdout, result);
      return 0;
    } catch (error) {
      return fail(error, io, logger);
    }
  }
  try {
    // Check the file before anything else: a bad file needs no token and no service.
    const command: AdminCommand =
      parsed.verb === "apply"
        ? { ...parsed, file: await readAndCheck(parsed.source, io) }
        : parsed.verb === "users set-password"
          ? { verb: "users set-password", email: parsed.email, password: await readPassword(io) }
          : (parsed as AdminCommand);
    // `pnpm admin` runs in the repository root, where .data/admin-token is.
    const config = loadAdminConfig(io.env, process.cwd());
    logger = createLogger({ service: "admin", level: config.logLevel, destination: io.stderr });
    const clients = createAdminClients(config);
    const result = await runCommand(command, { clients, retry: { attempts: config.playersAttempts, delayMs: config.retryDelayMs }, logger }).finally(() => clients.close());
    if (command.verb === "apply") {
      const output = result as TenantOutput;
      if (output.report) io.stderr.write(describeReport(output.report, output.dryRun === true));
    }
    if ("alreadyApplied" in result) {
      logger.warn(
        "this tenant file (but for its webhooks) was applied before: nothing was created in content, and the API key secrets were printed by the first run only",
      );
    }
    logger.info({ verb: command.verb }, "admin command done");
    writeJson(io.stdout, result);
    return 0;
  } catch (error) {
    return fail(error, io, logger);
  }
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    // `pnpm admin` runs in the repository root; INIT_CWD is where the operator typed it.
    cwd: process.env.INIT_CWD ?? process.cwd(),
  });
}
