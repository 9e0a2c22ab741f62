import { describe, expect, it } from "vitest";
import type { AppError } from "@support/errors";
import {
  claimIssue, contentDispositionOf, FILE_TYPES, isAttachmentId, isCompleteUpload, MAX_CLAIM, MAX_FILE_SIZE, newAttachmentId, objectKeyOf,
  parseClaimInput, parseErasureInput, parseUploadInput, type UploadInput,
} from "./attachment.ts";

const COMPANY = "0b6f5a3e-6d0c-4a57-9a53-2f0a8f7a1c11";
const GAME = "6d1f8a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b";

function issuesOf(work: () => unknown): { path: string; message: string }[] {
  try {
    work();
  } catch (error) {
    return (error as AppError).details?.issues ?? [];
  }
  return [];
}

const upload = (overrides: Partial<UploadInput> = {}): UploadInput => ({
  companyId: COMPANY,
  gameId: GAME,
  fileName: "crash.png",
  fileType: "image/png",
  fileSize: 1024,
  ...overrides,
});

describe("attachment ids", () => {
  it("are 24 URL-safe characters (144 random bits) without a slash, and never repeat", () => {
    const ids = Array.from({ length: 2000 }, newAttachmentId);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(isAttachmentId(id)).toBe(true);
      expect(encodeURIComponent(id)).toBe(id);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("refuses anything else as an id without looking it up", () => {
    for (const id of ["", "abc", "a/b", `${newAttachmentId()}x`, "x".repeat(23) + "/", "../../etc/passwd"]) expect(isAttachmentId(id)).toBe(false);
  });

  it("names the object by company, game and id only (never by the file name)", () => {
    expect(objectKeyOf(COMPANY, GAME, "AbC_-123")).toBe(`${COMPANY}/${GAME}/AbC_-123`);
  });
});

describe("upload requests", () => {
  it("accepts every file type of the enum and sizes from 1 byte to 200 MB", () => {
    for (const fileType of FILE_TYPES) expect(parseUploadInput(upload({ fileType })).fileType).toBe(fileType);
    expect(parseUploadInput(upload({ fileSize: 1 })).fileSize).toBe(1);
    expect(parseUploadInput(upload({ fileSize: BigInt(MAX_FILE_SIZE) })).fileSize).toBe(MAX_FILE_SIZE);
  });

  it("names each invalid field by its public path", () => {
    expect(issuesOf(() => parseUploadInput(upload({ gameId: "nope", fileName: "", fileType: "text/html", fileSize: 0, playerId: "" })))).toEqual([
      { path: "/gameId", message: "must be a UUID" },
      { path: "/fileName", message: "must not be empty" },
      { path: "/fileType", message: expect.stringContaining("must be one of") },
      { path: "/fileSize", message: `must be an integer from 1 to ${MAX_FILE_SIZE}` },
      { path: "/playerId", message: "must be 1 to 255 characters or null" },
    ]);
    expect(issuesOf(() => parseUploadInput(upload({ fileSize: MAX_FILE_SIZE + 1 })))).toHaveLength(1);
    expect(issuesOf(() => parseUploadInput(upload({ fileName: "a".repeat(256) })))).toHaveLength(1);
    expect(issuesOf(() => parseUploadInput(upload({ fileName: "evil\r\nname.png" })))).toEqual([{ path: "/fileName", message: "must not contain control characters" }]);
  });

  it("keeps the player id given at upload, or null", () => {
    expect(parseUploadInput(upload({ playerId: "player-42" })).playerId).toBe("player-42");
    expect(parseUploadInput(upload({ playerId: null })).playerId).toBeNull();
    expect(parseUploadInput(upload()).playerId).toBeNull();
  });
});

describe("Content-Disposition of the stored object", () => {
  it("keeps the original name as an ASCII fallback and its UTF-8 form", () => {
    expect(contentDispositionOf("report.pdf", "application/pdf")).toBe(`inline; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(contentDispositionOf(`ä "1" (b)'s.txt`, "text/plain")).toBe(
      `inline; filename="_ _1_ (b)'s.txt"; filename*=UTF-8''%C3%A4%20%221%22%20%28b%29%27s.txt`,
    );
  });

  it("makes SVG and archives downloads, never inline pages on the storage's origin", () => {
    for (const type of ["image/svg+xml", "application/zip", "application/vnd.rar"] as const) expect(contentDispositionOf("x", type)).toMatch(/^attachment;/);
    for (const type of ["image/png", "video/mp4", "text/plain"] as const) expect(contentDispositionOf("x", type)).toMatch(/^inline;/);
  });

  it("is plain printable ASCII whatever the name", () => {
    expect(contentDispositionOf("日本語のスクリーンショット 🎮.png", "image/png")).toMatch(/^[\x20-\x7e]+$/);
  });
});

describe("complete uploads", () => {
  const declared = { fileSize: 10, fileType: "image/png" as const };
  it("exist with the declared size (and type, when the storage reports one)", () => {
    expect(isCompleteUpload(declared, { size: 10, contentType: "image/png" })).toBe(true);
    expect(isCompleteUpload(declared, { size: 10, contentType: undefined })).toBe(true);
    expect(isCompleteUpload(declared, undefined)).toBe(false);
    expect(isCompleteUpload(declared, { size: 11, contentType: "image/png" })).toBe(false);
    expect(isCompleteUpload(declared, { size: 10, contentType: "text/plain" })).toBe(false);
  });
});

describe("claims and erasure requests", () => {
  it("name bad attachments by their index in the public attachments array", () => {
    expect(claimIssue(3, "unknown").path).toBe("/attachments/3");
    expect(claimIssue(0, "incomplete").message).toMatch(/not complete/);
  });

  it("refuse malformed ids of company, game, ticket and player, and more than the maximum", () => {
    const ids = Array.from({ length: MAX_CLAIM + 1 }, newAttachmentId);
    expect(issuesOf(() => parseClaimInput({ companyId: "x", gameId: GAME, attachmentIds: ids, ticketId: "t", servicePlayerId: "p" })).map((i) => i.path)).toEqual([
      "/companyId",
      "/ticketId",
      "/servicePlayerId",
      "/attachments",
    ]);
    expect(parseClaimInput({ companyId: COMPANY.toUpperCase(), gameId: GAME, attachmentIds: [] })).toEqual({
      companyId: COMPANY,
      gameId: GAME,
      attachmentIds: [],
      ticketId: null,
      servicePlayerId: null,
      sessionId: null,
    });
  });

  it("erase by service player id, plus the external player id of one game when both are given", () => {
    const servicePlayerId = "11111111-2222-4333-8444-555555555555";
    expect(parseErasureInput({ companyId: COMPANY, servicePlayerId }).external).toBeNull();
    expect(parseErasureInput({ companyId: COMPANY, servicePlayerId, gameId: GAME, externalPlayerId: "p1" }).external).toEqual({ gameId: GAME, playerId: "p1" });
    expect(issuesOf(() => parseErasureInput({ companyId: COMPANY, servicePlayerId, gameId: GAME }))).toEqual([
      { path: "", message: "give both gameId and externalPlayerId, or neither" },
    ]);
    expect(issuesOf(() => parseErasureInput({ companyId: COMPANY, servicePlayerId: "nope" })).map((i) => i.path)).toEqual(["/servicePlayerId"]);
  });
});
