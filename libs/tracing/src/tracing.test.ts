import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { context, propagation, trace } from "@opentelemetry/api";
import { createLogger } from "@support/logging";
import { afterEach, describe, expect, it } from "vitest";
import { resourceAttributesOf, startTracing, tracesEndpoint, tracingRequested, type Tracing } from "./index.ts";
import { installInMemoryTracing, type InMemoryTracing } from "./testing.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ service: "tracing-test", destination }) };
}

let running: Tracing | InMemoryTracing | undefined;

afterEach(async () => {
  if (running && "uninstall" in running) await running.uninstall();
  else await running?.shutdown();
  running = undefined;
});

describe("when traces are asked for", () => {
  it("only an OTLP exporter or endpoint turns them on, and OTEL_SDK_DISABLED or none turns them off", () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" })).toBe(false);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "console,otlp" })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "zipkin" })).toBe(false);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "otlp", OTEL_SDK_DISABLED: "true" })).toBe(false);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: "otlp", OTEL_SDK_DISABLED: "false" })).toBe(true);
  });

  it("derives the traces URL and the resource from the standard variables", () => {
    expect(tracesEndpoint({})).toBe("http://localhost:4318/v1/traces");
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })).toBe("http://collector:4318/v1/traces");
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://b:9999/traces" })).toBe("http://b:9999/traces");
    expect(resourceAttributesOf({}, "tickets")).toEqual({ "service.name": "tickets" });
    expect(resourceAttributesOf({ OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=prod,team=support%20ops,broken" }, "tickets")).toEqual({
      "service.name": "tickets",
      "deployment.environment.name": "prod",
      team: "support ops",
    });
    expect(resourceAttributesOf({ OTEL_RESOURCE_ATTRIBUTES: "service.name=a", OTEL_SERVICE_NAME: "b" }, "tickets")).toEqual({ "service.name": "b" });
  });
});

describe("with no OTEL_* variables", () => {
  it("registers nothing: spans are non-recording no-ops, nothing propagates, and log lines carry no trace ids", async () => {
    running = await startTracing({ serviceName: "test", env: {} });
    expect(running.enabled).toBe(false);
    const { lines, logger } = capture();
    const tracer = trace.getTracer("test");
    tracer.startActiveSpan("work", (span) => {
      expect(span.isRecording()).toBe(false);
      expect(trace.getSpan(context.active())).toBeUndefined(); // no context manager: nothing is active
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      expect(carrier).toEqual({});
      logger.info("inside a would-be span");
      span.end();
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty("trace_id");
    expect(lines[0]).not.toHaveProperty("span_id");
  });
});

describe("with a tracer provider", () => {
  it("log lines written inside a span carry its trace_id and span_id, and lines outside carry none", async () => {
    const tracing = await installInMemoryTracing();
    running = tracing;
    const { lines, logger } = capture();
    const tracer = trace.getTracer("test");
    let ids: { traceId: string; spanId: string } | undefined;
    await tracer.startActiveSpan("outer", async (span) => {
      ids = span.spanContext();
      await new Promise((resolve) => setTimeout(resolve, 1)); // across an await, too
      logger.info("inside");
      span.end();
    });
    logger.info("outside");
    expect(lines[0]).toMatchObject({ msg: "inside", trace_id: ids!.traceId, span_id: ids!.spanId });
    expect(lines[0]!.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(lines[1]).not.toHaveProperty("trace_id");
    expect(tracing.spans().map((s) => s.name)).toEqual(["outer"]);
  });

  it("exports over OTLP/HTTP (protobuf) to the endpoint the environment names, flushing at shutdown", async () => {
    const received: { url: string; type: string; body: Buffer }[] = [];
    const collector = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push({ url: req.url ?? "", type: String(req.headers["content-type"]), body: Buffer.concat(chunks) });
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = collector.address() as AddressInfo;
      const tracing = await startTracing({
        serviceName: "default-name",
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_SERVICE_NAME: "tickets-under-test", OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=ci" },
      });
      running = tracing;
      expect(tracing.enabled).toBe(true);
      trace.getTracer("test").startActiveSpan("exported-span", (span) => {
        expect(span.isRecording()).toBe(true);
        const carrier: Record<string, string> = {};
        propagation.inject(context.active(), carrier);
        expect(carrier.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
        span.end();
      });
      expect(received).toEqual([]); // batched: nothing is sent per span
      await tracing.shutdown();
      running = undefined;
      expect(received).toHaveLength(1);
      expect(received[0]!.url).toBe("/v1/traces");
      expect(received[0]!.type).toBe("application/x-protobuf");
      const body = received[0]!.body.toString("latin1");
      expect(body).toContain("exported-span");
      expect(body).toContain("tickets-under-test");
      expect(body).toContain("deployment.environment.name");
      // Unregistered after shutdown: back to the no-op.
      expect(trace.getTracer("test").startSpan("after").isRecording()).toBe(false);
    } finally {
      collector.close();
    }
  });

  it("follows OTEL_TRACES_SAMPLER", async () => {
    running = await startTracing({ serviceName: "test", env: { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1", OTEL_TRACES_SAMPLER: "always_off" } });
    const span = trace.getTracer("test").startSpan("dropped");
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext().traceFlags & 1).toBe(0);
    span.end();
  });
});
