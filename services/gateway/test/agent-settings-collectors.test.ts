// Settings → Collectors over the real stack: an admin lists the company's collectors by game,
// creates one with several field types, changes its title and fields, makes it the game's
// contact form (the player's session shows it at once, and a player's answers to it are taken
// by the new definition), and retires it (the player no longer sees or answers it; the result
// already submitted stays on the ticket). Another company's collector or game is a 404, an agent
// gets 403 on every operation, bad input is a 400 naming its path, and every change is in the
// audit log with before and after.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRead, agentWrite, signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { issuePaths, startStack, type Stack, type StackResponse, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const emails = { ada: `ada-${suffix}@forms.example`, abe: `abe-${suffix}@forms.example`, oto: `oto-${suffix}@other.example` };

interface FieldDto {
  key: string;
  label: string;
  type: string;
  options: string[];
  required: boolean;
}
interface CollectorDto {
  id: string;
  gameId: string;
  ref: string;
  title: string;
  contactForm: boolean;
  fields: FieldDto[];
  createdAt: string;
  updatedAt: string;
  retiredAt: string | null;
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
let other: TenantResult;
const users = {} as Record<keyof typeof emails, SignedInAgent>;
const read = (user: SignedInAgent, path: string) => agentRead(stack, user, path);
const write = (user: SignedInAgent, method: "POST" | "PUT" | "DELETE", path: string, json?: unknown) => agentWrite(stack, user, method, path, json);
const listed = async (user: SignedInAgent) => {
  const response = await read(user, "/agent-api/settings/collectors");
  expect(response.status, response.text).toBe(200);
  return (response.body as { collectors: CollectorDto[] }).collectors;
};
const auditLog = async () => {
  const response = await read(users.ada, "/agent-api/audit-log?limit=200");
  expect(response.status, response.text).toBe(200);
  return (response.body as { entries: AuditEntryDto[] }).entries;
};
const playerSession = async (token: string) => {
  const response = await stack.request("/support/sessions", { method: "POST", json: { token, player: { id: `p-${suffix}`, email: "pia@example.com" } } });
  expect(response.status, response.text).toBe(200);
  return (response.body as { sessionCode: string }).sessionCode;
};
const asPlayer = (code: string, path: string, json?: unknown) =>
  stack.request(path, { ...(json === undefined ? {} : { method: "POST", json }), headers: { authorization: `Session ${code}` } });
const contactFormOf = async (code: string) => {
  const response = await asPlayer(code, "/player-api/session");
  expect(response.status, response.text).toBe(200);
  return (response.body as { contactForm: { id: string; title: string; fields: FieldDto[] } | null }).contactForm;
};

const bugReport = {
  title: "Bug report",
  fields: [
    { key: "summary", label: "What happened?", type: "TEXT", required: true },
    { key: "area", label: "Where", type: "DROPDOWN", options: ["Lobby", "Match", "Shop"], required: true },
    { key: "platform", label: "Platform", type: "PLATFORM_SELECTOR" },
    { key: "when", label: "When", type: "DATE" },
    { key: "mail", label: "Your email", type: "EMAIL" },
    { key: "topics", label: "Topics", type: "SELECT_GROUP", options: ["Crash", "Lag"] },
    { key: "agree", label: "I may be contacted", type: "CHECKBOX" },
    { key: "shot", label: "Screenshot", type: "FILE" },
  ],
};

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.applyTenant({
    company: { name: "Forms Studio" },
    apiKeys: [{ name: "main" }],
    games: [
      {
        ref: "galaxy", name: "Galaxy", slug: `galaxy-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }],
        collectors: [{ ref: "contact", title: "Contact us", contactForm: true, fields: [{ key: "topic", label: "Topic", type: "TEXT" }] }],
      },
      { ref: "nebula", name: "Nebula", slug: `nebula-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }] },
    ],
    users: [
      { ref: "ada", name: "Ada Admin", email: emails.ada, role: "admin" },
      { ref: "abe", name: "Abe Agent", email: emails.abe, role: "agent", games: ["galaxy"] },
    ],
  });
  other = await stack.applyTenant({
    company: { name: "Other Studio" },
    games: [
      {
        ref: "theirs", name: "Theirs", slug: `theirs-${suffix}`, languages: ["en"], environments: [{ ref: "production", name: "production" }],
        collectors: [{ ref: "contact", title: "Their form", contactForm: true, fields: [{ key: "x", label: "X", type: "TEXT" }] }],
      },
    ],
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

const galaxy = () => tenant.games.galaxy!;
const nebula = () => tenant.games.nebula!;

describe("collectors in the settings", () => {
  it("lists the company's collectors by game, never another company's", async () => {
    const collectors = await listed(users.ada);
    expect(collectors.map((c) => ({ gameId: c.gameId, ref: c.ref, title: c.title, contactForm: c.contactForm, retiredAt: c.retiredAt }))).toEqual([
      { gameId: galaxy().id, ref: "contact", title: "Contact us", contactForm: true, retiredAt: null },
    ]);
    expect(collectors[0]!.fields).toEqual([{ key: "topic", label: "Topic", type: "TEXT", options: [], required: false }]);
    expect((await listed(users.oto)).map((c) => c.title)).toEqual(["Their form"]);
  });

  it("creates, changes, makes the contact form and retires a collector; the player's page follows each step", async () => {
    const token = galaxy().environments.production!.token;
    const code = await playerSession(token);
    expect((await contactFormOf(code))?.title).toBe("Contact us");

    const created = await write(users.ada, "POST", "/agent-api/settings/collectors", { gameId: galaxy().id, ...bugReport });
    expect(created.status, created.text).toBe(201);
    const collector = created.body as CollectorDto;
    expect(collector).toMatchObject({ gameId: galaxy().id, title: "Bug report", contactForm: false, retiredAt: null });
    expect(collector.ref).toMatch(/^bug-report-[0-9a-f]{6}$/);
    expect(collector.fields.map((f) => [f.key, f.type, f.required, f.options])).toEqual([
      ["summary", "TEXT", true, []], ["area", "DROPDOWN", true, ["Lobby", "Match", "Shop"]], ["platform", "PLATFORM_SELECTOR", false, []],
      ["when", "DATE", false, []], ["mail", "EMAIL", false, []], ["topics", "SELECT_GROUP", false, ["Crash", "Lag"]], ["agree", "CHECKBOX", false, []], ["shot", "FILE", false, []],
    ]);
    expect((await write(users.ada, "POST", "/agent-api/settings/collectors", { gameId: galaxy().id, ref: "contact", ...bugReport })).status).toBe(409);

    // Reordered, relabelled, one removed, one added, one no longer required.
    const changedFields = [
      { key: "area", label: "Where did it happen?", type: "DROPDOWN", options: ["Lobby", "Match"], required: false },
      { key: "summary", label: "What happened?", type: "TEXT", required: true },
      { key: "mail", label: "Your email", type: "EMAIL", required: true },
      { key: "build", label: "Game version", type: "TEXT" },
    ];
    const changed = await write(users.ada, "PUT", `/agent-api/settings/collectors/${collector.id}`, { title: "Report a bug", fields: changedFields });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id: collector.id, ref: collector.ref, title: "Report a bug", fields: changedFields.map((f) => ({ options: [], required: false, ...f })) });
    const unchanged = await write(users.ada, "PUT", `/agent-api/settings/collectors/${collector.id}`, { title: "Report a bug", fields: changedFields });
    expect((unchanged.body as CollectorDto).updatedAt).toBe((changed.body as CollectorDto).updatedAt);

    const chosen = await write(users.ada, "PUT", `/agent-api/settings/games/${galaxy().id}/contact-form`, { collectorId: collector.id });
    expect(chosen.status, chosen.text).toBe(200);
    expect((chosen.body as { collectors: CollectorDto[] }).collectors.map((c) => [c.title, c.contactForm])).toEqual([["Contact us", false], ["Report a bug", true]]);

    // The web support page's session now offers the new form, and a player answers it.
    const form = await contactFormOf(code);
    expect(form).toMatchObject({ id: collector.id, title: "Report a bug" });
    expect(form!.fields.map((f) => f.label)).toEqual(["Where did it happen?", "What happened?", "Your email", "Game version"]);
    const opened = await asPlayer(code, "/player-api/tickets", { message: "The lobby froze" });
    expect(opened.status, opened.text).toBe(200);
    const { ticketId } = opened.body as { ticketId: string };
    const missing = await asPlayer(code, `/player-api/tickets/${ticketId}/collector-results`, { collectorId: collector.id, title: "Report a bug", fields: [{ key: "summary", label: "x", type: "TEXT", value: "froze" }] });
    expect(missing.status, missing.text).toBe(400);
    const answers = [
      { key: "area", label: "x", type: "DROPDOWN", value: ["Lobby"] },
      { key: "summary", label: "x", type: "TEXT", value: "It froze" },
      { key: "mail", label: "x", type: "EMAIL", value: "pia@example.com" },
    ];
    const answered = await asPlayer(code, `/player-api/tickets/${ticketId}/collector-results`, { collectorId: collector.id, title: "Report a bug", fields: answers });
    expect(answered.status, answered.text).toBe(200);

    const retired = await write(users.ada, "DELETE", `/agent-api/settings/collectors/${collector.id}`);
    expect(retired.status, retired.text).toBe(200);
    expect(retired.body).toMatchObject({ id: collector.id, contactForm: false, retiredAt: expect.any(String) });
    expect((await listed(users.ada)).map((c) => c.title)).toEqual(["Contact us"]);
    expect(await contactFormOf(code)).toBeNull();
    const late = await asPlayer(code, `/player-api/tickets/${ticketId}/collector-results`, { collectorId: collector.id, title: "Report a bug", fields: answers });
    expect(late.status, late.text).toBe(400);
    expect((await write(users.ada, "DELETE", `/agent-api/settings/collectors/${collector.id}`)).status).toBe(404);
    expect((await write(users.ada, "PUT", `/agent-api/settings/collectors/${collector.id}`, { title: "Back", fields: changedFields })).status).toBe(404);

    // The result submitted before stays on the ticket, with the labels of then.
    const key = tenant.apiKeys.main!;
    const events = ((await stack.request(`/tickets/${ticketId}/events`, { key })).body as { events: { type: string; collectorId?: string; fields?: { label: string }[] }[] }).events;
    const result = events.find((event) => event.type === "COLLECTOR_RESULT");
    expect(result).toMatchObject({ collectorId: collector.id, fields: [{ label: "Where did it happen?" }, { label: "What happened?" }, { label: "Your email" }] });

    // The tenant file's form again, then none.
    const contact = (await listed(users.ada))[0]!;
    expect((await write(users.ada, "PUT", `/agent-api/settings/games/${galaxy().id}/contact-form`, { collectorId: contact.id })).status).toBe(200);
    expect((await contactFormOf(code))?.title).toBe("Contact us");
    const none = await write(users.ada, "PUT", `/agent-api/settings/games/${galaxy().id}/contact-form`, { collectorId: null });
    expect(none.status, none.text).toBe(200);
    expect(await contactFormOf(code)).toBeNull();
    expect((await write(users.ada, "PUT", `/agent-api/settings/games/${galaxy().id}/contact-form`, { collectorId: contact.id })).status).toBe(200);

    // Every change in the audit log, with before and after.
    const entries = (await auditLog()).filter((entry) => entry.action.startsWith("collector."));
    const about = (id: string) => entries.filter((entry) => entry.target?.id === id).map((entry) => entry.action).reverse();
    expect(about(collector.id)).toEqual(["collector.created", "collector.updated", "collector.retired"]);
    const update = entries.find((entry) => entry.action === "collector.updated")!;
    expect(update).toMatchObject({ actor: { type: "user", id: users.ada.userId }, target: { type: "collector", id: collector.id } });
    expect(update.before).toMatchObject({ title: "Bug report", fields: expect.arrayContaining([expect.objectContaining({ key: "shot", type: "FILE" })]) });
    expect(update.after).toMatchObject({ title: "Report a bug", fields: expect.not.arrayContaining([expect.objectContaining({ key: "shot" })]) });
    expect(entries.find((entry) => entry.action === "collector.retired")!.after).toMatchObject({ retiredAt: expect.any(String) });
    const contactForms = entries.filter((entry) => entry.action === "collector.contact_form_changed").reverse();
    expect(contactForms.map((entry) => [entry.target, entry.before, entry.after])).toEqual([
      [{ type: "game", id: galaxy().id }, { collectorId: contact.id, title: "Contact us" }, { collectorId: collector.id, title: "Report a bug" }],
      [{ type: "game", id: galaxy().id }, { collectorId: null }, { collectorId: contact.id, title: "Contact us" }],
      [{ type: "game", id: galaxy().id }, { collectorId: contact.id, title: "Contact us" }, { collectorId: null }],
      [{ type: "game", id: galaxy().id }, { collectorId: null }, { collectorId: contact.id, title: "Contact us" }],
    ]);
  });

  it("answers 404 for another company's collector or game, and for a collector of another game", async () => {
    const theirs = (await listed(users.oto))[0]!;
    expect((await write(users.ada, "PUT", `/agent-api/settings/collectors/${theirs.id}`, { title: "Mine", fields: bugReport.fields })).status).toBe(404);
    expect((await write(users.ada, "DELETE", `/agent-api/settings/collectors/${theirs.id}`)).status).toBe(404);
    expect((await write(users.ada, "POST", "/agent-api/settings/collectors", { gameId: other.games.theirs!.id, ...bugReport })).status).toBe(404);
    expect((await write(users.ada, "PUT", `/agent-api/settings/games/${other.games.theirs!.id}/contact-form`, { collectorId: null })).status).toBe(404);
    expect((await write(users.ada, "PUT", `/agent-api/settings/games/${galaxy().id}/contact-form`, { collectorId: theirs.id })).status).toBe(404);
    const mine = (await listed(users.ada))[0]!;
    expect((await write(users.ada, "PUT", `/agent-api/settings/games/${nebula().id}/contact-form`, { collectorId: mine.id })).status).toBe(404);
    expect((await listed(users.oto))[0]).toEqual(theirs);
  });

  it("answers 403 to an agent on every operation", async () => {
    const mine = (await listed(users.ada))[0]!;
    const attempts = [
      await read(users.abe, "/agent-api/settings/collectors"),
      await write(users.abe, "POST", "/agent-api/settings/collectors", { gameId: galaxy().id, ...bugReport }),
      await write(users.abe, "PUT", `/agent-api/settings/collectors/${mine.id}`, { title: "Sneaky", fields: bugReport.fields }),
      await write(users.abe, "DELETE", `/agent-api/settings/collectors/${mine.id}`),
      await write(users.abe, "PUT", `/agent-api/settings/games/${galaxy().id}/contact-form`, { collectorId: null }),
    ];
    for (const attempt of attempts) {
      expect(attempt.status, attempt.text).toBe(403);
      expect(attempt.body).toMatchObject({ code: "permission_denied" });
    }
    expect((await listed(users.ada))[0]).toEqual(mine);
  });

  it("answers bad input with 400 naming its path, by the rules of a tenant file's collector", async () => {
    const mine = (await listed(users.ada))[0]!;
    const create = (body: Record<string, unknown>) => write(users.ada, "POST", "/agent-api/settings/collectors", { gameId: galaxy().id, title: "Bad", ...body });
    const text = { key: "a", label: "A", type: "TEXT" };
    const cases: [StackResponse, string][] = [
      [await create({ fields: [] }), "/fields"],
      [await create({ title: " ", fields: [text] }), "/title"],
      [await create({ fields: [{ ...text, type: "NUMBER" }] }), "/fields/0/type"],
      [await create({ fields: [text, { ...text, label: "B" }] }), "/fields/1/key"],
      [await create({ fields: [text, { key: "b", label: "B", type: "DROPDOWN" }] }), "/fields/1/options"],
      [await create({ fields: [{ ...text, options: ["x"] }] }), "/fields/0/options"],
      [await create({ fields: [{ key: "c", label: "C", type: "SELECT_GROUP", options: ["x", "x"] }] }), "/fields/0/options/1"],
      [await create({ fields: [{ ...text, key: "no spaces" }] }), "/fields/0/key"],
      [await create({ fields: [{ ...text, label: "" }] }), "/fields/0/label"],
      [await create({ ref: "bad ref", fields: [text] }), "/ref"],
      [await write(users.ada, "PUT", `/agent-api/settings/collectors/${mine.id}`, { title: "T", fields: [{ key: "d", label: "D", type: "DROPDOWN", options: [] }] }), "/fields/0/options"],
      [await write(users.ada, "PUT", `/agent-api/settings/collectors/${mine.id}`, { title: "T" }), "/fields"],
      [await write(users.ada, "PUT", `/agent-api/settings/games/${galaxy().id}/contact-form`, { collectorId: "nope" }), "/collectorId"],
    ];
    for (const [response, path] of cases) {
      expect(response.status, response.text).toBe(400);
      expect(issuePaths(response), response.text).toContain(path);
    }
    expect((await listed(users.ada))[0]).toEqual(mine);
  });
});
