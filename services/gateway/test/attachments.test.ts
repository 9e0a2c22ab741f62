// POST /attachments and GET /attachments/{attachmentId} through the real stack (content, media with an S3 that checks SigV4 signatures,
// the gateway): every answer is checked against the OpenAPI document by stack.request, and the
// file travels as a client's would: a real PUT to uploadUrl with exactly uploadMethod and
// uploadHeaders, then the 307 followed to the storage.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";
import { tenantA, tenantB } from "./tenants.ts";

interface Instruction {
  attachmentId: string;
  uploadUrl: string;
  uploadMethod: string;
  uploadHeaders: Record<string, string>;
  uploadExpiresInSeconds: number;
}

describe("attachments through the real stack", () => {
  let stack: Stack;
  let a: TenantResult;
  let b: TenantResult;
  let galaxy: string;

  beforeAll(async () => {
    stack = await startStack();
    a = await stack.applyTenant(tenantA);
    b = await stack.applyTenant(tenantB);
    galaxy = a.games.galaxy!.id;
  });
  afterAll(() => stack?.stop());

  const create = (body: unknown, key: string = a.apiKeys.main!) => stack.request("/attachments", { method: "POST", key, json: body });
  const file = (overrides: Record<string, unknown> = {}) => ({ gameId: galaxy, fileName: "crash.png", fileType: "image/png", fileSize: 4096, ...overrides });

  async function put(instruction: Instruction, body: Uint8Array, headers = instruction.uploadHeaders): Promise<number> {
    const response = await fetch(instruction.uploadUrl, { method: instruction.uploadMethod, headers, body });
    await response.arrayBuffer();
    return response.status;
  }

  function issuesOf(response: StackResponse): string[] {
    expect(response.status).toBe(400);
    const body = response.body as { code: string; details: { type: string; issues: { path: string }[] } };
    expect(body.code).toBe("invalid_argument");
    expect(body.details.type).toBe("VALIDATION_ERROR");
    return body.details.issues.map((issue) => issue.path);
  }

  describe("POST /attachments", () => {
    it("answers the upload instruction: attachmentId, uploadUrl, uploadMethod PUT, uploadHeaders, uploadExpiresInSeconds", async () => {
      const response = await create(file({ playerId: "player-1" }));
      expect(response.status).toBe(200);
      const instruction = response.body as Instruction;
      expect(Object.keys(instruction)).toEqual(["attachmentId", "uploadUrl", "uploadMethod", "uploadHeaders", "uploadExpiresInSeconds"]);
      expect(instruction).toMatchObject({ uploadMethod: "PUT", uploadExpiresInSeconds: 900 });
      expect(instruction.attachmentId).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(instruction.uploadHeaders["Content-Type"]).toBe("image/png");
      // The object is named by company, game and id; the file name is not in the URL.
      expect(new URL(instruction.uploadUrl).pathname).toMatch(new RegExp(`/${a.companyId}/${galaxy}/${instruction.attachmentId}$`));
      expect(instruction.uploadUrl).not.toContain("crash");
      expect(response.headers.get("x-request-id")).toBeTruthy();
    });

    it("accepts playerId null or absent, and every file type of the enum", async () => {
      expect((await create(file({ playerId: null }))).status).toBe(200);
      for (const fileType of ["image/svg+xml", "image/jpeg", "image/gif", "application/pdf", "video/mp4", "video/quicktime", "text/plain", "application/zip", "application/vnd.rar"]) {
        expect((await create(file({ fileType }))).status).toBe(200);
      }
      expect((await create(file({ fileSize: 209_715_200 }))).status).toBe(200);
      expect((await create(file({ fileSize: 1 }))).status).toBe(200);
    });

    it("answers 400 naming each invalid field", async () => {
      expect(issuesOf(await create({}))).toEqual(expect.arrayContaining(["/gameId", "/fileName", "/fileType", "/fileSize"]));
      expect(issuesOf(await create(file({ fileSize: 0 })))).toEqual(["/fileSize"]);
      expect(issuesOf(await create(file({ fileSize: 209_715_201 })))).toEqual(["/fileSize"]);
      expect(issuesOf(await create(file({ fileSize: 10.5 })))).toEqual(["/fileSize"]);
      expect(issuesOf(await create(file({ fileSize: "100" })))).toEqual(["/fileSize"]);
      expect(issuesOf(await create(file({ fileType: "text/html" })))).toEqual(["/fileType"]);
      expect(issuesOf(await create(file({ fileName: "" })))).toEqual(["/fileName"]);
      expect(issuesOf(await create(file({ fileName: "x".repeat(256) })))).toEqual(["/fileName"]);
      expect(issuesOf(await create(file({ playerId: "" })))).toEqual(["/playerId"]);
      expect(issuesOf(await create(file({ gameId: "galaxy" })))).toEqual(["/gameId"]);
      expect(issuesOf(await create(file({ extra: true })))).toEqual(["/extra"]);
      // Rules beyond the document's schema come back from the media service in the same shape.
      expect(issuesOf(await create(file({ fileName: "bad\u0007name.png" })))).toEqual(["/fileName"]);
    });

    it("answers 404 for an unknown game and for another company's game", async () => {
      for (const gameId of [randomUUID(), b.games.castle!.id]) {
        const response = await create(file({ gameId }));
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ code: "not_found", message: "game not found" });
      }
    });

    it("answers 403 without a valid API key, before looking at the body", async () => {
      for (const key of [undefined, "sk_live_not_a_key"]) {
        const response = await stack.request("/attachments", { method: "POST", key, json: {} });
        expect(response.status).toBe(403);
        expect(response.body).toEqual({ code: "unauthenticated", message: "A valid API key is required" });
      }
    });
  });

  describe("upload and GET /attachments/{attachmentId}", () => {
    it("uploads real bytes with exactly uploadMethod and uploadHeaders, then redirects (307, no body) to the same bytes", async () => {
      const bytes = randomBytes(100_000);
      const instruction = (await create(file({ fileName: "Bildschirmfoto ä.png", fileSize: bytes.length }))).body as Instruction;
      expect(await put(instruction, bytes)).toBe(200);

      const response = await stack.request(`/attachments/${instruction.attachmentId}`, { key: a.apiKeys.main, headers: { "x-request-id": "download-1" } });
      expect(response.status).toBe(307);
      expect(response.text).toBe("");
      expect(response.headers.get("content-type")).toBeNull();
      expect(response.headers.get("x-request-id")).toBe("download-1");
      const location = new URL(response.headers.get("location")!);
      expect(Number(location.searchParams.get("X-Amz-Expires"))).toBeLessThanOrEqual(300);

      const downloaded = await fetch(location);
      expect(downloaded.status).toBe(200);
      expect(downloaded.headers.get("content-type")).toBe("image/png");
      expect(downloaded.headers.get("content-disposition")).toContain("filename*=UTF-8''Bildschirmfoto%20%C3%A4.png");
      expect(Buffer.from(await downloaded.arrayBuffer()).equals(bytes)).toBe(true);

      // Another key of the same company sees it too.
      expect((await stack.request(`/attachments/${instruction.attachmentId}`, { key: a.apiKeys.second })).status).toBe(307);
    });

    it("the storage refuses an upload of another type or size; such an attachment stays not found", async () => {
      const bytes = randomBytes(1000);
      const instruction = (await create(file({ fileSize: bytes.length }))).body as Instruction;
      expect(await put(instruction, bytes, { ...instruction.uploadHeaders, "Content-Type": "text/plain" })).toBe(403);
      expect(await put(instruction, randomBytes(1001))).toBe(403);
      expect((await stack.request(`/attachments/${instruction.attachmentId}`, { key: a.apiKeys.main })).status).toBe(404);
    });

    it("answers 404 for another company's attachment, an unknown id and an upload that never completed", async () => {
      const bytes = randomBytes(10);
      const done = (await create(file({ fileSize: bytes.length }))).body as Instruction;
      expect(await put(done, bytes)).toBe(200);
      const never = (await create(file())).body as Instruction;
      const cases: [string, string][] = [
        [b.apiKeys.main!, done.attachmentId],
        [a.apiKeys.main!, never.attachmentId],
        [a.apiKeys.main!, "A".repeat(24)],
        [a.apiKeys.main!, "not-an-attachment"],
        [a.apiKeys.main!, encodeURIComponent("../x")],
      ];
      for (const [key, id] of cases) {
        const response = await stack.request(`/attachments/${id}`, { key });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ code: "not_found", message: "attachment not found" });
      }
      expect((await stack.request(`/attachments/${done.attachmentId}`, { key: a.apiKeys.main })).status).toBe(307);
    });

    it("answers 403 without a valid API key, even for an existing attachment", async () => {
      const bytes = randomBytes(10);
      const instruction = (await create(file({ fileSize: bytes.length }))).body as Instruction;
      expect(await put(instruction, bytes)).toBe(200);
      const response = await stack.request(`/attachments/${instruction.attachmentId}`);
      expect(response.status).toBe(403);
      expect(response.headers.get("location")).toBeNull();
    });
  });
});
