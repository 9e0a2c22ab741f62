// The API of the web support page through the real stack: the session's page data (and the page
// served with it at /support/?sid=) with
// localized resources, collector answers checked against the game's definition, the live
// ticket stream (Server-Sent Events: replay, resume with Last-Event-ID without loss or
// duplicates, live updates through tickets' NATS events, isolation between players and
// companies, the per-session bound), the player's attachment downloads, and CORS for the
// configured origins only. Every JSON answer is checked against the OpenAPI document by
// stack.request; the streams are read with fetch() like the page reads them.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startStack, type RequestOptions, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const ALLOWED_ORIGIN = "https://help.example.com";

const contactForm = {
  ref: "contact",
  title: "Contact us",
  contactForm: true,
  fields: [
    { key: "topic", label: "Topic", type: "DROPDOWN", options: ["Billing", "Bug"], required: true },
    { key: "platforms", label: "Platforms", type: "SELECT_GROUP", options: ["pc", "ps5", "switch"] },
    { key: "device", label: "Device", type: "PLATFORM_SELECTOR", options: ["ios", "android"] },
    { key: "email", label: "Email", type: "EMAIL" },
    { key: "when", label: "When", type: "DATE" },
    { key: "details", label: "Details", type: "TEXT", required: true },
    { key: "consent", label: "I agree", type: "CHECKBOX", required: true },
    { key: "shot", label: "Screenshot", type: "FILE" },
  ],
};

const tenantWeb = {
  company: { name: "Web Studio", primaryLanguage: "en" },
  apiKeys: [{ name: "main" }],
  games: [
    {
      ref: "galaxy",
      name: "Galaxy Raiders",
      slug: "galaxy-web",
      languages: ["en", "fr", "de"],
      environments: [
        { ref: "prod", name: "production", announcement: { shortContent: { en: "Maintenance tonight", fr: "Maintenance ce soir" }, longContent: { en: "From 22:00" } } },
        { ref: "staging", name: "staging" },
      ],
      resources: [
        { key: "faq", title: { en: "FAQ", fr: "Questions fréquentes" }, body: { en: "# FAQ", fr: "# Questions" } },
        { key: "billing", title: { en: "Billing", de: "Abrechnung" }, body: { de: "Nur **Deutsch**" } },
        { key: "plain", title: "Plain title" },
      ],
      collectors: [contactForm, { ref: "crash", title: "Crash", fields: [{ key: "log", label: "Log", type: "TEXT" }] }],
    },
    { ref: "farm", name: "Pixel Farm", slug: "farm-web", languages: ["es", "en"], environments: [{ ref: "prod", name: "production" }] },
  ],
};

const tenantOther = {
  company: { name: "Other Web Studio" },
  apiKeys: [{ name: "main" }],
  games: [{ ref: "castle", name: "Castle", slug: "castle-web", languages: ["en"], environments: [{ ref: "prod", name: "production" }] }],
};

interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** A stream opened like the page does: fetch() with the session header, read frame by frame. */
interface OpenStream {
  status: number;
  headers: Headers;
  frames: SseFrame[];
  /** The ticket-event frames' data, parsed. */
  events(): { id: string; type: string; message?: string }[];
  statuses(): { status: string; resolutionType: string | null; csatScore: number | null }[];
  waitFor(check: (stream: OpenStream) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
  body: unknown;
}

describe("the web support API through the real stack", () => {
  let stack: Stack;
  let web: TenantResult;
  let other: TenantResult;
  let key: string;
  const streams: OpenStream[] = [];

  beforeAll(async () => {
    stack = await startStack({
      gateway: {
        WEB_SUPPORT_ORIGINS: `${ALLOWED_ORIGIN}, http://localhost:5173`,
        // Live updates must come from tickets' NATS events: the periodic resync is far away.
        PLAYER_STREAM_RESYNC_MS: 600_000,
        PLAYER_STREAM_HEARTBEAT_MS: 300,
        PLAYER_STREAMS_PER_SESSION: 2,
        // The stream tests open many connections: keep the abuse limits out of the way.
        PLAYER_API_RATE_LIMIT_PER_SESSION: 0,
        PLAYER_API_RATE_LIMIT_PER_ADDRESS: 0,
        PUBLIC_RATE_LIMIT_PER_ADDRESS: 0,
      },
    });
    web = await stack.applyTenant(tenantWeb);
    other = await stack.applyTenant(tenantOther);
    key = web.apiKeys.main!;
  });
  afterAll(async () => {
    await Promise.all(streams.map((stream) => stream.close()));
    await stack?.stop();
  });

  async function session(body: Record<string, unknown>, tenant = web, game = "galaxy", environment = "prod"): Promise<string> {
    const token = tenant.games[game]!.environments[environment]!.token;
    const response = await stack.request("/support/sessions", { method: "POST", json: { token, ...body } });
    expect(response.status, response.text).toBe(200);
    return (response.body as { sessionCode: string }).sessionCode;
  }

  const as = (code: string, path: string, options: RequestOptions = {}): Promise<StackResponse> =>
    stack.request(path, { ...options, headers: { ...(options.headers as Record<string, string> | undefined), authorization: `Session ${code}` } });

  const open = async (code: string, message: string): Promise<string> => {
    const response = await as(code, "/player-api/tickets", { method: "POST", json: { message } });
    expect(response.status, response.text).toBe(200);
    return (response.body as { ticketId: string }).ticketId;
  };

  const actions = async (ticketId: string, list: unknown[]) => {
    const response = await stack.request(`/tickets/${ticketId}/actions`, { method: "POST", key, json: { actions: list } });
    expect(response.status, response.text).toBe(200);
  };

  const playerEvents = async (code: string, ticketId: string) =>
    ((await as(code, `/player-api/tickets/${ticketId}/events`)).body as { events: { id: string; type: string; message?: string }[] }).events;

  async function stream(code: string, ticketId: string, lastEventId?: string, baseUrl = stack.url): Promise<OpenStream> {
    const controller = new AbortController();
    const headers: Record<string, string> = { authorization: `Session ${code}` };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    const response = await fetch(`${baseUrl}/player-api/tickets/${ticketId}/stream`, { headers, signal: controller.signal });
    const frames: SseFrame[] = [];
    let finished = false;
    let body: unknown;
    let reading: Promise<void> = Promise.resolve();
    if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      reading = (async () => {
        let buffer = "";
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            let end: number;
            while ((end = buffer.indexOf("\n\n")) >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const frame: SseFrame = {};
              for (const line of block.split("\n")) {
                if (line.startsWith(":")) frame.comment = line.slice(1).trim();
                else {
                  const colon = line.indexOf(":");
                  const field = line.slice(0, colon) as "id" | "event" | "data";
                  frame[field] = line.slice(colon + 1).trimStart();
                }
              }
              frames.push(frame);
            }
          }
        } catch {
          // Aborted by close().
        } finally {
          finished = true;
        }
      })();
    } else {
      const text = await response.text();
      body = text ? JSON.parse(text) : undefined;
      finished = true;
    }
    const opened: OpenStream = {
      status: response.status,
      headers: response.headers,
      frames,
      body,
      events: () => frames.filter((frame) => frame.event === "ticket-event").map((frame) => JSON.parse(frame.data!)),
      statuses: () => frames.filter((frame) => frame.event === "ticket-status").map((frame) => JSON.parse(frame.data!)),
      async waitFor(check, timeoutMs = 15_000) {
        await eventually(async () => {
          if (check(opened)) return true;
          if (finished) throw new Error(`the stream ended; frames: ${JSON.stringify(frames)}`);
          return false;
        }, timeoutMs);
      },
      async close() {
        controller.abort();
        await reading;
      },
      get finished() {
        return finished;
      },
    } as OpenStream;
    streams.push(opened);
    return opened;
  }

  describe("GET /player-api/session and resources", () => {
    it("answers the game, language, environment, known player fields, announcement, resources, opened resource and contact form", async () => {
      const code = await session({ language: "fr", resource: "billing", player: { id: "p-1", name: "Ada" } });
      const response = await as(code, "/player-api/session");
      expect(response.status, response.text).toBe(200);
      const body = response.body as Record<string, unknown>;
      expect(body).toMatchObject({
        game: { id: web.games.galaxy!.id, name: "Galaxy Raiders", languages: ["en", "fr", "de"] },
        language: "fr",
        environment: "production",
        player: { id: "p-1", name: "Ada" },
        // fr has no details: the game's first language's details, which say their language.
        announcement: { text: "Maintenance ce soir", details: "From 22:00", language: "fr", detailsLanguage: "en" },
        // In the file's order; fr where it exists, else the game's languages in order (en before de), else the plain title; each says its language.
        resources: [
          { key: "faq", title: "Questions fréquentes", language: "fr" },
          { key: "billing", title: "Billing", language: "en" },
          { key: "plain", title: "Plain title" },
        ],
        // A body only in de: the first nonblank along fr, en, de.
        // The opened article in one language: its title and body never mix two (en title, de body).
        resource: { key: "billing", title: "Abrechnung", body: "Nur **Deutsch**", language: "de" },
      });
      expect(body.player).toEqual({ id: "p-1", name: "Ada" });
      expect(Date.parse(body.expiresAt as string)).toBeGreaterThan(Date.now());
      expect(body.contactForm).toEqual({
        id: web.games.galaxy!.collectors.contact,
        title: "Contact us",
        fields: contactForm.fields.map((field) => ({ required: false, ...field, key: field.key })),
      });
    });

    it("uses the game's first language without a session language, and null where there is nothing", async () => {
      const code = await session({}, web, "galaxy", "staging");
      const body = (await as(code, "/player-api/session")).body as Record<string, unknown>;
      expect(body).toMatchObject({ language: "en", environment: "staging", player: {}, announcement: null, resource: null });
      const farm = (await as(await session({}, web, "farm"), "/player-api/session")).body as Record<string, unknown>;
      expect(farm).toMatchObject({ language: "es", resources: [], contactForm: null, announcement: null });
    });

    it("reads one resource localized like the session, 404 for an unknown key or another game's", async () => {
      const de = await session({ language: "de" });
      expect((await as(de, "/player-api/resources/billing")).body).toEqual({ key: "billing", title: "Abrechnung", body: "Nur **Deutsch**", language: "de" });
      // No de text: the game's languages in order (en first), title and body from the same one.
      expect((await as(de, "/player-api/resources/faq")).body).toEqual({ key: "faq", title: "FAQ", body: "# FAQ", language: "en" });
      expect((await as(de, "/player-api/resources/plain")).body).toEqual({ key: "plain", title: "Plain title", body: null, language: "en" });
      // An English session of the same game: billing has no English body, so it is German throughout.
      expect((await as(await session({ language: "en" }), "/player-api/resources/billing")).body).toEqual({ key: "billing", title: "Abrechnung", body: "Nur **Deutsch**", language: "de" });
      expect((await as(de, "/player-api/resources/nope")).status).toBe(404);
      expect((await as(await session({}, web, "farm"), "/player-api/resources/faq")).status).toBe(404);
      expect((await stack.request("/player-api/resources/faq")).status).toBe(403);
    });
  });

  describe("the page served with its session's data (GET /support/?sid=)", () => {
    const INDEX = '<!doctype html><html><head><script type="module" crossorigin src="./assets/index-abc.js"></script></head><body><div id="app"></div></body></html>';
    let dir: string;
    let page: Awaited<ReturnType<Stack["startGateway"]>>;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "web-support-page-"));
      await mkdir(join(dir, "assets"));
      await writeFile(join(dir, "index.html"), INDEX);
      await writeFile(join(dir, "assets", "index-abc.js"), "export {};");
      await writeFile(join(dir, "assets", "fr-abc12345.js"), "export const fr = {};");
      // As the page's build writes it: lower-case tags (aliases included) to their catalog chunk.
      await writeFile(join(dir, "catalogs.json"), JSON.stringify({ fr: "assets/fr-abc12345.js", de: "assets/de-abc12345.js" }));
      page = await stack.startGateway({ WEB_SUPPORT_DIR: dir, PLAYER_API_RATE_LIMIT_PER_SESSION: 4 });
    });
    afterAll(async () => {
      await page?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    /** The page as a browser gets it (not an operation of the API: not checked against the document). */
    const get = async (path: string) => {
      const response = await fetch(`${page.url}${path}`);
      return { status: response.status, headers: response.headers, text: await response.text() };
    };

    /** The JSON data block of a served page, or undefined. */
    const dataOf = (html: string) => {
      const found = /<script type="application\/json" id="support-page-data">(.*?)<\/script>/s.exec(html);
      return found ? (JSON.parse(found[1]!) as { session: unknown; tickets: unknown[] }) : undefined;
    };

    it("carries the session and the conversations as the player API answers them, never stored, and preloads the session language's catalog", async () => {
      const code = await session({ language: "fr", player: { id: "page-1", name: "Zoé" } });
      const ticketId = await open(code, "My ship is gone");
      const response = await get(`/support/?sid=${encodeURIComponent(code)}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("content-security-policy")).toContain("script-src 'self';");
      const data = dataOf(response.text);
      expect(data).toBeDefined();
      const [sessionAnswer, ticketsAnswer] = await Promise.all([as(code, "/player-api/session"), as(code, "/player-api/tickets")]);
      expect(data!.session).toEqual(sessionAnswer.body);
      expect(data!.tickets).toEqual((ticketsAnswer.body as { tickets: unknown[] }).tickets);
      expect(data!.tickets).toMatchObject([{ id: ticketId, lastMessage: { preview: "My ship is gone" } }]);
      expect(response.text).toContain('<link rel="modulepreload" crossorigin href="./assets/fr-abc12345.js">');
      // The page's own markup is untouched around it.
      expect(response.text.startsWith(INDEX.slice(0, INDEX.indexOf("</head>")))).toBe(true);
      expect(response.text.endsWith(INDEX.slice(INDEX.indexOf("</head>")))).toBe(true);
    });

    it("preloads nothing for English (its texts are in the page's own script)", async () => {
      const english = await get(`/support/?sid=${encodeURIComponent(await session({ language: "en" }))}`);
      expect(dataOf(english.text)).toMatchObject({ session: { language: "en" }, tickets: [] });
      expect(english.text).not.toContain("modulepreload");
    });

    it("keeps text that could end the data block inert", async () => {
      const code = await session({ player: { id: "page-2", name: "</script><script>alert(1)</script><!--" } });
      const response = await get(`/support/?sid=${encodeURIComponent(code)}`);
      expect(response.text).not.toContain("<script>alert(1)");
      expect(response.text.match(/<\/script>/g)).toHaveLength(2);
      expect(dataOf(response.text)!.session).toMatchObject({ player: { name: "</script><script>alert(1)</script><!--" } });
    });

    it("serves the page as it is for an unknown code, another path's code or none, and counts the data against the session's limit", async () => {
      for (const path of ["/support/?sid=made-up-code", "/support/", `/support/?sid=${"x".repeat(300)}`]) {
        const response = await get(path);
        expect(response.status, path).toBe(200);
        expect(response.text, path).toBe(INDEX);
        expect(response.headers.get("cache-control"), path).toBe("no-cache");
      }
      // Four requests per session and window on this replica: the fifth page comes without data.
      const code = await session({ player: { id: "page-3" } });
      for (let served = 0; served < 4; served++) expect(dataOf((await get(`/support/?sid=${encodeURIComponent(code)}`)).text)).toBeDefined();
      const limited = await get(`/support/?sid=${encodeURIComponent(code)}`);
      expect(limited.status).toBe(200);
      expect(limited.text).toBe(INDEX);
    });
  });

  describe("collector answers against the definition", () => {
    type Answer = { key: string; label: string; type: string; value?: unknown; attachments?: string[] };
    const answers = (): Answer[] => [
      { key: "topic", label: "whatever", type: "DROPDOWN", value: ["Bug"] },
      { key: "platforms", label: "P", type: "SELECT_GROUP", value: ["pc", "switch"] },
      { key: "device", label: "D", type: "PLATFORM_SELECTOR", value: "ios" },
      { key: "email", label: "E", type: "EMAIL", value: "ada@example.com" },
      { key: "when", label: "W", type: "DATE", value: "2026-11-20" },
      { key: "details", label: "D", type: "TEXT", value: "It crashes" },
      { key: "consent", label: "C", type: "CHECKBOX", value: true },
      { key: "shot", label: "S", type: "FILE", attachments: [] as string[] },
    ];
    let code: string;
    let ticketId: string;
    const post = (fields: unknown[], collectorId = web.games.galaxy!.collectors.contact!) =>
      as(code, `/player-api/tickets/${ticketId}/collector-results`, { method: "POST", json: { collectorId, title: "anything", fields } });
    const issuesOf = (response: StackResponse) =>
      ((response.body as { details?: { issues?: { path: string }[] } }).details?.issues ?? []).map((issue) => issue.path).sort();

    beforeAll(async () => {
      code = await session({ player: { id: "collector-1" } });
      ticketId = await open(code, "Contact form");
    });

    it("stores valid answers with the definition's title and labels", async () => {
      const response = await post(answers());
      expect(response.status, response.text).toBe(200);
      const events = await playerEvents(code, ticketId);
      expect(events.at(-1)).toMatchObject({
        type: "COLLECTOR_RESULT",
        collectorId: web.games.galaxy!.collectors.contact,
        title: "Contact us",
        fields: expect.arrayContaining([{ key: "topic", label: "Topic", type: "DROPDOWN", value: ["Bug"] }]),
      });
    });

    it("refuses missing required fields, values outside the options, wrong types, unknown and repeated keys", async () => {
      const missing = await post(answers().filter((answer) => answer.key !== "topic" && answer.key !== "details"));
      expect(missing.status).toBe(400);
      expect(issuesOf(missing)).toEqual(["/fields", "/fields"]);

      const bad = answers();
      bad[0] = { ...bad[0]!, value: ["Refund"] };
      bad[1] = { ...bad[1]!, value: ["pc", "xbox"] };
      bad[2] = { ...bad[2]!, value: "windows phone" };
      bad[3] = { ...bad[3]!, value: "not-an-email" };
      bad[4] = { ...bad[4]!, value: "2026-02-30" };
      bad[5] = { ...bad[5]!, value: "  " };
      bad[6] = { ...bad[6]!, value: false };
      const refused = await post(bad);
      expect(refused.status).toBe(400);
      expect(issuesOf(refused)).toEqual([
        "/fields/0/value/0", "/fields/1/value/1", "/fields/2/value", "/fields/3/value", "/fields/4/value", "/fields/5/value", "/fields/6/value",
      ]);

      const typed = answers();
      typed[5] = { key: "details", label: "D", type: "EMAIL", value: "a@b.example" };
      expect(issuesOf(await post(typed))).toEqual(["/fields/5/type"]);
      expect(issuesOf(await post([...answers(), { key: "extra", label: "X", type: "TEXT", value: "x" }]))).toEqual(["/fields/8/key"]);
      expect(issuesOf(await post([...answers(), answers()[5]!]))).toEqual(["/fields/8/key"]);
      const two = answers();
      two[0] = { ...two[0]!, value: ["Bug", "Billing"] };
      expect(issuesOf(await post(two))).toEqual(["/fields/0/value"]);
    });

    it("refuses a collector of another game or company and an unknown one (/collectorId)", async () => {
      const farmCode = await session({ player: { id: "collector-1" } }, web, "farm");
      const farmTicket = await open(farmCode, "Farm ticket");
      const foreign = await as(farmCode, `/player-api/tickets/${farmTicket}/collector-results`, {
        method: "POST", json: { collectorId: web.games.galaxy!.collectors.crash, title: "Crash", fields: [{ key: "log", label: "Log", type: "TEXT", value: "x" }] },
      });
      expect(foreign.status).toBe(400);
      expect(issuesOf(foreign)).toEqual(["/collectorId"]);
      expect(issuesOf(await post(answers(), "5b0c7a3e-1d2f-4e5a-9b8c-7d6e5f4a3b2c"))).toEqual(["/collectorId"]);
      const otherCode = await session({ player: { id: "collector-1" } }, other, "castle");
      const otherTicket = await open(otherCode, "Other company");
      const response = await as(otherCode, `/player-api/tickets/${otherTicket}/collector-results`, {
        method: "POST", json: { collectorId: web.games.galaxy!.collectors.contact, title: "x", fields: answers() },
      });
      expect(issuesOf(response)).toEqual(["/collectorId"]);
    });
  });

  describe("the live ticket stream", () => {
    it("replays the conversation, follows agent messages and status changes live, never a private note", async () => {
      const code = await session({ player: { id: "stream-1" } });
      const ticketId = await open(code, "Hello from the page");
      const live = await stream(code, ticketId);
      expect(live.status).toBe(200);
      expect(live.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      await live.waitFor((s) => s.events().length === 1 && s.statuses().length === 1);
      expect(live.events()[0]).toMatchObject({ type: "PLAYER_MESSAGE", message: "Hello from the page" });
      expect(live.statuses()[0]).toEqual({ status: "new", resolutionType: null, csatScore: null });
      // Each event frame's id is the event's id (the resume cursor).
      expect(live.frames.filter((frame) => frame.event === "ticket-event").map((frame) => frame.id)).toEqual(live.events().map((event) => event.id));

      await actions(ticketId, [{ type: "addPrivateNote", message: "internal only" }, { type: "sendMessage", message: "Agent here" }]);
      await live.waitFor((s) => s.events().some((event) => event.message === "Agent here"));
      expect(live.events().map((event) => event.type)).toEqual(["PLAYER_MESSAGE", "AGENT_MESSAGE"]);

      await actions(ticketId, [{ type: "resolveTicket" }]);
      // A ticket closed as resolved without a rating: the page asks for the CSAT.
      await live.waitFor((s) => s.statuses().some((status) => status.status === "closed"));
      expect(live.statuses().at(-1)).toEqual({ status: "closed", resolutionType: "resolved", csatScore: null });
      await live.waitFor((s) => s.events().some((event) => event.type === "END"));
      expect((await as(code, `/player-api/tickets/${ticketId}/csat`, { method: "POST", json: { score: 5 } })).status).toBe(200);
      await live.waitFor((s) => s.statuses().at(-1)?.csatScore === 5 && s.events().some((event) => event.type === "CSAT"));

      // Heartbeats keep the connection alive.
      await live.waitFor((s) => s.frames.some((frame) => frame.comment === "ping"));
      // Exactly the events of the conversation, once each, in order.
      expect(live.events().map((event) => event.id)).toEqual((await playerEvents(code, ticketId)).map((event) => event.id));
      await live.close();
    });

    it("resumes after Last-Event-ID with every missed event, in order, once", async () => {
      const code = await session({ player: { id: "stream-2" } });
      const ticketId = await open(code, "First");
      const first = await stream(code, ticketId);
      await first.waitFor((s) => s.events().length === 1);
      const cursor = first.events()[0]!.id;
      await first.close();

      // Missed while disconnected.
      await actions(ticketId, [{ type: "sendMessage", message: "missed 1" }]);
      expect((await as(code, `/player-api/tickets/${ticketId}/messages`, { method: "POST", json: { message: "missed 2" } })).status).toBe(200);
      await actions(ticketId, [{ type: "sendMessage", message: "missed 3" }]);

      const resumed = await stream(code, ticketId, cursor);
      expect(resumed.status).toBe(200);
      // Messages written while the stream is replaying and switching to live.
      const writes = (async () => {
        for (let i = 1; i <= 5; i++) await actions(ticketId, [{ type: "sendMessage", message: `live ${i}` }]);
      })();
      await writes;
      await resumed.waitFor((s) => s.events().some((event) => event.message === "live 5"));
      expect(resumed.events().map((event) => event.message)).toEqual(["missed 1", "missed 2", "missed 3", "live 1", "live 2", "live 3", "live 4", "live 5"]);
      const all = (await playerEvents(code, ticketId)).map((event) => event.id);
      expect(resumed.events().map((event) => event.id)).toEqual(all.slice(1));

      // Resuming from the last one sends nothing again; a cursor that is not an event of the ticket is a 400.
      const caughtUp = await stream(code, ticketId, all.at(-1));
      await caughtUp.waitFor((s) => s.statuses().length === 1);
      await actions(ticketId, [{ type: "sendMessage", message: "after caught up" }]);
      await caughtUp.waitFor((s) => s.events().length === 1);
      expect(caughtUp.events().map((event) => event.message)).toEqual(["after caught up"]);
      const bogus = await stream(code, ticketId, "5b0c7a3e-1d2f-4e5a-9b8c-7d6e5f4a3b2c");
      expect(bogus.status).toBe(400);
      expect(bogus.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR", issues: [{ path: "/header/Last-Event-ID" }] } });
      await Promise.all([resumed.close(), caughtUp.close()]);
    });

    it("isolates players and companies: 404 for another player's, game's or company's ticket, and no events of it", async () => {
      const owner = await session({ player: { id: "owner-1", email: "owner@example.com" } });
      const ticketId = await open(owner, "Mine");
      const intruder = await session({ player: { id: "intruder-1", email: "owner@example.com" } });
      const anonymousSameEmail = await session({ player: { email: "owner@example.com" } });
      const otherGame = await session({ player: { id: "owner-1" } }, web, "farm");
      const otherCompany = await session({ player: { id: "owner-1" } }, other, "castle");
      for (const code of [intruder, anonymousSameEmail, otherGame, otherCompany]) {
        const refused = await stream(code, ticketId);
        expect(refused.status).toBe(404);
        expect(refused.body).toMatchObject({ code: "not_found" });
      }
      // The intruder's own stream sees only its own ticket.
      const intruderTicket = await open(intruder, "Intruder's own");
      const intruderStream = await stream(intruder, intruderTicket);
      const ownerStream = await stream(owner, ticketId);
      await actions(ticketId, [{ type: "sendMessage", message: "for the owner only" }]);
      await ownerStream.waitFor((s) => s.events().some((event) => event.message === "for the owner only"));
      await actions(intruderTicket, [{ type: "sendMessage", message: "for the intruder" }]);
      await intruderStream.waitFor((s) => s.events().some((event) => event.message === "for the intruder"));
      expect(intruderStream.events().map((event) => event.message)).toEqual(["Intruder's own", "for the intruder"]);
      expect(ownerStream.events().map((event) => event.message)).toEqual(["Mine", "for the owner only"]);
      // Without a valid session: 403 before anything else.
      const noSession = await fetch(`${stack.url}/player-api/tickets/${ticketId}/stream`);
      expect(noSession.status).toBe(403);
      await Promise.all([intruderStream.close(), ownerStream.close()]);
    });

    it("is served by any replica: one without NATS follows the ticket by its periodic re-read, resuming where another replica left off", async () => {
      const replica = await stack.startGateway({ PLAYER_STREAM_RESYNC_MS: 200 });
      const code = await session({ player: { id: "replica-1" } });
      const ticketId = await open(code, "Replica");
      const first = await stream(code, ticketId);
      await first.waitFor((s) => s.events().length === 1);
      await first.close();
      await actions(ticketId, [{ type: "sendMessage", message: "while away" }]);
      const elsewhere = await stream(code, ticketId, first.events()[0]!.id, replica.url);
      expect(elsewhere.status).toBe(200);
      await actions(ticketId, [{ type: "sendMessage", message: "live on the replica" }]);
      await elsewhere.waitFor((s) => s.events().some((event) => event.message === "live on the replica"));
      expect(elsewhere.events().map((event) => event.message)).toEqual(["while away", "live on the replica"]);
      await elsewhere.close();
    });

    it("ends its open streams when the gateway stops, so the stop does not wait for them", async () => {
      const replica = await stack.startGateway({ SHUTDOWN_TIMEOUT_MS: 60_000 });
      const code = await session({ player: { id: "stopping-1" } });
      const ticketId = await open(code, "Stop");
      const open1 = await stream(code, ticketId, undefined, replica.url);
      await open1.waitFor((s) => s.events().length === 1);
      const started = Date.now();
      await replica.stop();
      // Without ending the streams, stop would wait for them until its deadline (59 s here).
      expect(Date.now() - started).toBeLessThan(30_000);
      await eventually(async () => (open1 as unknown as { finished: boolean }).finished);
    });

    it("bounds the open streams of one session (429), and frees a slot when a stream closes", async () => {
      const code = await session({ player: { id: "bound-1" } });
      const ticketId = await open(code, "Many tabs");
      const one = await stream(code, ticketId);
      const two = await stream(code, ticketId);
      await Promise.all([one.waitFor((s) => s.events().length === 1), two.waitFor((s) => s.events().length === 1)]);
      const three = await stream(code, ticketId);
      expect(three.status).toBe(429);
      expect(three.headers.get("retry-after")).toMatch(/^\d+$/);
      // Another session (of the same unverified player id: it sees only its own ticket) has its own slots.
      const otherSession = await session({ player: { id: "bound-1" } });
      const sameOwner = await stream(otherSession, await open(otherSession, "Another session, another tab"));
      expect(sameOwner.status).toBe(200);
      await one.close();
      let again: OpenStream | undefined;
      await eventually(async () => {
        const attempt = await stream(code, ticketId);
        if (attempt.status === 200) again = attempt;
        return attempt.status === 200;
      });
      await Promise.all([two.close(), sameOwner.close(), again!.close()]);
    });
  });

  describe("attachment downloads of the player", () => {
    it("redirects (307, signed URL of at most 5 minutes) for an attachment of the player's ticket, 404 for anything else", async () => {
      const code = await session({ player: { id: "files-1" } });
      const bytes = randomBytes(600);
      const upload = await as(code, "/player-api/attachments", { method: "POST", json: { fileName: "shot.png", fileType: "image/png", fileSize: bytes.length } });
      const instruction = upload.body as { attachmentId: string; uploadUrl: string; uploadMethod: string; uploadHeaders: Record<string, string> };
      expect((await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers: instruction.uploadHeaders, body: bytes })).status).toBe(200);
      const ticketId = await open(code, "Look");
      expect((await as(code, `/player-api/tickets/${ticketId}/messages`, { method: "POST", json: { message: "shot", attachments: [instruction.attachmentId] } })).status).toBe(200);

      const redirect = await as(code, `/player-api/tickets/${ticketId}/attachments/${instruction.attachmentId}`);
      expect(redirect.status).toBe(307);
      const location = new URL(redirect.headers.get("location")!);
      expect(Number(location.searchParams.get("X-Amz-Expires"))).toBeLessThanOrEqual(300);
      const download = await fetch(location);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);

      const intruder = await session({ player: { id: "files-2" } });
      expect((await as(intruder, `/player-api/tickets/${ticketId}/attachments/${instruction.attachmentId}`)).status).toBe(404);
      // Their own ticket does not open someone else's attachment either.
      const intruderTicket = await open(intruder, "Mine");
      expect((await as(intruder, `/player-api/tickets/${intruderTicket}/attachments/${instruction.attachmentId}`)).status).toBe(404);
      expect((await as(code, `/player-api/tickets/${ticketId}/attachments/unknown-attachment`)).status).toBe(404);
    });

    it("never opens an attachment of the company that is not in the player's conversation", async () => {
      const code = await session({ player: { id: "files-3" } });
      const ticketId = await open(code, "Help");
      const upload = await stack.request("/attachments", { method: "POST", key, json: { gameId: web.games.galaxy!.id, fileName: "note.txt", fileType: "text/plain", fileSize: 4 } });
      const instruction = upload.body as { attachmentId: string; uploadUrl: string; uploadMethod: string; uploadHeaders: Record<string, string> };
      expect((await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers: instruction.uploadHeaders, body: "note" })).status).toBe(200);
      // The API key's own download works; the player's does not: it is not in their conversation.
      expect((await stack.request(`/attachments/${instruction.attachmentId}`, { key })).status).toBe(307);
      expect((await as(code, `/player-api/tickets/${ticketId}/attachments/${instruction.attachmentId}`)).status).toBe(404);
    });
  });

  describe("CORS on /player-api", () => {
    it("answers the preflight for a configured origin only", async () => {
      const preflight = (origin: string) =>
        stack.request("/player-api/tickets", {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
        });
      const allowed = await preflight(ALLOWED_ORIGIN);
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
      expect(allowed.headers.get("access-control-allow-headers")).toBe("Authorization, Content-Type, Last-Event-ID");
      expect(allowed.headers.get("access-control-allow-methods")).toBe("GET, POST");
      expect((await preflight("http://localhost:5173")).headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
      const refused = await preflight("https://evil.example.com");
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
      expect(refused.headers.get("access-control-allow-headers")).toBeNull();
    });

    it("adds the origin to answers (errors included) for a configured origin, nothing for others or other routes", async () => {
      const code = await session({ player: { id: "cors-1" } });
      const ok = await as(code, "/player-api/session", { headers: { origin: ALLOWED_ORIGIN } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
      expect(ok.headers.get("access-control-expose-headers")).toContain("Retry-After");
      expect(ok.headers.get("vary")).toContain("Origin");
      const forbidden = await stack.request("/player-api/session", { headers: { origin: ALLOWED_ORIGIN } });
      expect(forbidden.status).toBe(403);
      expect(forbidden.headers.get("access-control-allow-origin")).toBe(ALLOWED_ORIGIN);
      expect((await as(code, "/player-api/session", { headers: { origin: "https://evil.example.com" } })).headers.get("access-control-allow-origin")).toBeNull();
      expect((await stack.request("/games", { key, headers: { origin: ALLOWED_ORIGIN } })).headers.get("access-control-allow-origin")).toBeNull();
    });
  });
});
