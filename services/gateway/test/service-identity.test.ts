// Internal calls are authenticated, on every service of a real stack started with a service
// identity key per process (as deployed): the platform's own calls work (REST through the
// gateway, a ticket's calls from tickets to content and players, the admin tool), and over the
// real h2c transport every service refuses a call without identity, with a forged, expired or
// misaddressed token, or from a caller it does not allow.
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import {
  ContentAdminService, ContentService, MediaService, PlayerSideService, PlayersAdminService, PlayersService, TicketsAdminService, TicketsService, WebhooksAdminService,
  WebhooksService, health,
} from "@support/proto";
import {
  ALLOWED_CALLERS, IDENTITY_NAMES, SERVICE_IDENTITY_HEADER, createServiceCaller, createServiceTransport, defaultServiceCaller, generateIdentityKey,
  type IdentityName,
} from "@support/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type TenantResult } from "./stack.ts";
import { tenantA } from "./tenants.ts";

type ServiceName = keyof Stack["serviceUrls"];

const SERVICES: { name: ServiceName; service: DescService }[] = [
  { name: "content", service: ContentService },
  { name: "content", service: ContentAdminService },
  { name: "tickets", service: TicketsService },
  { name: "tickets", service: PlayerSideService },
  { name: "tickets", service: TicketsAdminService },
  { name: "media", service: MediaService },
  { name: "players", service: PlayersService },
  { name: "players", service: PlayersAdminService },
  { name: "webhooks", service: WebhooksService },
  { name: "webhooks", service: WebhooksAdminService },
];

describe("service identity on every service of a stack with real keys", () => {
  let stack: Stack;
  let tenant: TenantResult;

  beforeAll(async () => {
    stack = await startStack({ identities: true });
    // The admin tool calls the admin services with its own identity (and the admin token).
    tenant = await stack.applyTenant(tenantA);
  });
  afterAll(() => stack?.stop());

  const keyOf = (caller: IdentityName) => stack.identities!.env(caller).SERVICE_IDENTITY_KEY;

  /** Calls the first procedure of `service` with an empty message, the header set by `token`; resolves with the Connect code (Ok when it answered). */
  async function codeOf(name: ServiceName, service: DescService, token?: (audience: string) => string): Promise<Code | "ok"> {
    // Runs after the transport's own identity interceptor (this process's development caller):
    // replaces or removes its header.
    const setToken: Interceptor = (next) => (request) => {
      if (token) request.header.set(SERVICE_IDENTITY_HEADER, token(name));
      else request.header.delete(SERVICE_IDENTITY_HEADER);
      return next(request);
    };
    const client = createClient(service, createServiceTransport(stack.serviceUrls[name], { interceptors: [setToken] })) as unknown as Record<
      string,
      (input: object) => Promise<unknown>
    >;
    const method = service.methods[0]!;
    try {
      if (method.methodKind === "server_streaming") {
        for await (const message of client[method.localName]!({}) as unknown as AsyncIterable<unknown>) void message;
      } else {
        await client[method.localName]!({});
      }
      return "ok";
    } catch (error) {
      return ConnectError.from(error).code;
    }
  }

  it("lets the platform's own calls through: REST reads, a ticket's creation (gateway, tickets, content, players) and the admin tool", async () => {
    const key = tenant.apiKeys.main!;
    const games = await stack.request("/games", { key });
    expect(games.status, games.text).toBe(200);
    const created = await stack.request("/tickets", {
      method: "POST",
      key,
      json: { gameId: tenant.games.galaxy!.id, message: "The shop does not open", language: "en", channels: ["email"], metadata: { player: { id: "p-identity", email: "p@example.com" } } },
    });
    expect(created.status, created.text).toBe(200);
    const tickets = await stack.request("/tickets", { key });
    expect(tickets.status, tickets.text).toBe(200);
    expect(JSON.stringify(tickets.body)).toContain((created.body as { ticketId: string }).ticketId);
    // Resolves only when the tool's call succeeded (it rejects with its exit code otherwise).
    expect(await stack.admin(["api-keys", "create", "--company", tenant.companyId, "--name", "identity"])).toBeTruthy();
  });

  it("refuses the finding's call: a tenant's games read from content's port without identity (401 unauthenticated, no detail)", async () => {
    const response = await fetch(`${stack.serviceUrls.content}/content.v1.ContentService/ListGames`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ companyId: tenant.companyId }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ code: "unauthenticated", message: "missing or invalid service identity" });
  });

  describe.each(SERVICES.map(({ name, service }) => [service.typeName, name, service] as const))("%s", (typeName, name, service) => {
    it("refuses a call without identity, from this process's development caller, with a forged, an expired or a misaddressed token", async () => {
      const caller = ALLOWED_CALLERS[typeName]![0]!;
      expect(await codeOf(name, service)).toBe(Code.Unauthenticated);
      expect(await codeOf(name, service, (to) => defaultServiceCaller({})!.tokenFor(to))).toBe(Code.Unauthenticated);
      expect(await codeOf(name, service, (to) => createServiceCaller(caller, generateIdentityKey().privateKey).tokenFor(to))).toBe(Code.Unauthenticated);
      const hourAgo = Date.now() - 3_600_000;
      expect(await codeOf(name, service, (to) => createServiceCaller(caller, keyOf(caller), () => hourAgo).tokenFor(to))).toBe(Code.Unauthenticated);
      const elsewhere = name === "content" ? "media" : "content";
      expect(await codeOf(name, service, () => createServiceCaller(caller, keyOf(caller)).tokenFor(elsewhere))).toBe(Code.Unauthenticated);
    });

    it("refuses the callers it does not allow and lets the allowed ones reach the handler", async () => {
      const allowed = ALLOWED_CALLERS[typeName]!;
      for (const caller of IDENTITY_NAMES) {
        const code = await codeOf(name, service, (to) => createServiceCaller(caller, keyOf(caller)).tokenFor(to));
        if (!allowed.includes(caller)) {
          // The admin services check their admin token first (absent here): refused either way.
          expect([Code.PermissionDenied, ...(typeName.includes("Admin") ? [Code.Unauthenticated] : [])], `${caller} -> ${typeName}: ${String(code)}`).toContain(code);
        } else if (!typeName.includes("Admin")) {
          // Past the identity check: the handler answers the empty request (or refuses its content).
          expect([Code.Unauthenticated, Code.PermissionDenied], `${caller} -> ${typeName}`).not.toContain(code);
        }
      }
    });
  });

  it("keeps grpc.health.v1 and /healthz, /readyz open for probes on every service", async () => {
    for (const url of Object.values(stack.serviceUrls)) {
      const noIdentity: Interceptor = (next) => (request) => (request.header.delete(SERVICE_IDENTITY_HEADER), next(request));
      const client = createClient(health.Health, createServiceTransport(url, { interceptors: [noIdentity] }));
      expect((await client.check({ service: "" })).status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    }
  });
});
