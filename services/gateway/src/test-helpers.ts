// Test support for the handler tests: an in-memory ContentService and health services behind
// Connect's router transport, a captured logger and a gateway started on a free port.
// Not part of the package's public API.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import type { NatsConnection } from "@support/bus";
import { createLogger, type Logger } from "@support/logging";
import { AgentAccessService, CannedResponseService, CompanySettingsService, ContentService, EmailService, health, MediaService, PlayerSideService, PlayersService, TicketsService, WebhooksService } from "@support/proto";
import { AppError } from "@support/errors";
import { appErrorToConnect, domainTransport } from "@support/rpc";
import type { AgentAccessClient, GatewayClients, PlayersClient, ServiceName, WebhooksClient } from "./clients.ts";
import { loadGatewayConfig, type GatewayConfig } from "./config.ts";
import { createServer, type Gateway } from "./server.ts";

interface FakeGame {
  id: string;
  companyId: string;
  name: string;
  slug: string;
  languages: string[];
  deleted: boolean;
}

interface FakeAnnouncement {
  shortContent: JsonObject;
  longContent: JsonObject;
}

const CREATED = new Date("2026-01-02T03:04:05.000Z");
const UPDATED = new Date("2026-02-03T04:05:06.000Z");

/** ContentService in memory, with call counters and switchable failures. */
export class FakeContent {
  readonly calls = new Map<string, number>();
  /** When set, every call fails with this error. */
  failure: Error | undefined;
  /** Delays every answer (to test coalescing of concurrent misses). */
  delayMs = 0;
  /** Answers games without timestamps (a broken contract: the gateway must fail with a bare 500). */
  omitTimestamps = false;
  readonly keys = new Map<string, { companyId: string; revoked: boolean }>();
  readonly games: FakeGame[] = [];
  readonly announcements = new Map<string, Map<string, FakeAnnouncement>>();
  readonly primaryLanguage = new Map<string, string>();

  count(method: string): number {
    return this.calls.get(method) ?? 0;
  }

  /** Creates a key for a company and returns the plain key. */
  addKey(companyId: string): string {
    const key = `sk_test_${randomUUID().replaceAll("-", "")}`;
    this.keys.set(createHash("sha256").update(key).digest("hex"), { companyId, revoked: false });
    return key;
  }

  revoke(key: string): string {
    const hash = createHash("sha256").update(key).digest("hex");
    this.keys.get(hash)!.revoked = true;
    return hash;
  }

  addGame(companyId: string, name: string): FakeGame {
    const game = { id: randomUUID(), companyId, name, slug: name.toLowerCase(), languages: ["en", "de"], deleted: false };
    this.games.push(game);
    return game;
  }

  async enter(method: string): Promise<void> {
    this.calls.set(method, this.count(method) + 1);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.failure) throw this.failure;
  }

  liveGame(companyId: string, gameId: string | undefined): void {
    if (gameId === undefined) return;
    if (!this.games.some((game) => game.id === gameId && game.companyId === companyId && !game.deleted)) {
      throw new ConnectError("Game not found", Code.NotFound);
    }
  }

  client(): GatewayClients["content"] {
    const transport = createRouterTransport(({ service }) =>
      service(ContentService, {
        authenticateApiKey: async ({ keyHash }) => {
          await this.enter("authenticateApiKey");
          const key = this.keys.get(keyHash);
          if (!key || key.revoked) throw new ConnectError("api key not found", Code.NotFound);
          return { companyId: key.companyId, apiKeyId: "k1" };
        },
        listGames: async ({ companyId }) => {
          await this.enter("listGames");
          return {
            games: this.games
              .filter((game) => game.companyId === companyId && !game.deleted)
              .map((game) =>
                this.omitTimestamps ? game : { ...game, createdAt: timestampFromDate(CREATED), updatedAt: timestampFromDate(UPDATED) },
              ),
          };
        },
        listTags: async ({ companyId }) => {
          await this.enter("listTags");
          const game = this.games.find((g) => g.companyId === companyId);
          return {
            tags: [
              { name: `vip-${companyId}`, description: "Very important", isAiTag: false, isSkill: true, createdAt: timestampFromDate(CREATED), updatedAt: timestampFromDate(UPDATED) },
              { gameId: game?.id, name: "billing", isAiTag: true, isSkill: false, createdAt: timestampFromDate(CREATED), updatedAt: timestampFromDate(UPDATED) },
            ],
          };
        },
        listFields: async () => {
          await this.enter("listFields");
          return {
            fields: [
              { name: "Server", key: "server", type: "dropdown", description: "Game server", isAiField: false, options: ["eu", "us"] },
              { name: "Level", key: "level", type: "number", isAiField: true, options: [] },
            ],
          };
        },
        listAnnouncements: async ({ companyId }) => {
          // Read before the delay: a slow answer carries the data of when it was asked.
          const byGame = this.announcements.get(companyId) ?? new Map<string, FakeAnnouncement>();
          const announcements = [...byGame.entries()]
            .sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b)))
            .map(([gameId, announcement]) => ({ gameId: gameId || undefined, ...announcement }));
          await this.enter("listAnnouncements");
          return { announcements };
        },
        putAnnouncement: async ({ companyId, gameId, shortContent, longContent }) => {
          await this.enter("putAnnouncement");
          this.liveGame(companyId, gameId);
          const primary = this.primaryLanguage.get(companyId) ?? "en";
          const text = shortContent?.[primary];
          if (typeof text !== "string" || text.trim() === "") {
            throw new ConnectError(`shortContent must be nonblank in ${primary}`, Code.InvalidArgument);
          }
          const stored = { shortContent: shortContent ?? {}, longContent: longContent ?? {} };
          const byGame = this.announcements.get(companyId) ?? new Map<string, FakeAnnouncement>();
          byGame.set(gameId ?? "", stored);
          this.announcements.set(companyId, byGame);
          return { announcement: { gameId, ...stored } };
        },
        deleteAnnouncement: async ({ companyId, gameId }) => {
          await this.enter("deleteAnnouncement");
          this.liveGame(companyId, gameId);
          this.announcements.get(companyId)?.delete(gameId ?? "");
          return {};
        },
      }),
    );
    // Like the real clients: calls answer AppErrors, faults become the fixed texts.
    return createClient(ContentService, domainTransport(transport, 5000));
  }
}

interface FakeAgentUser {
  id: string;
  companyId: string;
  name: string;
  displayName: string;
  email: string;
  role: string;
  gameIds: string[];
  skills: string[];
  /** Routing's settings of the user (the fake keeps what content would answer). */
  available: boolean;
  languages: string[];
  capacity: number;
  password: string;
  /** Two-factor on: the one code the fake accepts (once per sign-in) and the recovery codes left. */
  twoFactor?: { code: string; recoveryCodes: string[] } | undefined;
  /** The company requires two-factor: without it the user gets a session limited to enrolment. */
  requireTwoFactor?: boolean;
}

interface FakeAgentSession {
  id: string;
  token: string;
  userId: string;
  csrfToken: string;
  createdAt: Date;
  idleExpiresAt: Date;
  expiresAt: Date;
  ended: boolean;
  scope?: string;
}

/** The code the fake's enrolment confirms with. */
export const FAKE_ENROLMENT_CODE = "654321";

/**
 * content's AgentAccessService in memory, shared by every gateway of a test (as content is by
 * the replicas): users with plain passwords, sessions by token, a lockout switch, call
 * counters, and the ids of the sessions each sign-out ended (what content would publish).
 */
export class FakeAgentAccess {
  readonly calls = new Map<string, number>();
  readonly users: FakeAgentUser[] = [];
  readonly sessions: FakeAgentSession[] = [];
  /** Every SignIn request as received (to check the address and user agent passed on). */
  readonly signIns: { email: string; clientAddress: string; userAgent: string }[] = [];
  /** When set, SignIn answers RESOURCE_EXHAUSTED SIGN_IN_LOCKED with this many seconds. */
  lockedForSeconds: number | undefined;
  /** Told the session ids whenever sessions end (a test publishes content.agent_sessions.ended with them). */
  onEnded: ((userId: string, sessionIds: string[]) => void) | undefined;
  /** Two-factor challenges by token (content keeps only hashes; the fake needs no such care). */
  readonly challenges = new Map<string, { userId: string; used: boolean }>();

  count(method: string): number {
    return this.calls.get(method) ?? 0;
  }

  addUser(overrides: Partial<FakeAgentUser> = {}): FakeAgentUser {
    const user = {
      id: randomUUID(), companyId: randomUUID(), name: "Ada Lovelace", displayName: "Ada", email: `ada-${randomUUID().slice(0, 8)}@example.com`,
      role: "agent", gameIds: [randomUUID()], skills: [], available: false, languages: [], capacity: 10, password: "correct horse battery staple", ...overrides,
    };
    this.users.push(user);
    return user;
  }

  private enter(method: string): void {
    this.calls.set(method, this.count(method) + 1);
  }

  private live(token: string): FakeAgentSession {
    const session = this.sessions.find((s) => s.token === token && !s.ended && s.expiresAt > new Date() && s.idleExpiresAt > new Date());
    if (!session) throw new ConnectError("The session has ended", Code.Unauthenticated);
    return session;
  }

  private toMessage(session: FakeAgentSession) {
    const user = this.users.find((u) => u.id === session.userId)!;
    return {
      id: session.id,
      user: { id: user.id, companyId: user.companyId, name: user.name, displayName: user.displayName, email: user.email, role: user.role, gameIds: user.gameIds, skills: user.skills, available: user.available, languages: user.languages, capacity: user.capacity },
      csrfToken: session.csrfToken,
      createdAt: timestampFromDate(session.createdAt),
      idleExpiresAt: timestampFromDate(session.idleExpiresAt),
      expiresAt: timestampFromDate(session.expiresAt),
      scope: session.scope ?? "full",
      twoFactorEnabled: user.twoFactor !== undefined,
      twoFactorRequired: user.requireTwoFactor ?? false,
    };
  }

  private open(user: FakeAgentUser, scope = "full"): FakeAgentSession {
    const now = Date.now();
    const session = {
      id: randomUUID(), token: randomBytes(32).toString("base64url"), userId: user.id, csrfToken: randomBytes(32).toString("base64url"),
      createdAt: new Date(now), idleExpiresAt: new Date(now + 12 * 3600_000), expiresAt: new Date(now + 7 * 86_400_000), ended: false, scope,
    };
    this.sessions.push(session);
    return session;
  }

  private end(ended: FakeAgentSession[]): void {
    for (const session of ended) session.ended = true;
    if (ended.length > 0) this.onEnded?.(ended[0]!.userId, ended.map((s) => s.id));
  }

  client(): AgentAccessClient {
    const transport = createRouterTransport(({ service }) =>
      service(AgentAccessService, {
        signIn: async ({ email, password, clientAddress, userAgent }) => {
          this.enter("signIn");
          this.signIns.push({ email, clientAddress, userAgent });
          if (this.lockedForSeconds !== undefined) {
            throw appErrorToConnect(new AppError("rate_limited", "Too many failed sign-ins", { type: "SIGN_IN_LOCKED", payload: { retryAfterSeconds: this.lockedForSeconds } }));
          }
          const user = this.users.find((u) => u.email === email.toLowerCase());
          if (!user || user.password !== password) throw new ConnectError("The email or password is wrong", Code.Unauthenticated);
          if (user.twoFactor) {
            const challenge = randomBytes(32).toString("base64url");
            this.challenges.set(challenge, { userId: user.id, used: false });
            return { twoFactorChallenge: challenge, twoFactorChallengeExpiresAt: timestampFromDate(new Date(Date.now() + 300_000)) };
          }
          const session = this.open(user, user.requireTwoFactor ? "two_factor_enrolment" : "full");
          return { sessionToken: session.token, session: this.toMessage(session) };
        },
        completeTwoFactorSignIn: async ({ challenge, code }) => {
          this.enter("completeTwoFactorSignIn");
          if (this.lockedForSeconds !== undefined) {
            throw appErrorToConnect(new AppError("rate_limited", "Too many failed sign-ins", { type: "SIGN_IN_LOCKED", payload: { retryAfterSeconds: this.lockedForSeconds } }));
          }
          const waiting = this.challenges.get(challenge);
          const user = waiting && !waiting.used ? this.users.find((u) => u.id === waiting.userId) : undefined;
          if (!waiting || !user?.twoFactor) throw new ConnectError("The sign-in expired or was already completed: sign in again with the email and password", Code.Unauthenticated);
          const recovery = user.twoFactor.recoveryCodes.indexOf(code);
          if (code !== user.twoFactor.code && recovery < 0) throw new ConnectError("The code is wrong", Code.Unauthenticated);
          if (recovery >= 0) user.twoFactor.recoveryCodes.splice(recovery, 1);
          waiting.used = true;
          const session = this.open(user);
          return { sessionToken: session.token, session: this.toMessage(session), recoveryCodeUsed: recovery >= 0, recoveryCodesLeft: user.twoFactor.recoveryCodes.length };
        },
        startTwoFactorEnrolment: async ({ sessionToken }) => {
          this.enter("startTwoFactorEnrolment");
          const user = this.users.find((u) => u.id === this.live(sessionToken).userId)!;
          if (user.twoFactor) throw appErrorToConnect(new AppError("failed_precondition", "Two-factor is on already", { type: "TWO_FACTOR_ALREADY_ENABLED" }));
          return { otpauthUri: `otpauth://totp/Player%20Support:${encodeURIComponent(user.email)}?issuer=Player%20Support&secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30`, secret: "JBSWY3DPEHPK3PXP" };
        },
        confirmTwoFactorEnrolment: async ({ sessionToken, code }) => {
          this.enter("confirmTwoFactorEnrolment");
          const old = this.live(sessionToken);
          const user = this.users.find((u) => u.id === old.userId)!;
          if (code !== FAKE_ENROLMENT_CODE) throw appErrorToConnect(new AppError("invalid_argument", "The code is wrong", { type: "VALIDATION_ERROR", issues: [{ path: "/code", message: "is not a current code of the authenticator app" }] }));
          const recoveryCodes = Array.from({ length: 10 }, (_, i) => `code-${i}-${randomBytes(3).toString("hex")}`);
          user.twoFactor = { code: "111111", recoveryCodes: [...recoveryCodes] };
          this.end([old]);
          const session = this.open(user);
          return { recoveryCodes, sessionToken: session.token, session: this.toMessage(session) };
        },
        getAgentSession: async ({ sessionToken }) => {
          this.enter("getAgentSession");
          const session = this.live(sessionToken);
          session.idleExpiresAt = new Date(Math.min(Date.now() + 12 * 3600_000, session.expiresAt.getTime()));
          return { session: this.toMessage(session) };
        },
        signOut: async ({ sessionToken }) => {
          this.enter("signOut");
          this.end(this.sessions.filter((s) => s.token === sessionToken && !s.ended));
          return {};
        },
        signOutEverywhere: async ({ sessionToken }) => {
          this.enter("signOutEverywhere");
          const { userId } = this.live(sessionToken);
          const ended = this.sessions.filter((s) => s.userId === userId && !s.ended);
          this.end(ended);
          return { ended: ended.length };
        },
      }),
    );
    return createClient(AgentAccessService, domainTransport(transport, 5000));
  }
}

/** grpc.health.v1 of the six services; `down` lists the ones that answer NOT_SERVING or fail. */
export function fakeHealth(down: Set<ServiceName>, calls?: { count: number }): GatewayClients["health"] {
  const make = (name: ServiceName) =>
    createClient(
      health.Health,
      createRouterTransport(({ service }) =>
        service(health.Health, {
          check: async () => {
            if (calls) calls.count++;
            if (down.has(name)) throw new ConnectError("connect ECONNREFUSED 10.1.2.3:50052", Code.Unavailable);
            return { status: health.HealthCheckResponse_ServingStatus.SERVING };
          },
        }),
      ),
    );
  return { content: make("content"), tickets: make("tickets"), media: make("media"), players: make("players"), webhooks: make("webhooks"), email: make("email") };
}

/** A logger whose JSON lines are kept in `lines`. */
export function captureLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ service: "gateway-test", level: "info", destination }), lines };
}

export function testConfig(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...loadGatewayConfig({ HOST: "127.0.0.1", LOG_LEVEL: "silent", METRICS_PORT: "0" }), PORT: 0, ...overrides };
}

export interface TestGateway {
  gateway: Gateway;
  content: FakeContent;
  agentAccess: FakeAgentAccess;
  down: Set<ServiceName>;
  lines: Record<string, unknown>[];
  url: string;
  /** fetch against the gateway; a JSON body object is serialized with its content type. */
  request(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<{ status: number; headers: Headers; body: unknown; text: string }>;
  stop(): Promise<void>;
}

export async function startTestGateway(
  options: { config?: Partial<GatewayConfig>; nc?: NatsConnection; content?: FakeContent; agentAccess?: FakeAgentAccess; webhooks?: WebhooksClient; players?: PlayersClient } = {},
): Promise<TestGateway> {
  const content = options.content ?? new FakeContent();
  const agentAccess = options.agentAccess ?? new FakeAgentAccess();
  const down = new Set<ServiceName>();
  const { logger, lines } = captureLogger();
  const gateway = createServer({
    config: testConfig(options.config),
    logger,
    // Tickets and attachment routes are exercised against the real services (test/tickets.test.ts,
    // test/attachments.test.ts); here a router without services answers their calls with Unimplemented.
    clients: {
      content: content.client(),
      agentAccess: agentAccess.client(),
      // Canned responses are exercised against the real content service (test/agent-canned-responses.test.ts).
      cannedResponses: createClient(CannedResponseService, createRouterTransport(() => undefined)),
      // The settings are exercised against the real content service (test/agent-settings.test.ts).
      companySettings: createClient(CompanySettingsService, createRouterTransport(() => undefined)),
      tickets: createClient(TicketsService, createRouterTransport(() => undefined)),
      media: createClient(MediaService, createRouterTransport(() => undefined)),
      players: options.players ?? createClient(PlayersService, createRouterTransport(() => undefined)),
      playerSide: createClient(PlayerSideService, createRouterTransport(() => undefined)),
      webhooks: options.webhooks ?? createClient(WebhooksService, createRouterTransport(() => undefined)),
      email: createClient(EmailService, createRouterTransport(() => undefined)),
      health: fakeHealth(down),
    },
    nc: options.nc,
    // The in-memory NATS has no JetStream: the agents' live routes are tested on real NATS.
    agentLive: false,
  });
  const { port } = await gateway.start();
  const url = `http://127.0.0.1:${port}`;
  return {
    gateway,
    content,
    agentAccess,
    down,
    lines,
    url,
    async request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.key !== undefined) headers.set("authorization", `Bearer ${init.key}`);
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        if (!headers.has("content-type")) headers.set("content-type", "application/json");
      }
      const response = await fetch(url + path, { ...init, headers, body });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    stop: () => gateway.stop(),
  };
}

/** The part of a NATS connection the gateway uses, in memory: publish events, simulate reconnects. */
export function fakeNats(): { nc: NatsConnection; subjects: string[]; publish(subject: string, payload: unknown): void; status(type: string): void } {
  const subscriptions: { subject: string; callback: (error: Error | null, msg: { subject: string; string(): string }) => void; closed: boolean }[] = [];
  const waiting: ((result: IteratorResult<{ type: string }>) => void)[] = [];
  const queued: { type: string }[] = [];
  const matches = (pattern: string, subject: string) =>
    pattern.endsWith(">") ? subject.startsWith(pattern.slice(0, -1)) : pattern === subject;
  const nc = {
    subscribe(subject: string, options: { callback: (typeof subscriptions)[number]["callback"] }) {
      const entry = { subject, callback: options.callback, closed: false };
      subscriptions.push(entry);
      return { unsubscribe: () => void (entry.closed = true), isClosed: () => entry.closed };
    },
    status() {
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => {
            const value = queued.shift();
            if (value) return Promise.resolve({ value, done: false as const });
            return new Promise<IteratorResult<{ type: string }>>((resolve) => waiting.push(resolve));
          },
        }),
        stop: () => {
          for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
        },
      };
    },
    flush: async () => {},
    // The gateway drains its connection at stop.
    closed: false,
    isClosed() {
      return this.closed;
    },
    async drain() {
      this.closed = true;
    },
  };
  return {
    nc: nc as unknown as NatsConnection,
    get subjects() {
      return subscriptions.map((s) => s.subject);
    },
    publish(subject, payload) {
      const data = typeof payload === "string" ? payload : JSON.stringify(payload);
      for (const s of subscriptions) if (!s.closed && matches(s.subject, subject)) s.callback(null, { subject, string: () => data });
    },
    status(type) {
      const resolve = waiting.shift();
      if (resolve) resolve({ value: { type }, done: false });
      else queued.push({ type });
    },
  };
}
