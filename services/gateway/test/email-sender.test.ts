// A company's own sender (its tenant file's company.email) over the real stack and a real SMTP
// receiver: an agent's reply and the survey of a company that set one go out From its name and
// address, while the Reply-To stays the platform's plus-address (answers come back to it), the
// Message-ID stays in MAIL_FROM's domain and bounces return to MAIL_FROM; a company without one
// keeps "<game> Support" <MAIL_FROM's address>; an edit of the file shows on the next mail.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInAgent, type SignedInAgent } from "./signed-in-agent.ts";
import { startStack, type Stack, type TenantResult } from "./stack.ts";

const PASSWORD = "a quiet harbour at dawn, 2026";
const suffix = randomUUID().slice(0, 8);
const DOMAIN = "mail.support.example";

let stack: Stack;

const player = (name: string) => `${name}-${suffix}@players.example`;
const header = (raw: string, name: string) => new RegExp(`^${name}: *(.*(?:\\r?\\n[ \\t].*)*)`, "im").exec(raw)?.[1]?.replace(/\r?\n[ \t]+/g, " ").trim();
const escaped = (text: string) => text.replaceAll(".", "\\.").replaceAll("+", "\\+");

/** A tenant of one game and one agent, signed in. */
interface Studio {
  tenant: TenantResult;
  agent: SignedInAgent;
  file: Record<string, unknown>;
}

function studioFile(name: string, ref: string, email?: Record<string, string>) {
  return {
    company: { name, primaryLanguage: "en", ...(email ? { email } : {}) },
    apiKeys: [{ name: "main" }],
    games: [{ ref: "galaxy", name: "Galaxy Raiders", slug: `galaxy-${ref}-${suffix}`, languages: ["en", "fr"], environments: [{ ref: "prod", name: "production" }] }],
    users: [{ ref: "ada", name: "Ada Agent", email: `ada-${ref}-${suffix}@studio.example`, role: "agent", displayName: "Ada", games: ["galaxy"] }],
  };
}

async function startStudio(file: ReturnType<typeof studioFile>): Promise<Studio> {
  const tenant = await stack.applyTenant(file);
  const email = file.users[0]!.email;
  await stack.admin(["users", "set-password", "--email", email], `${PASSWORD}\n`);
  return { tenant, agent: await signInAgent(stack, email, PASSWORD), file };
}

async function createTicket(studio: Studio, email: string, language: string): Promise<string> {
  const response = await stack.request("/tickets", {
    method: "POST",
    key: studio.tenant.apiKeys.main!,
    json: { gameId: studio.tenant.games.galaxy!.id, message: "My ship is gone", language, channels: ["email"], metadata: { player: { id: `p-${randomUUID().slice(0, 8)}`, name: "Pat", email } } },
  });
  expect(response.status, response.text).toBe(200);
  return (response.body as { ticketId: string }).ticketId;
}

async function act(studio: Studio, ticketId: string, actions: unknown[]): Promise<void> {
  const response = await stack.request(`/agent-api/tickets/${ticketId}/actions`, {
    method: "POST",
    headers: { cookie: studio.agent.cookie, origin: new URL(stack.url).origin, "x-csrf-token": studio.agent.csrfToken },
    json: { actions },
  });
  expect(response.status, response.text).toBe(200);
}

let star: Studio;
let plain: Studio;

beforeAll(async () => {
  stack = await startStack({
    env: {
      MAIL_FROM: `Player support <support@${DOMAIN}>`,
      EMAIL_REPLY_ADDRESS: `support@${DOMAIN}`,
      EMAIL_POLL_INTERVAL_MS: "100",
      // A company's sender is remembered a second here (a minute by default), so that an edit shows within the test.
      EMAIL_SENDER_CACHE_MS: "1000",
    },
  });
  star = await startStudio(studioFile("Star Studio", "star", { senderName: "Star Studio Support", senderAddress: "help@studio.example" }));
  plain = await startStudio(studioFile("Plain Studio", "plain"));
}, 180_000);
afterAll(() => stack?.stop());

describe("a company's own sender", () => {
  it("sends the company's replies and survey from its name and address; answers still come back to the platform", async () => {
    const address = player("pat");
    const ticketId = await createTicket(star, address, "fr");
    await act(star, ticketId, [{ type: "sendMessage", message: "We found your ship." }]);

    const mail = await stack.smtp.waitForMail(address, { timeoutMs: 15_000 });
    expect(header(mail.raw, "From")).toBe(`Star Studio Support <help@studio.example>`);
    expect(header(mail.raw, "Reply-To")).toMatch(new RegExp(`^support\\+[0-9a-f]{32}@${escaped(DOMAIN)}$`));
    expect(header(mail.raw, "Message-ID")).toMatch(new RegExp(`^<[0-9a-f-]{36}@${escaped(DOMAIN)}>$`));
    // The envelope sender, where delivery reports return, is still MAIL_FROM's address.
    expect(mail.from).toBe(`support@${DOMAIN}`);

    const before = stack.smtp.mails.length;
    await act(star, ticketId, [{ type: "resolveTicket" }]);
    const survey = await stack.smtp.waitForMail(address, { timeoutMs: 15_000, after: before });
    expect(header(survey.raw, "Auto-Submitted")).toBe("auto-generated");
    expect(header(survey.raw, "From")).toBe(`Star Studio Support <help@studio.example>`);
    expect(header(survey.raw, "Reply-To")).toBe(header(mail.raw, "Reply-To"));
  });

  it("keeps \"<game> Support\" <MAIL_FROM's address> for a company without one, in the ticket's language", async () => {
    const address = player("kim");
    const ticketId = await createTicket(plain, address, "fr");
    await act(plain, ticketId, [{ type: "sendMessage", message: "We found your ship." }]);
    const mail = await stack.smtp.waitForMail(address, { timeoutMs: 15_000 });
    expect(header(mail.raw, "From")).toBe(`Support Galaxy Raiders <support@${DOMAIN}>`);
    expect(header(mail.raw, "Reply-To")).toMatch(new RegExp(`^support\\+[0-9a-f]{32}@${escaped(DOMAIN)}$`));
  });

  it("takes a name alone with MAIL_FROM's address, once the file is applied again with it", async () => {
    const applied = await stack.applyTenant({ ...plain.file, company: { ...(plain.file.company as object), email: { senderName: "Plain Help" } } });
    expect(applied.companyId).toBe(plain.tenant.companyId);
    // Past EMAIL_SENDER_CACHE_MS the email service reads the company again.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const address = player("lee");
    const ticketId = await createTicket(plain, address, "en");
    await act(plain, ticketId, [{ type: "sendMessage", message: "We found your ship." }]);
    const mail = await stack.smtp.waitForMail(address, { timeoutMs: 15_000 });
    expect(header(mail.raw, "From")).toBe(`Plain Help <support@${DOMAIN}>`);
  });
});
