// A load of POST /tickets and POST /tickets/{id}/actions through the gateway from a few
// concurrent clients, recording every answer. An answer is acceptable when it is a 2xx, or a
// 503/504 whose body is exactly the JSON error contract `{code, message}` without internal text.
// A connection closed without an answer is recorded apart: only the killed process's in-flight
// requests may end that way, and a scenario decides whether it allows any.
import { randomBytes } from "node:crypto";
import { progress } from "./stack.ts";

export interface CreatedTicket {
  ticketId: string;
  runningId: number;
  companyId: string;
}

export interface Answer {
  request: string;
  at: number;
  status: number;
  body: string;
}

export interface Violation {
  request: string;
  status: number | "closed" | "timeout";
  detail: string;
}

export interface LoadResult {
  created: CreatedTicket[];
  attempts: { create: number; action: number };
  statuses: Record<string, number>;
  /** Requests whose connection was closed (or refused) without an answer. */
  closed: { request: string; at: number; error: string }[];
  /** Answers outside the contract (a status other than 2xx/503/504, a body that leaks internals). */
  violations: Violation[];
  /** Milliseconds each answer took, by status. */
  timesByStatus: Record<string, number[]>;
}

export interface LoadTarget {
  gateway: string;
  key: string;
  companyId: string;
  gameId: string;
}

/** Text that must never reach a client: connection errors, the database, addresses, stack frames. */
export const INTERNAL_TEXT = /ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|socket|\bpg\b|postgres|sql|nats|jetstream|127\.0\.0\.1|localhost|::1|\bat \S+ \(|\.ts:\d+|node:internal|Error:/i;

/** Why an error answer breaks the contract, or undefined when it keeps it. */
export function errorBodyProblem(status: number, body: string): string | undefined {
  if (status !== 503 && status !== 504) return `status ${status}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return "body is not JSON";
  }
  if (typeof parsed !== "object" || parsed === null) return "body is not an object";
  const { code, message, ...rest } = parsed as Record<string, unknown>;
  if (typeof code !== "string" || !/^[a-z]+(_[a-z]+)*$/.test(code)) return "code is not snake_case";
  if (typeof message !== "string" || message.length === 0) return "no message";
  const unexpected = Object.keys(rest).filter((k) => k !== "details");
  if (unexpected.length > 0) return `unexpected fields ${unexpected.join(", ")}`;
  if (INTERNAL_TEXT.test(body)) return "leaks internal text";
  if (status === 503 && code !== "unavailable") return `503 with code ${code}`;
  if (status === 504 && code !== "deadline_exceeded") return `504 with code ${code}`;
  return undefined;
}

export interface LoadOptions {
  /** Concurrent clients. */
  clients: number;
  /** Keep going until this many creations have been attempted... */
  minCreates: number;
  /** ...and until this resolves (the fault sequence is over). */
  until?: Promise<unknown>;
  /** An actions request after every `actionEvery`-th creation of a client (0: none). */
  actionEvery?: number;
  /** Pause of each client between two requests. */
  pauseMs?: number;
  /** Per-request timeout; a request still unanswered then is a violation (a hang). */
  requestTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the load until both conditions of `options` hold; never throws. */
export async function runLoad(target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  const result: LoadResult = { created: [], attempts: { create: 0, action: 0 }, statuses: {}, closed: [], violations: [], timesByStatus: {} };
  const run = randomBytes(3).toString("hex");
  let faultsOver = options.until === undefined;
  void options.until?.finally(() => (faultsOver = true));
  const done = () => faultsOver && result.attempts.create >= options.minCreates;
  const timeoutMs = options.requestTimeoutMs ?? 20_000;

  const send = async (request: string, path: string, json: unknown): Promise<{ status: number; body: string } | undefined> => {
    let response: Response;
    const sent = performance.now();
    try {
      response = await fetch(target.gateway + path, {
        method: "POST",
        headers: { authorization: `Bearer ${target.key}`, "content-type": "application/json" },
        body: JSON.stringify(json),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      if ((error as Error).name === "TimeoutError") {
        result.violations.push({ request, status: "timeout", detail: `no answer within ${timeoutMs} ms` });
      } else {
        result.closed.push({ request, at: Date.now(), error: cause?.code ?? cause?.message ?? String(error) });
      }
      return undefined;
    }
    let body: string;
    try {
      body = await response.text();
    } catch (error) {
      result.violations.push({ request, status: response.status, detail: `answer cut: ${String(error)}` });
      return undefined;
    }
    result.statuses[response.status] = (result.statuses[response.status] ?? 0) + 1;
    (result.timesByStatus[response.status] ??= []).push(performance.now() - sent);
    if (response.status < 200 || response.status > 299) {
      const problem = errorBodyProblem(response.status, body);
      if (problem) result.violations.push({ request, status: response.status, detail: `${problem}: ${body.slice(0, 300)}` });
      else if (response.status === 503 && !response.headers.get("retry-after")) {
        result.violations.push({ request, status: 503, detail: "503 without Retry-After" });
      }
    }
    return { status: response.status, body };
  };

  const client = async (index: number) => {
    let mine = 0;
    while (!done()) {
      const n = ++result.attempts.create;
      mine++;
      const request = `POST /tickets #${n}`;
      const answer = await send(request, "/tickets", {
        gameId: target.gameId,
        // A new player each time: a similar open ticket of the same player would be refused.
        message: `Fault run ${run} client ${index} message ${n}: my purchase ${n * 7919} did not arrive`,
        language: "en",
        channels: ["email"],
        metadata: { player: { id: `fault-${run}-${n}`, email: `fault-${run}-${n}@example.com` } },
      });
      if (answer && answer.status >= 200 && answer.status < 300) {
        const { ticketId, runningId } = JSON.parse(answer.body) as { ticketId: string; runningId: number };
        result.created.push({ ticketId, runningId: Number(runningId), companyId: target.companyId });
      }
      if (options.actionEvery && mine % options.actionEvery === 0 && result.created.length > 0) {
        const ticket = result.created[Math.floor(Math.random() * result.created.length)]!;
        result.attempts.action++;
        await send(`POST /tickets/${ticket.ticketId}/actions`, `/tickets/${ticket.ticketId}/actions`, {
          actions: [{ type: "addTags", tagNames: ["bug"] }, { type: "setFields", fields: { level: n } }],
        });
      }
      if (options.pauseMs) await sleep(options.pauseMs);
    }
  };
  const ticker = setInterval(() => progress(`load: ${result.attempts.create} creations, ${result.attempts.action} actions, statuses ${JSON.stringify(result.statuses)}, ${result.closed.length} closed`), 5000);
  try {
    await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)));
  } finally {
    clearInterval(ticker);
  }
  progress(`load done: ${result.attempts.create} creations, ${result.attempts.action} actions, statuses ${JSON.stringify(result.statuses)}, ${result.closed.length} closed, ${result.violations.length} violations`);
  for (const violation of result.violations.slice(0, 5)) progress(`  violation: ${JSON.stringify(violation)}`);
  return result;
}
