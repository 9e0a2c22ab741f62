// The fault suite: real processes on a private stack (its own Postgres, NATS and S3, the four
// services and the gateway), one fault per scenario under a load of ticket creations and
// actions through the gateway, and a flood on a healthy stack. Each scenario checks that no other process exits, that clients
// only see 2xx answers or the 503/504 error contract, and, once the stack has recovered, that
// every committed ticket is whole, gapless and published exactly once. The scenarios share the
// stack (starting it costs most of the time); run one with `-t "<scenario name>"`.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkConsistency, consistent } from "../src/consistency.ts";
import { keepAliveLoad, type KeepAliveResult } from "../src/keepalive.ts";
import { errorBodyProblem, runLoad, type CreatedTicket, type LoadResult, type LoadTarget } from "../src/load.ts";
import { progress, waitUntil, type ExitRecord, type FaultStack } from "../src/stack.ts";
import { startScenario } from "../src/tenant.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SHUTDOWN_TIMEOUT_MS = 10_000;

describe("fault suite", () => {
  let stack: FaultStack;
  let target: LoadTarget;
  /** Every ticket a client was answered 2xx for, over all scenarios. */
  const answered: CreatedTicket[] = [];

  beforeAll(async () => {
    ({ stack, target } = await startScenario({ SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) }));
  });
  afterAll(() => stack?.stop());

  /** After recovery: the gateway answers again and the stored state is consistent. */
  async function expectRecovered(): Promise<void> {
    await stack.waitUntilReady(30_000);
    const report = await checkConsistency(stack, answered);
    progress(`consistency: ${report.tickets} tickets`);
    expect(report).toEqual(consistent(report.tickets));
    expect(report.tickets).toBeGreaterThanOrEqual(answered.length);
  }

  function expectContractKept(load: LoadResult): void {
    expect(load.violations).toEqual([]);
    expect(load.closed).toEqual([]);
    expect(load.created.length).toBeGreaterThan(0);
  }

  describe("Postgres restarted during creations and actions", () => {
    let load: LoadResult;
    beforeAll(async () => {
      const faults = (async () => {
        await sleep(1000);
        await stack.restartPostgres();
        progress("Postgres restarted");
        await sleep(1500);
        await stack.restartPostgres();
        progress("Postgres restarted again");
        await stack.waitUntilReady(30_000);
        await sleep(1000);
      })();
      load = await runLoad(target, { clients: 4, minCreates: 100, until: faults, actionEvery: 2 });
      await faults;
      answered.push(...load.created);
    });

    it("keeps every process running", () => {
      expect(stack.unexpectedExits).toEqual([]);
    });

    it("answers every request with a 2xx or a 503/504 error body, never a closed connection", () => {
      expectContractKept(load);
    });

    it("leaves every committed ticket whole, gapless and published exactly once", async () => {
      await expectRecovered();
    });
  });

  describe("a flood of creations on a healthy stack: 160 clients, ten times the writes the gateway takes at once", () => {
    let load: LoadResult;
    let breakers: Record<string, string>;
    beforeAll(async () => {
      load = await runLoad(target, { clients: 160, minCreates: 1500 });
      answered.push(...load.created);
      const report = (await (await fetch(`${target.gateway}/healthz/dependencies`)).json()) as { services: Record<string, { breaker: string }> };
      breakers = Object.fromEntries(Object.entries(report.services).map(([name, service]) => [name, service.breaker]));
    });

    it("keeps every process running", () => {
      expect(stack.unexpectedExits).toEqual([]);
    });

    it("answers 2xx or the busy 503 with Retry-After, sooner than a creation, and never a 504", () => {
      expectContractKept(load);
      expect(Object.keys(load.statuses).sort()).toEqual(["200", "503"]);
      const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
      // Refused before any work: no refusal waits as long as a typical creation.
      expect(median(load.timesByStatus["503"]!)).toBeLessThan(median(load.timesByStatus["200"]!));
    });

    it("opens no circuit breaker on the busy services", () => {
      expect(breakers).toEqual(Object.fromEntries(Object.keys(breakers).map((name) => [name, "closed"])));
    });

    it("leaves every committed ticket whole, gapless and published exactly once", async () => {
      await expectRecovered();
    });
  });

  describe("NATS killed and stalled during 500 creations", () => {
    let load: LoadResult;
    beforeAll(async () => {
      const faults = (async () => {
        await sleep(1000);
        await stack.stallNats(3000);
        progress("NATS stalled 3 s (SIGSTOP, SIGCONT)");
        await sleep(1000);
        await stack.killAndRestartNats(1000);
        progress("NATS SIGKILLed and started again");
        await sleep(2000);
      })();
      load = await runLoad(target, { clients: 6, minCreates: 500, until: faults });
      await faults;
      answered.push(...load.created);
    });

    it("keeps every other process running", () => {
      expect(stack.unexpectedExits).toEqual([]);
    });

    it("answers every request with a 2xx or a 503/504 error body, never a closed connection", () => {
      expectContractKept(load);
      expect(load.attempts.create).toBeGreaterThanOrEqual(500);
    });

    it("publishes every committed ticket exactly once after NATS is back", async () => {
      await expectRecovered();
    });
  });

  describe("a service SIGKILLed mid-load and restarted", () => {
    let load: LoadResult;
    const exits: ExitRecord[] = [];
    beforeAll(async () => {
      const faults = (async () => {
        for (const service of ["tickets", "players"] as const) {
          await sleep(1500);
          exits.push(await stack.signal(service, "SIGKILL"));
          progress(`${service} SIGKILLed`);
          await sleep(1000);
          stack.startProcess(service);
          // A service takes ~10 s to start on a busy 2-core machine.
          await stack.waitUntilReady(45_000);
          progress(`${service} started again`);
        }
        await sleep(1000);
      })();
      load = await runLoad(target, { clients: 4, minCreates: 100, until: faults, actionEvery: 2 });
      await faults;
      answered.push(...load.created);
    });

    it("keeps every other process running", () => {
      expect(exits.map((e) => [e.name, e.signal])).toEqual([["tickets", "SIGKILL"], ["players", "SIGKILL"]]);
      expect(stack.unexpectedExits).toEqual([]);
    });

    it("answers the requests the killed service had in flight with 503/504, never a closed connection", () => {
      expectContractKept(load);
      // The load did run while a service was away.
      expect(load.statuses[503]).toBeGreaterThan(0);
    });

    it("leaves every committed ticket whole, gapless and published exactly once", async () => {
      await expectRecovered();
    });
  });

  describe("the gateway SIGTERMed under 32 keep-alive connections", () => {
    let result: KeepAliveResult;
    let exit: ExitRecord;
    let stopMs: number;
    beforeAll(async () => {
      const run = randomBytes(3).toString("hex");
      let n = 0;
      const headers = { authorization: `Bearer ${target.key}`, "content-type": "application/json" };
      const load = keepAliveLoad(stack.ports.gateway, 32, () => {
        n++;
        if (n % 2 === 0) return { name: `GET /tickets #${n}`, method: "GET", path: "/tickets?limit=5", headers };
        const body = JSON.stringify({
          gameId: target.gameId,
          message: `Graceful stop ${run} request ${n}: the shop shows ${n * 7919} gems but I have none`,
          language: "en",
          channels: ["email"],
          metadata: { player: { id: `stop-${run}-${n}`, email: `stop-${run}-${n}@example.com` } },
        });
        return { name: `POST /tickets #${n}`, method: "POST", path: "/tickets", headers, body };
      });
      await load.opened;
      // Stopped in full swing: every connection has had answers and has a request in flight.
      await waitUntil("64 answers on the keep-alive connections", async () => load.result.answers.length >= 64, 30_000, 50);
      const began = Date.now();
      exit = await stack.signal("gateway", "SIGTERM", SHUTDOWN_TIMEOUT_MS + 5000);
      stopMs = Date.now() - began;
      result = await load.done;
      progress(
        `gateway stopped in ${stopMs} ms: ${result.answers.length} answers, ${result.closedBeforeAnswer} closed before an answer, ${result.cut.length} cut`,
      );
      for (const answer of result.answers) {
        if (answer.request.startsWith("POST") && answer.status === 200) {
          const { ticketId, runningId } = JSON.parse(answer.body) as { ticketId: string; runningId: number };
          answered.push({ ticketId, runningId: Number(runningId), companyId: target.companyId });
        }
      }
      stack.startProcess("gateway");
    });

    it("exits 0 within SHUTDOWN_TIMEOUT_MS, and no other process exits", () => {
      expect(exit).toMatchObject({ name: "gateway", code: 0 });
      expect(stopMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
      expect(stack.unexpectedExits).toEqual([]);
    });

    it("answers every request it began completely, and cuts no answer", () => {
      expect(result.cut).toEqual([]);
      expect(result.answers.length).toBeGreaterThanOrEqual(64);
      const problems = result.answers
        .filter((a) => a.status < 200 || a.status > 299)
        .map((a) => ({ request: a.request, problem: errorBodyProblem(a.status, a.body) }))
        .filter((p) => p.problem !== undefined);
      expect(problems).toEqual([]);
    });

    it("leaves every committed ticket whole, gapless and published exactly once", async () => {
      await expectRecovered();
    });
  });
});
