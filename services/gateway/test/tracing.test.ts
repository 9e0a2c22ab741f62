// One ticket creation is one trace: the REST call's traceparent is continued by the gateway,
// through the Connect calls to tickets and players, their Postgres queries, the outbox rows, the
// relay's NATS publish and a JetStream consumer of tickets.ticket.created. The real SDK keeps
// every span in memory (InMemorySpanExporter); the services run in-process, but every hop
// crosses a real socket and each side extracts the context from headers onto an empty one.
import { randomBytes } from "node:crypto";
import { SpanKind, trace } from "@opentelemetry/api";
import { ack, connectBus, createConsumer, streamNameFor, type Consumer, type EventEnvelope, type NatsConnection } from "@support/bus";
import { createLogger } from "@support/logging";
import { installInMemoryTracing, type InMemoryTracing, type ReadableSpan } from "@support/tracing/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

const tenantFile = {
  company: { name: "Trace Studio", primaryLanguage: "en" },
  apiKeys: [{ name: "main" }],
  games: [{ ref: "galaxy", name: "Galaxy Raiders", slug: "galaxy-trace", languages: ["en"], environments: [{ ref: "galaxy-prod", name: "production" }] }],
};

describe("tracing through the real stack", () => {
  let tracing: InMemoryTracing;
  let stack: Stack;
  let tenant: TenantResult;
  let nc: NatsConnection;
  let consumer: Consumer;
  const handled: { event: EventEnvelope; traceId: string | undefined }[] = [];

  beforeAll(async () => {
    tracing = await installInMemoryTracing("stack");
    stack = await startStack();
    tenant = await stack.applyTenant(tenantFile);
    const prefix = stack.infra.natsPrefix;
    nc = await connectBus(stack.infra.natsUrl, "tracing-test");
    // Nothing in the services consumes ticket events yet: a consumer made with libs/bus's API,
    // like every service consumer, stands for the last hop.
    consumer = createConsumer({
      nc,
      natsPrefix: prefix,
      stream: streamNameFor(prefix, "tickets"),
      durable: "tracing-test",
      filterSubject: `${prefix}tickets.ticket.created`,
      logger: createLogger({ service: "tracing-test", level: "silent" }),
      handle: async (event) => {
        handled.push({ event, traceId: trace.getActiveSpan()?.spanContext().traceId });
        return ack;
      },
    });
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    if (nc && !nc.isClosed()) await nc.drain();
    await stack?.stop();
    await tracing?.uninstall();
  });

  it("covers gateway -> tickets -> players -> Postgres -> outbox -> NATS consumer with the caller's trace id", async () => {
    const traceId = randomBytes(16).toString("hex");
    const callerSpanId = randomBytes(8).toString("hex");
    const email = `traced-${randomBytes(4).toString("hex")}@example.com`;
    const message = `A traced request ${randomBytes(6).toString("hex")}`;
    const created = await stack.request("/tickets", {
      method: "POST",
      key: tenant.apiKeys.main!,
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
      json: { gameId: tenant.games.galaxy!.id, message, language: "en", channels: ["email"], metadata: { player: { id: "traced-player", email } } },
    });
    expect(created.status, created.text).toBe(200);
    const { ticketId } = created.body as { ticketId: string };

    // The consumer ran the handler inside the trace.
    await expect.poll(() => handled.find((h) => h.event.data.id === ticketId), { timeout: 20_000 }).toBeDefined();
    expect(handled.find((h) => h.event.data.id === ticketId)!.traceId).toBe(traceId);

    const prefix = stack.infra.natsPrefix;
    const inTrace = (): ReadableSpan[] => tracing.spans().filter((span) => span.spanContext().traceId === traceId);
    // The consumer span ends right after the handler returns.
    await expect.poll(() => inTrace().some((span) => span.name === `process ${prefix}tickets.ticket.created`), { timeout: 20_000 }).toBe(true);
    const spans = inTrace();
    const one = (description: string, match: (span: ReadableSpan) => boolean): ReadableSpan => {
      const found = spans.filter(match);
      expect(found.length, `${description} among ${spans.map((s) => s.name).join(", ")}`).toBeGreaterThan(0);
      return found[0]!;
    };

    // Gateway: the server span continues the caller's span.
    const gateway = one("gateway server span", (s) => s.kind === SpanKind.SERVER && s.name === "POST /tickets");
    expect(gateway.parentSpanContext?.spanId).toBe(callerSpanId);
    expect(gateway.attributes).toMatchObject({ "http.request.method": "POST", "http.route": "/tickets", "http.response.status_code": 200 });

    // Connect: the gateway's client span is the parent of tickets' server span.
    const ticketsServer = one("tickets server span", (s) => s.kind === SpanKind.SERVER && s.attributes["rpc.method"] === "CreateTicket");
    expect(ticketsServer.attributes["rpc.service"]).toBe("tickets.v1.TicketsService");
    const gatewayClient = spans.find((s) => s.spanContext().spanId === ticketsServer.parentSpanContext?.spanId)!;
    expect(gatewayClient.kind).toBe(SpanKind.CLIENT);
    expect(gatewayClient.parentSpanContext?.spanId).toBe(gateway.spanContext().spanId);

    // Tickets -> players: the player is resolved inside the same trace.
    const playersServer = one("players server span", (s) => s.kind === SpanKind.SERVER && s.attributes["rpc.method"] === "ResolvePlayer");
    expect(playersServer.attributes["rpc.service"]).toBe("players.v1.PlayersService");

    // Postgres: queries of both services, with parameterised SQL and never a value.
    const queries = spans.filter((s) => s.attributes["db.system"] === "postgresql");
    one("the tickets outbox insert", (s) => s.attributes["db.system"] === "postgresql" && /insert into "?outbox"?/i.test(String(s.attributes["db.statement"])));
    expect(queries.some((s) => /\$1/.test(String(s.attributes["db.statement"])))).toBe(true);
    for (const query of queries) {
      expect(String(query.attributes["db.statement"])).not.toContain(email);
      expect(String(query.attributes["db.statement"])).not.toContain(message);
    }

    // Outbox -> NATS: the relay's publish continues the trace that wrote the row, and the
    // consumer's span is the child of the publish (its traceparent header).
    const publish = one("outbox publish span", (s) => s.kind === SpanKind.PRODUCER && s.name === `publish ${prefix}tickets.ticket.created`);
    const consume = one("consumer span", (s) => s.kind === SpanKind.CONSUMER && s.name === `process ${prefix}tickets.ticket.created` && s.attributes["messaging.consumer.group.name"] === "tracing-test");
    expect(consume.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    const writer = spans.find((s) => s.spanContext().spanId === publish.parentSpanContext?.spanId);
    expect(writer, "the publish span's parent is a span of the trace").toBeDefined();

    // One tree: every span's parent is in the trace, except the gateway's (the caller's). A span
    // is exported when it ends, so a child can arrive before its parent (the webhooks consumer's
    // INSERT before the consumer span around it): the tree is whole once every parent has ended.
    const orphans = () => {
      const all = inTrace();
      const ids = new Set(all.map((s) => s.spanContext().spanId));
      return all.filter((s) => s.spanContext().spanId !== gateway.spanContext().spanId && !ids.has(s.parentSpanContext?.spanId ?? "")).map((s) => s.name);
    };
    await expect.poll(orphans, { timeout: 10_000 }).toEqual([]);
  });
});
