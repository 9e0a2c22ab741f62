// Settings → Games → Branding over the real stack: an admin sets a game's accent colour, colour
// scheme and logo; the player API's session carries them (the page's defaults before), the logo
// is served from the gateway's own origin with its type and a year's immutable caching under its
// hash, a replaced or removed logo stops being served at once (the gateway's cache is evicted by
// content.game.branding_updated). Another company's game is a 404, an agent gets 403 on both
// operations, bad input is a 400 naming its path (a bad colour, an SVG, too large an image, a
// non-image), and every change is in the audit log with before/after (the logo by hash and size).
import { randomUUID } from "node:crypto";
import { deflateSync, crc32 } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@brand.example`, abe: `abe-${suffix}@brand.example`, oto: `oto-${suffix}@other.example` };

/** A valid PNG of one colour (8-bit RGB). */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, index) => rgb[index % 3]!)]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

interface BrandingDto {
  accentColor: string | null;
  accentTextColor: string;
  colorScheme: string;
  logo: { url: string; sha256: string; contentType: string; size: number; width: number; height: number } | null;
  updatedAt: string | null;
}
interface AuditEntryDto {
  action: string;
  actor: { type: string; id: string | null };
  target: { type: string; id: string } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  clientAddress: string | null;
}

let stack: Stack;
let tenant: TenantResult;
let theirs: TenantResult;
const users = {} as Record<keyof typeof emails, SignedInAgent>;
const read = (user: SignedInAgent, path: string) => agentRead(stack, user, path);
const write = (user: SignedInAgent, method: "PUT", path: string, json?: unknown) => agentWrite(stack, user, method, path, json);
const issues = (response: StackResponse) => (response.body as { details?: { issues?: { path: string; message: string }[] } }).details?.issues ?? [];
const brandingPath = (gameId: string) => `/agent-api/settings/games/${gameId}/branding`;
const galaxy = () => tenant.games.galaxy!;
const playerSession = async (token: string) => {
  const opened = await stack.request("/support/sessions", { method: "POST", json: { token } });
  expect(opened.status, opened.text).toBe(200);
  const { sessionCode } = opened.body as { sessionCode: string };
  const session = await stack.request("/player-api/session", { headers: { authorization: `Session ${sessionCode}` } });
  expect(session.status, session.text).toBe(200);
  return session.body as { branding: { accentColor: string; accentTextColor: string; colorScheme: string; logoUrl: string | null } };
};
const fetchLogo = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, stack.url), { headers });
const auditLog = async () => {
  const response = await read(users.ada, "/agent-api/audit-log?limit=200");
  expect(response.status, response.text).toBe(200);
  return (response.body as { entries: AuditEntryDto[] }).entries;
};
const eventually = async (check: () => Promise<boolean>, ms = 5000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("not within time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Brand Studio" },
    games: [{ ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] }],
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
    ],
  });
  theirs = await stack.applyTenant({
    company: { name: "Other Studio" },
    games: [{ ref: "theirs", name: "Theirs", slug: `theirs-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] }],
    users: [{ ref: "oto", name: "Oto Admin", email: emails.oto, role: "admin" }],
  });
  for (const email of Object.values(emails)) await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  users.ada = await signInAgent(stack, emails.ada, PASSWORD);
  users.abe = await signInAgent(stack, emails.abe, PASSWORD);
  users.oto = await signInAgent(stack, emails.oto, PASSWORD);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe("branding of the web support page", () => {
  it("has the page's defaults before anything is set, in the settings and in the player's session", async () => {
    const got = await read(users.ada, brandingPath(galaxy().id));
    expect(got.status, got.text).toBe(200);
    expect(got.body).toEqual({ accentColor: null, accentTextColor: "#ffffff", colorScheme: "light", logo: null, updatedAt: null });
    const { branding } = await playerSession(galaxy().environments.production!.token);
    expect(branding).toEqual({ accentColor: "#1d4ed8", accentTextColor: "#ffffff", colorScheme: "light", logoUrl: null });
  });

  it("sets a colour, dark mode and a logo that the player's session names and our origin serves, cached under its hash", async () => {
    const logo = solidPng(64, 32, [230, 120, 20]);
    const set = await write(users.ada, "PUT", brandingPath(galaxy().id), { accentColor: "#F5B", colorScheme: "dark", logo: { data: logo.toString("base64") } });
    expect(set.status, set.text).toBe(200);
    const branding = set.body as BrandingDto;
    expect(branding).toMatchObject({ accentColor: "#ff55bb", accentTextColor: "#000000", colorScheme: "dark" });
    expect(branding.logo).toMatchObject({ contentType: "image/png", size: logo.length, width: 64, height: 32 });
    expect(branding.logo!.url).toBe(`/support/logos/${galaxy().id}/${branding.logo!.sha256}`);
    expect(branding.updatedAt).not.toBeNull();

    const session = await playerSession(galaxy().environments.production!.token);
    expect(session.branding).toEqual({ accentColor: "#ff55bb", accentTextColor: "#000000", colorScheme: "dark", logoUrl: branding.logo!.url });

    const served = await fetchLogo(branding.logo!.url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("etag")).toBe(`"${branding.logo!.sha256}"`);
    expect(Buffer.from(await served.arrayBuffer()).equals(logo)).toBe(true);
    expect((await fetchLogo(branding.logo!.url, { "if-none-match": `"${branding.logo!.sha256}"` })).status).toBe(304);
    // Another hash, another game or no uuid: 404, not cached.
    const unknown = await fetchLogo(`/support/logos/${galaxy().id}/${"0".repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("cache-control")).toBe("no-store");
    expect((await fetchLogo(`/support/logos/${theirs.games.theirs!.id}/${branding.logo!.sha256}`)).status).toBe(404);
    expect((await fetchLogo(`/support/logos/not-a-game/${branding.logo!.sha256}`)).status).toBe(404);

    // A colour and scheme change keeps the logo; a new logo gets a new URL and the old one stops.
    const kept = await write(users.ada, "PUT", brandingPath(galaxy().id), { accentColor: "#0b7a3b", colorScheme: "system" });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body).toMatchObject({ accentColor: "#0b7a3b", accentTextColor: "#ffffff", colorScheme: "system", logo: { sha256: branding.logo!.sha256 } });
    const second = solidPng(48, 48, [20, 60, 200]);
    const replaced = await write(users.ada, "PUT", brandingPath(galaxy().id), { accentColor: "#0b7a3b", colorScheme: "system", logo: { data: second.toString("base64") } });
    expect(replaced.status, replaced.text).toBe(200);
    const newUrl = (replaced.body as BrandingDto).logo!.url;
    expect(newUrl).not.toBe(branding.logo!.url);
    expect((await fetchLogo(newUrl)).status).toBe(200);
    await eventually(async () => (await fetchLogo(branding.logo!.url)).status === 404);

    const removed = await write(users.ada, "PUT", brandingPath(galaxy().id), { accentColor: null, colorScheme: "light", logo: null });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toMatchObject({ accentColor: null, colorScheme: "light", logo: null });
    await eventually(async () => (await fetchLogo(newUrl)).status === 404);
    expect((await playerSession(galaxy().environments.production!.token)).branding).toEqual({ accentColor: "#1d4ed8", accentTextColor: "#ffffff", colorScheme: "light", logoUrl: null });
  });

  it("refuses bad input with its path: a bad colour or scheme, an SVG, too large an image, a non-image, bad base64, a tiny image", async () => {
    const put = (json: unknown) => write(users.ada, "PUT", brandingPath(galaxy().id), json);
    const badColour = await put({ accentColor: "blue", colorScheme: "light" });
    expect(badColour.status, badColour.text).toBe(400);
    expect(issues(badColour).map((issue) => issue.path)).toEqual(["/accentColor"]);
    const badScheme = await put({ accentColor: "#123456", colorScheme: "sepia" });
    expect(badScheme.status, badScheme.text).toBe(400);
    expect(issues(badScheme).map((issue) => issue.path)).toContain("/colorScheme");

    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><script>alert(1)</script></svg>');
    const refusedSvg = await put({ accentColor: "#123456", colorScheme: "light", logo: { data: svg.toString("base64") } });
    expect(refusedSvg.status, refusedSvg.text).toBe(400);
    expect(issues(refusedSvg)).toEqual([expect.objectContaining({ path: "/logo", message: expect.stringContaining("SVG") })]);

    // A PNG header with 300 KiB behind it.
    const large = Buffer.concat([solidPng(64, 64, [0, 0, 0]), Buffer.alloc(300 * 1024)]);
    const tooLarge = await put({ accentColor: "#123456", colorScheme: "light", logo: { data: large.toString("base64") } });
    expect(tooLarge.status, tooLarge.text).toBe(400);
    expect(issues(tooLarge)).toEqual([expect.objectContaining({ path: "/logo", message: expect.stringContaining("256 KiB") })]);

    const text = await put({ accentColor: "#123456", colorScheme: "light", logo: { data: Buffer.from("just some text, not a picture").toString("base64") } });
    expect(text.status, text.text).toBe(400);
    expect(issues(text)).toEqual([expect.objectContaining({ path: "/logo", message: expect.stringContaining("PNG, JPEG or WebP") })]);

    const tiny = await put({ accentColor: "#123456", colorScheme: "light", logo: { data: solidPng(4, 4, [0, 0, 0]).toString("base64") } });
    expect(tiny.status, tiny.text).toBe(400);
    expect(issues(tiny).map((issue) => issue.path)).toEqual(["/logo"]);
    const huge = await put({ accentColor: "#123456", colorScheme: "light", logo: { data: solidPng(2000, 16, [0, 0, 0]).toString("base64") } });
    expect(huge.status, huge.text).toBe(400);
    expect(issues(huge).map((issue) => issue.path)).toEqual(["/logo"]);

    const notBase64 = await put({ accentColor: "#123456", colorScheme: "light", logo: { data: "%%% not base64 %%%" } });
    expect(notBase64.status, notBase64.text).toBe(400);
    expect(issues(notBase64).map((issue) => issue.path)).toEqual(["/logo/data"]);

    // Nothing was changed by the refused requests.
    expect(((await read(users.ada, brandingPath(galaxy().id))).body as BrandingDto).accentColor).toBeNull();
  });

  it("answers 404 for another company's game and 403 to an agent on both operations", async () => {
    const other = theirs.games.theirs!.id;
    expect((await read(users.ada, brandingPath(other))).status).toBe(404);
    expect((await write(users.ada, "PUT", brandingPath(other), { accentColor: "#123456", colorScheme: "light" })).status).toBe(404);
    expect((await read(users.ada, brandingPath(randomUUID()))).status).toBe(404);
    const agentRead = await read(users.abe, brandingPath(galaxy().id));
    expect(agentRead.status, agentRead.text).toBe(403);
    const agentWrite = await write(users.abe, "PUT", brandingPath(galaxy().id), { accentColor: "#123456", colorScheme: "light" });
    expect(agentWrite.status, agentWrite.text).toBe(403);
    expect(((await read(users.oto, brandingPath(other))).body as BrandingDto).accentColor).toBeNull();
  });

  it("records every change in the audit log with before and after, the logo by hash and size", async () => {
    const entries = (await auditLog()).filter((entry) => entry.action === "game.branding_changed" && entry.target?.id === galaxy().id);
    // Set, colour change, new logo, removal; the refused requests and the agent's wrote nothing.
    expect(entries).toHaveLength(4);
    const first = entries.at(-1)!;
    expect(first.actor).toMatchObject({ type: "user", id: tenant.users.ada });
    expect(first.clientAddress).not.toBeNull();
    expect(first.before).toEqual({ name: "Galaxy", accentColor: null, colorScheme: "light", logo: null });
    expect(first.after).toMatchObject({
      name: "Galaxy", accentColor: "#ff55bb", colorScheme: "dark",
      logo: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), size: expect.any(Number), contentType: "image/png", width: 64, height: 32 },
    });
    expect(JSON.stringify(entries)).not.toContain("iVBOR");
    const last = entries[0]!;
    expect(last.after).toEqual({ name: "Galaxy", accentColor: null, colorScheme: "light", logo: null });
    expect(last.before).toMatchObject({ accentColor: "#0b7a3b", colorScheme: "system", logo: { width: 48, height: 48 } });
  });
});
