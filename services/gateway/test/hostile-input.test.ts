// Hostile input against every operation of the OpenAPI document, through the real stack:
// property tests (fast-check) that send wrong types, missing and extra properties, huge and
// deeply nested values, number edge cases, unicode edge cases, invalid UTF-8, abused path
// and query parameters, odd encodings and abused headers. Whatever comes in, the gateway
// never answers 5xx, a 4xx carries the error body {code, message, details?}, a 2xx or 3xx
// carries the body the document declares, and a refused request leaves every service's
// tables exactly as they were.
//
// The operations are read from the document, so a new operation is covered without touching
// this file. fast-check prints the seed and the path of a failing run; set HOSTILE_SEED to
// replay one, HOSTILE_RUNS to change the number of runs per property.
import { randomUUID } from "node:crypto";
import http from "node:http";
import net from "node:net";
import fc from "fast-check";
import { createDb, sql, type Kysely } from "@support/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openapiDocument } from "../src/openapi/openapi.ts";
import { getOperation, operations, resolvePointer, type Operation } from "../src/openapi/operations.ts";
import { validateResponse } from "../src/openapi/validation.ts";
import { startStack, type Stack, type TenantResult } from "./stack.ts";
import { tenantA } from "./tenants.ts";

const seed = process.env.HOSTILE_SEED === undefined ? Date.now() ^ (Math.random() * 0x100000000) : Number(process.env.HOSTILE_SEED);
const numRuns = Number(process.env.HOSTILE_RUNS ?? 6);
fc.configureGlobal({ seed, numRuns, endOnFailure: false });

/**
 * Tables whose rows legitimately change while requests are refused: abuse counters (the rate
 * limits, and the wrong tries of an emailed code, which a 400 counts on purpose), relay
 * bookkeeping, migrations.
 */
const VOLATILE_TABLES = new Set(["rate_limits", "email_verifications", "outbox", "kysely_migration", "kysely_migration_lock"]);
const SERVICE_SCHEMAS = ["content", "players", "media", "tickets"];

type Json = Record<string, unknown>;
const allOperations = [...operations.values()];

// ---- requests below the fetch API (duplicate headers, raw bytes, any path) ---------------

interface RawRequest {
  method: string;
  path: string;
  /** Header pairs, sent as given (a name may repeat). */
  headers?: [string, string][];
  body?: string | Buffer;
}

interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function send(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  // An array of headers is sent as given: Node adds no Host header of its own then.
  const headers: [string, string][] = [["host", `${hostname}:${port}`], ...(request.headers ?? [])];
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, "utf8");
  if (body !== undefined && !headers.some(([name]) => name.toLowerCase() === "content-length" || name.toLowerCase() === "transfer-encoding")) {
    headers.push(["content-length", String(body.length)]);
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port: Number(port), method: request.method, path: request.path, headers: headers.flat(), agent }, (res) => {
      // A live event stream never ends by itself: its status and headers are the answer.
      if (String(res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) for (const item of [value ?? []].flat()) responseHeaders.append(name, item);
        res.destroy();
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, text: "", body: undefined });
        return;
      }
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const item of [value ?? []].flat()) responseHeaders.append(name, item);
        }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, text, body: parsed });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Writes raw bytes on a fresh connection and returns every status line answered before the server closes (or `waitMs`). */
function sendRaw(baseUrl: string, bytes: Buffer, waitMs = 1500): Promise<{ statuses: number[]; text: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString("latin1");
      resolve({ statuses: [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1])), text });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", finish);
    socket.on("error", finish);
    // Half-close after the bytes: a body shorter than its content-length is then over, not awaited.
    socket.end(bytes);
  });
}

// ---- schemas of the document --------------------------------------------------------------

/** Follows `$ref`s to components of the document. */
function deref(schema: unknown): Json {
  let current = (schema ?? {}) as Json;
  for (let hops = 0; typeof current.$ref === "string" && hops < 10; hops++) current = resolvePointer(openapiDocument, current.$ref.slice(1)) as Json;
  return current;
}

/** The object properties a schema declares, merged over allOf and its first oneOf/anyOf branch. */
function propertiesOf(schema: Json): { properties: Record<string, Json>; required: string[] } {
  const s = deref(schema);
  const properties: Record<string, Json> = { ...((s.properties ?? {}) as Record<string, Json>) };
  const required = [...((s.required ?? []) as string[])];
  for (const part of [...((s.allOf ?? []) as Json[]), ...(((s.oneOf ?? s.anyOf ?? []) as Json[]).slice(0, 1))]) {
    const inner = propertiesOf(part);
    Object.assign(properties, inner.properties);
    required.push(...inner.required);
  }
  return { properties, required };
}

interface Context {
  gameId: string;
  token: string;
  ticketId: string;
  playerTicketId: string;
}

/** A plausible value for a schema (valid where it is easy to be), so one hostile change is the only fault. */
function sample(schema: unknown, name: string, context: Context, depth = 0): unknown {
  const s = deref(schema);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum.find((value) => value !== null) ?? null;
  const branches = (s.oneOf ?? s.anyOf) as Json[] | undefined;
  if (Array.isArray(branches)) return sample(branches[0], name, context, depth);
  const types = [s.type].flat().filter((type) => type !== "null" && type !== undefined) as string[];
  const type = types[0] ?? (s.properties || s.allOf ? "object" : "string");
  switch (type) {
    case "object": {
      if (depth > 4) return {};
      const { properties, required } = propertiesOf(s);
      return Object.fromEntries(required.filter((key) => key in properties).map((key) => [key, sample(properties[key], key, context, depth + 1)]));
    }
    case "array": {
      const count = Math.max(1, Number(s.minItems ?? 1));
      return Array.from({ length: Math.min(count, 3) }, () => sample(s.items, name, context, depth + 1));
    }
    case "integer":
    case "number":
      return Math.max(Number(s.minimum ?? 1), 1);
    case "boolean":
      return false;
    default:
      if (name === "gameId") return context.gameId;
      if (name === "token") return context.token;
      if (s.format === "uuid") return "3f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11";
      if (s.format === "email") return "hostile@example.com";
      if (s.format === "date-time") return "2026-01-01T00:00:00Z";
      if (s.format === "date") return "2026-01-01";
      if (s.format === "uri") return "https://example.com/x";
      // Unique, so that repeated requests are not refused as duplicates of each other.
      return randomUUID().replaceAll("-", " ").padEnd(Number(s.minLength ?? 0), "x");
  }
}

/** Every property path a body schema declares (objects and array items, a few levels deep). */
function propertyPaths(schema: unknown, depth = 0): (string | number)[][] {
  if (depth > 3) return [];
  const s = deref(schema);
  const paths: (string | number)[][] = [];
  const { properties } = propertiesOf(s);
  for (const [key, child] of Object.entries(properties)) {
    paths.push([key]);
    for (const rest of propertyPaths(child, depth + 1)) paths.push([key, ...rest]);
  }
  if (s.items !== undefined) {
    for (const rest of propertyPaths(s.items, depth + 1)) paths.push([0, ...rest]);
  }
  return paths;
}

function setAt(target: unknown, path: (string | number)[], value: unknown, remove = false): unknown {
  const root = structuredClone(target) as Json;
  let current: Json = root;
  for (const [i, key] of path.entries()) {
    if (i === path.length - 1) {
      if (remove) delete current[key];
      else Object.defineProperty(current, key, { value, enumerable: true, writable: true, configurable: true });
      break;
    }
    const next = current[key];
    if (next === null || typeof next !== "object") current[key] = typeof path[i + 1] === "number" ? [] : {};
    current = current[key] as Json;
  }
  return root;
}

// ---- hostile values ---------------------------------------------------------------------------

const edgeStrings = [
  "", " ", "\u0000", "a\u0000b", "\u202eevil\u202c", "\u200f\u200e", "e\u0301\u0301\u0301\u0301", "😀🏳️‍🌈👨‍👩‍👧‍👦", "\uffff", "\ufffe", "\ufeff",
  "\ud800", "\udfff\ud800", "NaN", "Infinity", "-0", "1e309", "null", "true", "0x10", "../../etc/passwd", "%00", "${7*7}", "' or 1=1 --",
  "<script>alert(1)</script>", "\\", "\"", "\n\r\t", "𝕳𝖔𝖘𝖙𝖎𝖑𝖊",
];
const edgeNumbers = [0, -1, 0.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 64, -(2 ** 63), 5e-324, 2_147_483_648];
const longStrings = [255, 256, 1000, 4096, 10_000, 65_536, 200_000, 1_100_000].map((n) => fc.constant("x".repeat(n)));

const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, {}, [], ...edgeStrings, ...edgeNumbers),
  fc.oneof(...longStrings),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.double(),
  fc.bigInt().map((n) => Number(n)),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(Array.from({ length: 10_000 }, () => "x"), Array.from({ length: 50_000 }, (_, i) => i), Array.from({ length: 2_000 }, () => ({ a: [1] }))),
);

/** Raw JSON tokens that JSON.stringify cannot produce, placed where a value goes. */
const rawTokens = [
  "-0", "1e309", "-1e309", "123456789012345678901234567890", "0.000000000000000000000000000001", "NaN", "Infinity", "0x1F", "'single'",
  '"\\ud800"', '"\\udfff"', '"\\u0000"', '"\\uffff"', '"\\x41"', "1.0e+2", "[1,]", "{\"a\":1,\"a\":2}", '"a" "b"', "undefined",
];
const deepArray = "[".repeat(10_000) + "]".repeat(10_000);
const deepObject = '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000);

/** Raw whole bodies: malformed, deep, odd top-level values. */
const rawBodies: (string | Buffer)[] = [
  deepArray, deepObject, "", "null", "[]", '""', "0", "{", "}", "{}}", "{'a':1}", "\ufeff{}", "[".repeat(200_000),
  '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}',
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
  Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
  Buffer.from([0x00, 0x00, 0x00, 0x00]),
];

/** Path segment values: percent-encoding abuse, wrong formats, overlong. */
const pathAbuse = [
  "%", "%zz", "%00", "%2F", "..%2F..%2Fgames", "%2e%2e", "%C0%AF", "%F0%9F", "%E2%80%AE", "%FF%FE", "x%0Ay", "%25", "a".repeat(5000),
  "00000000-0000-0000-0000-000000000000", "3F1C2A9E-8D47-4B6A-9C1E-2B7F5D0A6E11", "{3f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11}",
  "3f1c2a9e8d474b6a9c1e2b7f5d0a6e11", "3f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11%00", "null", "undefined", "-1", "1e309", "%20",
];

const hostileParamValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...pathAbuse),
  fc.constantFrom(...edgeStrings.map((value) => encodeURIComponent(value.replace(/[\ud800-\udfff]/g, "\ufffd")))),
  fc.string({ unit: "grapheme", maxLength: 30 }).map((value) => encodeURIComponent(value)),
  fc.string({ maxLength: 30 }).map((value) => encodeURIComponent(value)),
);

// ---- the answer rules ------------------------------------------------------------------------

function describeRequest(request: RawRequest): string {
  const body = request.body === undefined ? "" : ` body=${JSON.stringify(String(request.body).slice(0, 300))}`;
  return `${request.method} ${request.path.slice(0, 300)} headers=${JSON.stringify(request.headers ?? []).slice(0, 300)}${body}`;
}

/** Never 5xx; a 4xx is the error body; a 2xx/3xx is what the operation declares. */
function expectSaneAnswer(operation: Operation | undefined, request: RawRequest, response: RawResponse): void {
  const what = `${describeRequest(request)} -> ${response.status} ${response.text.slice(0, 500)}`;
  expect(response.status, what).toBeLessThan(500);
  expect(response.headers.get("x-request-id"), what).toBeTruthy();
  if (response.status >= 400) {
    expect(response.headers.get("content-type"), what).toMatch(/^application\/json/);
    const body = response.body as Json;
    expect(body, what).toEqual(expect.objectContaining({ code: expect.stringMatching(/^[a-z]+(_[a-z]+)*$/), message: expect.any(String) }));
    expect(Object.keys(body).every((key) => ["code", "message", "details"].includes(key)), what).toBe(true);
    const details = body.details as Json | undefined;
    if (details !== undefined) expect(typeof details === "object" && details !== null && !Array.isArray(details), what).toBe(true);
    if (details?.type === "VALIDATION_ERROR") {
      expect(body.code, what).toBe("invalid_argument");
      expect(details.issues, what).toEqual(expect.arrayContaining([expect.objectContaining({ path: expect.any(String), message: expect.any(String) })]));
    }
    // Nothing internal leaks into a refusal.
    expect(response.text, what).not.toMatch(/ at .*\.ts:\d+|node_modules|\bselect\b.*\bfrom\b|127\.0\.0\.1:\d+/i);
  } else if (operation !== undefined) {
    expect(validateResponse(operation.operationId, response.status, response.body, response.headers), what).toBeNull();
  }
}

// ---- the suite ----------------------------------------------------------------------------------

describe("hostile input against every operation of the OpenAPI document", () => {
  let stack: Stack;
  let tenant: TenantResult;
  let key: string;
  let sessionCode: string;
  let context: Context;
  let db: Kysely<unknown>;
  let checksumQuery: string;
  let baseline: string;
  /** Every status each operation answered, to prove the requests got past authentication. */
  const statusesSeen = new Map<string, Set<number>>();

  /** One line per table of every service schema: rows and a digest of their content. */
  const checksum = async (): Promise<string> => {
    const { rows } = await sql.raw<{ t: string; n: number; h: string }>(checksumQuery).execute(db);
    return rows.map((row) => `${row.t}:${row.n}:${row.h}`).join("\n");
  };

  /** Sends one request, checks the answer, and checks that a refusal changed no row. */
  const exchange = async (operation: Operation | undefined, request: RawRequest): Promise<RawResponse> => {
    const response = await send(stack.url, request);
    expectSaneAnswer(operation, request, response);
    if (operation !== undefined) {
      const seen = statusesSeen.get(operation.operationId) ?? new Set<number>();
      statusesSeen.set(operation.operationId, seen.add(response.status));
    }
    if (response.status >= 400) {
      const after = await checksum();
      if (after !== baseline) {
        const changed = after.split("\n").filter((line) => !baseline.split("\n").includes(line));
        // One change is reported once, not again by every later request.
        baseline = after;
        expect.fail(`${describeRequest(request)} -> ${response.status} ${response.text.slice(0, 300)} but changed ${changed.join(", ")}`);
      }
    } else {
      baseline = await checksum();
    }
    expect(({} as Json).polluted, "Object.prototype was polluted").toBeUndefined();
    return response;
  };

  const authHeaders = (operation: Operation): [string, string][] =>
    operation.authenticated ? [["authorization", `Bearer ${key}`]] : operation.sessionAuthenticated ? [["authorization", `Session ${sessionCode}`]] : [];

  const pathFor = (operation: Operation, values: Record<string, string> = {}): string =>
    operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      if (name in values) return values[name]!;
      if (name === "ticketId") return operation.sessionAuthenticated ? context.playerTicketId : context.ticketId;
      if (name === "gameId") return context.gameId;
      return "3f1c2a9e-8d47-4b6a-9c1e-2b7f5d0a6e11";
    });

  const queryFor = (operation: Operation): string => {
    const required = operation.parameters.filter((parameter) => parameter.in === "query" && parameter.required);
    const pairs = required.map((parameter) => `${encodeURIComponent(parameter.name)}=${encodeURIComponent(String(sample(resolvePointer(openapiDocument, parameter.schemaPointer), parameter.name, context)))}`);
    return pairs.length ? `?${pairs.join("&")}` : "";
  };

  const baseBody = (operation: Operation): unknown => sample(resolvePointer(openapiDocument, operation.requestBody!.schemaPointer), "", context);

  const jsonRequest = (operation: Operation, body: string | Buffer, extraHeaders: [string, string][] = []): RawRequest => ({
    method: operation.method.toUpperCase(),
    path: pathFor(operation) + queryFor(operation),
    headers: [...authHeaders(operation), ["content-type", "application/json"], ...extraHeaders],
    body,
  });

  beforeAll(async () => {
    stack = await startStack({
      // No abuse limits: hundreds of requests from one address must reach validation, not a 429.
      gateway: { PUBLIC_RATE_LIMIT_PER_ADDRESS: 0, PUBLIC_RATE_LIMIT_PER_TOKEN: 0, PLAYER_API_RATE_LIMIT_PER_SESSION: 0, PLAYER_API_RATE_LIMIT_PER_ADDRESS: 0, API_KEY_FAILURES_PER_ADDRESS: 0 },
    });
    tenant = await stack.applyTenant(tenantA);
    key = tenant.apiKeys.main!;
    const galaxy = tenant.games.galaxy!;
    const token = galaxy.environments["galaxy-production"]!.token;
    const session = await stack.request("/support/sessions", { method: "POST", json: { token, player: { id: "hostile-player", email: "hostile@example.com" } } });
    expect(session.status, session.text).toBe(200);
    sessionCode = (session.body as { sessionCode: string }).sessionCode;
    const created = await stack.request("/tickets", {
      method: "POST",
      key,
      json: { gameId: galaxy.id, message: "A ticket to aim hostile actions at", language: "en", channels: ["email"], metadata: { player: { id: "hostile-api", email: "api@example.com" } } },
    });
    expect(created.status, created.text).toBe(200);
    const playerTicket = await stack.request("/player-api/tickets", { method: "POST", json: { message: "A chat ticket to aim hostile messages at" }, headers: { authorization: `Session ${sessionCode}` } });
    expect(playerTicket.status, playerTicket.text).toBe(200);
    context = {
      gameId: galaxy.id,
      token,
      ticketId: (created.body as { ticketId: string }).ticketId,
      playerTicketId: (playerTicket.body as { ticketId: string }).ticketId,
    };

    db = createDb({ url: stack.infra.databaseUrl, schema: "public", maxConnections: 2 });
    const { rows } = await sql<{ table_schema: string; table_name: string }>`
      select table_schema, table_name from information_schema.tables
      where table_schema in (${sql.join(SERVICE_SCHEMAS)}) and table_type = 'BASE TABLE'
      order by table_schema, table_name`.execute(db);
    const tables = rows.filter((row) => !VOLATILE_TABLES.has(row.table_name));
    expect(tables.map((row) => row.table_name)).toEqual(expect.arrayContaining(["tickets", "ticket_events", "players", "attachments", "announcements", "support_sessions"]));
    checksumQuery = tables
      .map(({ table_schema: schema, table_name: table }) => {
        const name = `"${schema}"."${table}"`;
        return `select '${schema}.${table}' as t, count(*)::int as n, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as h from ${name} x`;
      })
      .join(" union all ");
    baseline = await checksum();
  });
  afterAll(async () => {
    agent.destroy();
    await db?.destroy();
    await stack?.stop();
  });

  it("covers every operation of the document", () => {
    expect(allOperations.length).toBeGreaterThan(20);
    expect(new Set(allOperations.map((operation) => operation.operationId)).size).toBe(allOperations.length);
  });

  it("notices a changed row: the digest moves when an accepted request stores an announcement", async () => {
    const before = await checksum();
    const stored = await stack.request("/announcements", { method: "PUT", key, json: { gameId: null, shortContent: { en: "Digest check" }, longContent: null } });
    expect(stored.status, stored.text).toBe(200);
    const after = await checksum();
    expect(after).not.toBe(before);
    expect(after.split("\n").filter((line) => !before.split("\n").includes(line))).toEqual([expect.stringMatching(/^content\.announcements:/)]);
    baseline = after;
  });

  describe.each(allOperations.map((operation) => [`${operation.method.toUpperCase()} ${operation.path} (${operation.operationId})`, operation] as const))("%s", (_name, operation) => {
    const bodyPaths = operation.requestBody ? propertyPaths(resolvePointer(openapiDocument, operation.requestBody.schemaPointer)) : [];
    const pathParameters = operation.parameters.filter((parameter) => parameter.in === "path");
    const queryParameters = operation.parameters.filter((parameter) => parameter.in === "query");
    // Properties that do not apply to an operation (no body, no path parameter, public) are not
    // registered at all, so no test of this suite is skipped.

    if (operation.requestBody !== undefined) it("survives wrong, huge and odd values at every body property, missing and extra properties", async () => {
      const mutation = fc.oneof(
        fc.record({ kind: fc.constant("whole" as const), value: hostileJson }),
        fc.record({ kind: fc.constant("set" as const), at: fc.constantFrom(...bodyPaths, []), value: hostileJson }),
        fc.record({ kind: fc.constant("remove" as const), at: fc.constantFrom(...bodyPaths, []) }),
        fc.record({ kind: fc.constant("extra" as const), at: fc.constantFrom(...bodyPaths, []), name: fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "", "\u0000"), fc.string()), value: hostileJson }),
      );
      await fc.assert(
        fc.asyncProperty(mutation, async (change) => {
          const base = baseBody(operation);
          let body: unknown;
          if (change.kind === "whole") body = change.value;
          else if (change.kind === "set") body = change.at.length ? setAt(base, change.at, change.value) : change.value;
          else if (change.kind === "remove") body = change.at.length ? setAt(base, change.at, undefined, true) : {};
          else body = setAt(base, [...change.at.slice(0, -1), change.name], change.value);
          await exchange(operation, jsonRequest(operation, JSON.stringify(body) ?? "null"));
        }),
      );
    });

    if (operation.requestBody !== undefined) it("survives raw JSON that a serializer would never write (deep nesting, lone surrogates, number edges, bad UTF-8)", async () => {
      const placed = fc.record({ at: fc.constantFrom(...bodyPaths), token: fc.constantFrom(...rawTokens) }).map(({ at, token }) => {
        const marker = "__hostile_marker__";
        return JSON.stringify(setAt(baseBody(operation), at, marker)).replace(`"${marker}"`, token);
      });
      const raw = fc.oneof(placed, fc.constantFrom(...rawBodies));
      await fc.assert(fc.asyncProperty(raw, async (body) => void (await exchange(operation, jsonRequest(operation, body)))), { numRuns: numRuns * 2 });
    });

    if (pathParameters.length > 0) it("survives wrong, overlong and percent-encoding-abused path parameters", async () => {
      const values = fc.record(Object.fromEntries(pathParameters.map((parameter) => [parameter.name, hostileParamValue])));
      await fc.assert(
        fc.asyncProperty(values, async (chosen) => {
          const body = operation.requestBody ? JSON.stringify(baseBody(operation)) : undefined;
          const request: RawRequest = {
            method: operation.method.toUpperCase(),
            path: pathFor(operation, chosen) + queryFor(operation),
            headers: [...authHeaders(operation), ...(body === undefined ? [] : [["content-type", "application/json"] as [string, string]])],
            body,
          };
          // An abused segment may match no route (404) or another one: judge the answer by the route it reached.
          await exchange(undefined, request);
        }),
      );
    });

    it("survives wrong, overlong, repeated and unknown query parameters", async () => {
      const names = [...queryParameters.map((parameter) => parameter.name), "unknown", "__proto__", "limit[]", "a".repeat(3000)];
      const pair = fc.tuple(fc.constantFrom(...names), fc.oneof(hostileParamValue, fc.constantFrom("", "[", "{}", '["x"]', '{"a":{"b":1}}', "1", "-1", "0", "1000000000000", "1.5")));
      await fc.assert(
        fc.asyncProperty(fc.array(pair, { minLength: 1, maxLength: 6 }), fc.boolean(), async (pairs, repeat) => {
          const all = repeat ? [...pairs, ...pairs] : pairs;
          const query = all.map(([name, value]) => `${encodeURIComponent(name)}=${value}`).join("&");
          const required = queryFor(operation);
          const body = operation.requestBody ? JSON.stringify(baseBody(operation)) : undefined;
          const request: RawRequest = {
            method: operation.method.toUpperCase(),
            path: `${pathFor(operation)}${required ? `${required}&` : "?"}${query}`,
            headers: [...authHeaders(operation), ...(body === undefined ? [] : [["content-type", "application/json"] as [string, string]])],
            body,
          };
          await exchange(operation, request);
        }),
      );
    });

    it("survives abused headers: Authorization, x-request-id, content-type, content-encoding", async () => {
      const authorization = fc.constantFrom<[string, string][]>(
        [],
        [["authorization", ""]],
        [["authorization", "Bearer"]],
        [["authorization", "Bearer "]],
        [["authorization", `Bearer  ${key}`]],
        [["authorization", `bearer ${key}`]],
        [["authorization", `Basic ${Buffer.from(`${key}:`).toString("base64")}`]],
        [["authorization", `Session ${key}`]],
        [["authorization", `Bearer ${sessionCode}`]],
        [["authorization", `Bearer ${key}x`]],
        [["authorization", `Bearer ${"k".repeat(8000)}`]],
        [["authorization", `Bearer ${key}`], ["authorization", `Bearer ${key}`]],
        [["authorization", `Bearer ${key}`], ["authorization", "Bearer sk_live_0000"]],
        [["authorization", `Session ${sessionCode}`], ["authorization", `Session ${sessionCode}`]],
        [["authorization", `Bearer ${key}, Session ${sessionCode}`]],
        [["authorization", "Bearer \u00e9\u00e8"]],
      );
      const requestId = fc.constantFrom<[string, string][]>(
        [],
        [["x-request-id", ""]],
        [["x-request-id", "r".repeat(8000)]],
        [["x-request-id", "caf\u00e9-\u00ff"]],
        [["x-request-id", "a"], ["x-request-id", "b"]],
        [["x-request-id", "../../x y\t<z>"]],
      );
      const encoding = fc.constantFrom<[string, string][]>(
        [],
        [["content-type", "text/plain"]],
        [["content-type", "application/json; charset=utf-16"]],
        [["content-type", "application/json; charset=latin1"]],
        [["content-type", "application/json; charset=bogus"]],
        [["content-type", "application/json-patch+json"]],
        [["content-type", "multipart/form-data; boundary=x"]],
        [["content-type", "application/json"], ["content-type", "text/plain"]],
        [["content-type", "application/json"], ["content-encoding", "identity"]],
        [["content-type", "application/json"], ["content-encoding", "bogus"]],
      );
      const filler = fc.constantFrom<[string, string][]>([], [["x-filler", "f".repeat(20_000)]], [["cookie", "a=1; ".repeat(2000)]]);
      await fc.assert(
        fc.asyncProperty(authorization, requestId, encoding, filler, fc.boolean(), async (auth, id, enc, fill, withBody) => {
          // An operation without a body gets one anyway: it must be ignored or refused.
          const body = withBody ? (operation.requestBody ? JSON.stringify(baseBody(operation)) : '{"unexpected":[1,2,3]}') : undefined;
          const request: RawRequest = { method: operation.method.toUpperCase(), path: pathFor(operation) + queryFor(operation), headers: [...auth, ...id, ...enc, ...fill], body };
          await exchange(operation, request);
        }),
      );
    });

    if (operation.authenticated || operation.sessionAuthenticated) it("refuses hostile bodies without credentials before reading them (403)", async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(hostileJson.map((value) => JSON.stringify(value) ?? "null"), fc.constantFrom(...rawBodies)), async (body) => {
          const request: RawRequest = { method: operation.method.toUpperCase(), path: pathFor(operation), headers: [["content-type", "application/json"]], body };
          const response = await exchange(operation, request);
          expect(response.status, describeRequest(request)).toBe(403);
        }),
        { numRuns: Math.max(3, Math.floor(numRuns / 2)) },
      );
    });
  });

  it("got past authentication and validation: every operation answered something other than 401/403, and some 2xx", () => {
    // /agent-api takes a session cookie and the application's Origin, which this suite's
    // generated requests do not carry: they only reach its refusals (the hostile requests above
    // still run against it). Signed-in requests are test/agents.test.ts's.
    for (const operation of allOperations.filter((op) => !op.path.startsWith("/agent-api/"))) {
      const seen = [...(statusesSeen.get(operation.operationId) ?? [])];
      expect(seen.some((status) => status !== 401 && status !== 403), `${operation.operationId} answered only ${seen.join(", ")}`).toBe(true);
    }
    const accepted = [...statusesSeen.values()].flatMap((seen) => [...seen]).filter((status) => status < 400);
    expect(accepted.length).toBeGreaterThan(0);
  });

  describe("broken framing", () => {
    const withBody = allOperations.filter((operation) => operation.requestBody !== undefined);

    it("answers a content-length longer or shorter than the body, a bad content-length and a conflicting transfer-encoding with no 5xx", async () => {
      for (const operation of withBody) {
        const body = JSON.stringify(baseBody(operation));
        const head = (extra: string) =>
          `${operation.method.toUpperCase()} ${pathFor(operation)}${queryFor(operation)} HTTP/1.1\r\nHost: x\r\n${authHeaders(operation).map(([n, v]) => `${n}: ${v}\r\n`).join("")}content-type: application/json\r\n${extra}\r\n`;
        for (const bytes of [
          `${head(`content-length: ${body.length + 50}\r\n`)}${body}`,
          `${head(`content-length: ${Math.max(1, body.length - 5)}\r\n`)}${body}`,
          `${head("content-length: abc\r\n")}${body}`,
          `${head(`content-length: ${body.length}\r\ncontent-length: ${body.length + 1}\r\n`)}${body}`,
          `${head(`content-length: ${body.length}\r\ntransfer-encoding: chunked\r\n`)}${body}`,
          `${head("transfer-encoding: chunked\r\n")}zz\r\n${body}\r\n0\r\n\r\n`,
        ]) {
          const socketAnswer = await sendRaw(stack.url, Buffer.from(bytes, "utf8"));
          expect(socketAnswer.statuses.every((status) => status < 500), `${bytes.slice(0, 200)} -> ${socketAnswer.text.slice(0, 300)}`).toBe(true);
        }
        expect(await checksum(), operation.operationId).toBe(baseline);
      }
    });
  });

  // The tickets service makes every check that can refuse a creation (a duplicate open ticket,
  // a blocked player, the attachments) before it resolves the player, so a refused creation
  // neither creates nor changes the player: the checksum after it is the one before.
  describe("a refused ticket creation leaves the player untouched", () => {
    it("a duplicate refused with 400 DUPLICATE_OPEN_TICKET_DETECTED does not rename the player", async () => {
      const ticket = (name: string) => ({
        gameId: context.gameId,
        message: "My gems never arrived after the purchase",
        language: "en",
        channels: ["email"],
        metadata: { player: { id: "refused-creation-player", email: "refused@example.com", name } },
      });
      const first = await stack.request("/tickets", { method: "POST", key, json: ticket("First name") });
      expect(first.status, first.text).toBe(200);
      baseline = await checksum();
      const duplicate = await exchange(getOperation("createTicket"), {
        method: "POST",
        path: "/tickets",
        headers: [["authorization", `Bearer ${key}`], ["content-type", "application/json"]],
        body: JSON.stringify(ticket("Second name")),
      });
      expect(duplicate.body).toMatchObject({ code: "failed_precondition", details: { type: "DUPLICATE_OPEN_TICKET_DETECTED" } });
    });
  });

  // The body is declared as compressed but the bytes are not (or there are none): a bad
  // request, not a 500.
  describe("content-encoding that does not match the bytes", () => {
    const withBody = allOperations.filter((operation) => operation.requestBody !== undefined);
    it.each(withBody.map((operation) => [operation.operationId, operation] as const))("%s: gzip, deflate or br headers on plain or no bytes answer 4xx", async (_id, operation) => {
      for (const encoding of ["gzip", "deflate", "br"]) {
        await exchange(operation, jsonRequest(operation, JSON.stringify(baseBody(operation)), [["content-encoding", encoding]]));
        await exchange(operation, { ...jsonRequest(operation, "", [["content-encoding", encoding], ["transfer-encoding", "chunked"]]) });
      }
    });
  });
});
