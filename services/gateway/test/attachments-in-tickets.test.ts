// The attachment flow of a client (POST /attachments, POST /tickets, the ticket's events,
// GET /attachments/{attachmentId}) through the whole stack: ask for an
// upload, PUT the bytes to the storage with exactly uploadMethod and uploadHeaders, create a
// ticket naming the attachment, see it in the ticket's first message, and download it through
// the 307. Every answer is checked against the OpenAPI document by stack.request.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type TenantResult } from "./stack.ts";
import { tenantA, tenantB } from "./tenants.ts";

interface Instruction {
  attachmentId: string;
  uploadUrl: string;
  uploadMethod: string;
  uploadHeaders: Record<string, string>;
}

describe("attachments in tickets through the real stack", () => {
  let stack: Stack;
  let a: TenantResult;
  let b: TenantResult;

  beforeAll(async () => {
    stack = await startStack();
    a = await stack.applyTenant(tenantA);
    b = await stack.applyTenant(tenantB);
  });
  afterAll(() => stack?.stop());

  async function upload(key: string, gameId: string, bytes: Uint8Array, fileType = "image/png"): Promise<string> {
    const response = await stack.request("/attachments", { method: "POST", key, json: { gameId, fileName: "crash report.png", fileType, fileSize: bytes.length } });
    expect(response.status).toBe(200);
    const instruction = response.body as Instruction;
    const put = await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers: instruction.uploadHeaders, body: bytes });
    expect(put.status, await put.text()).toBe(200);
    return instruction.attachmentId;
  }

  const ticket = (gameId: string, attachments: string[]) => ({
    gameId,
    message: "The game crashes when I open the map",
    attachments,
    language: "en",
    channels: ["email"],
    metadata: { player: { id: `player-${randomBytes(4).toString("hex")}`, email: "crash@example.com" } },
  });

  it("uploads, creates a ticket with the attachment, lists it in the events and downloads the same bytes", async () => {
    const key = a.apiKeys.main!;
    const bytes = randomBytes(5000);
    const attachmentId = await upload(key, a.games.galaxy!.id, bytes);

    const created = await stack.request("/tickets", { method: "POST", key, json: ticket(a.games.galaxy!.id, [attachmentId]) });
    expect(created.status).toBe(200);
    const { ticketId } = created.body as { ticketId: string };

    const events = await stack.request(`/tickets/${ticketId}/events`, { key });
    expect(events.status).toBe(200);
    const [first] = (events.body as { events: { type: string; attachments?: { id: string }[] }[] }).events;
    expect(first).toMatchObject({ type: "PLAYER_MESSAGE", attachments: [{ id: attachmentId }] });

    const redirect = await stack.request(`/attachments/${attachmentId}`, { key });
    expect(redirect.status).toBe(307);
    const location = redirect.headers.get("location")!;
    const download = await fetch(location);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("answers 400 naming the index of an unknown, another game's, another company's or incomplete attachment", async () => {
    const key = a.apiKeys.main!;
    const good = await upload(key, a.games.galaxy!.id, randomBytes(100));
    const otherGame = await upload(key, a.games.farm!.id, randomBytes(100));
    const otherCompany = await upload(b.apiKeys.main!, b.games.castle!.id, randomBytes(100));
    const pending = await stack.request("/attachments", {
      method: "POST", key, json: { gameId: a.games.galaxy!.id, fileName: "never.txt", fileType: "text/plain", fileSize: 10 },
    });
    const incomplete = (pending.body as Instruction).attachmentId;

    const response = await stack.request("/tickets", {
      method: "POST", key, json: ticket(a.games.galaxy!.id, [good, "unknown-attachment-id", otherGame, otherCompany, incomplete]),
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid_argument", details: { type: "VALIDATION_ERROR" } });
    const issues = (response.body as { details: { issues: { path: string; message: string }[] } }).details.issues;
    expect(issues.map((issue) => issue.path)).toEqual(["/attachments/1", "/attachments/2", "/attachments/3", "/attachments/4"]);

    const listed = await stack.request(`/tickets?gameId=${a.games.galaxy!.id}&limit=1000`, { key });
    const messages = (listed.body as { tickets: { id: string }[] }).tickets;
    for (const { id } of messages) {
      const events = await stack.request(`/tickets/${id}/events`, { key });
      const ids = (events.body as { events: { attachments?: { id: string }[] }[] }).events.flatMap((e) => e.attachments ?? []).map((r) => r.id);
      expect(ids).not.toContain(good);
    }
  });
});
