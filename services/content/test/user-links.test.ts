// Invitations, password resets and deactivation on the content side, against real Postgres and a
// local SMTP receiver: links mailed once, usable once within their lifetime, stored as hashes.
import { randomUUID } from "node:crypto";
import { createLogger } from "@support/logging";
import { createMailer, type Mailer } from "@support/mail";
import { startSmtpReceiver, type SmtpReceiver } from "@support/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAgentSession, setUserPassword, signIn, type AgentAccessContext } from "../src/agents/agent-access.service.ts";
import { createPasswordResetLink, deactivateUser, inspectLink, inviteUser, redeemLink, requestPasswordReset, type UserLinksContext } from "../src/agents/user-links.service.ts";
import { createUser } from "../src/users/user.service.ts";
import { startContent, type ContentTestContext } from "./context.ts";
import { seedCompany, seedGame } from "./fixtures.ts";

const PASSWORD = "lanterns over the quiet bay";
let ctx: ContentTestContext;
let smtp: SmtpReceiver;
let mailer: Mailer;
let links: UserLinksContext;
let access: AgentAccessContext;

beforeAll(async () => {
  ctx = await startContent();
  smtp = await startSmtpReceiver();
  mailer = createMailer({ smtpUrl: smtp.url, from: "Support <support@studio.example>", logger: createLogger({ service: "links-test", level: "silent" }) });
  links = { db: ctx.db, config: { SUPPORT_APP_URL: "https://support.studio.example/app" }, mailer };
  access = { db: ctx.db, config: ctx.config };
});
afterAll(async () => {
  mailer?.close();
  await smtp?.stop();
  await ctx?.stop();
});

const address = () => `agent-${randomUUID().slice(0, 8)}@studio.example`;
const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, "");
const signInWith = (email: string, password: string) => signIn(access, { email, password, clientAddress: `10.3.${Math.floor(Math.random() * 250)}.1`, userAgent: "" });

describe("an invitation", () => {
  it("creates the user, mails a link that sets the first password once, and stores only the token's hash", async () => {
    const company = await seedCompany(ctx.db, { name: "Harbour Games" });
    const game = await seedGame(ctx.db, company.id);
    const email = address();
    const issued = await inviteUser(links, company.id, { name: "Ines Invited", email, role: "agent", gameIds: [game.game.id] });
    expect(issued).toMatchObject({ user: { email, role: "agent", companyId: company.id }, mailed: true, url: expect.stringMatching(/^https:\/\/support\.studio\.example\/app\/welcome#token=[\w-]{43}$/) });
    expect(issued.expiresAt.getTime() - Date.now()).toBeGreaterThan(71.9 * 3_600_000);
    const mail = await smtp.waitForMail(email);
    expect(mail.subject).toBe("You are invited to Harbour Games's player support");
    expect(mail.text).toContain(issued.url);
    const token = tokenOf(issued.url);
    const stored = await ctx.db.selectFrom("user_links").select(["token_hash", "purpose"]).where("user_id", "=", issued.user.id).execute();
    expect(stored).toEqual([{ token_hash: expect.stringMatching(/^[0-9a-f]{64}$/), purpose: "invitation" }]);
    expect(JSON.stringify(stored)).not.toContain(token);

    expect(await inspectLink(links, token)).toMatchObject({ purpose: "invitation", user: { email, name: "Ines Invited" } });
    await expect(redeemLink(links, token, "short", "10.0.0.1")).rejects.toMatchObject({ code: "invalid_argument", details: { issues: [{ path: "/password" }] } });
    expect(await redeemLink(links, token, PASSWORD, "10.0.0.1")).toMatchObject({ purpose: "invitation", user: { email } });
    await expect(redeemLink(links, token, `${PASSWORD}!`, "10.0.0.1")).rejects.toMatchObject({ code: "not_found", message: "This link is unknown, was used already or has expired" });
    await expect(inspectLink(links, token)).rejects.toMatchObject({ code: "not_found" });
    expect((await signInWith(email, PASSWORD)).live.user.email).toBe(email);
  });

  it("expires after 72 hours, is replaced by a newer one, and is refused for a user who has a password", async () => {
    const company = await seedCompany(ctx.db);
    const email = address();
    const first = await inviteUser(links, company.id, { name: "Owen Old", email, gameIds: [] });
    const later = new Date(Date.now() + 73 * 3_600_000);
    await expect(inspectLink(links, tokenOf(first.url), later)).rejects.toMatchObject({ code: "not_found" });
    const second = await inviteUser(links, company.id, { name: "Owen Old", email, gameIds: [] });
    expect(second.user.id).toBe(first.user.id);
    await expect(inspectLink(links, tokenOf(first.url))).rejects.toMatchObject({ code: "not_found" });
    await redeemLink(links, tokenOf(second.url), PASSWORD, "10.0.0.1");
    await expect(inviteUser(links, company.id, { name: "Owen Old", email, gameIds: [] })).rejects.toMatchObject({ code: "conflict" });
  });

  it("is printed, not mailed, without SMTP_URL", async () => {
    const company = await seedCompany(ctx.db);
    const quiet = { ...links, mailer: createMailer({ smtpUrl: "", from: "x@y.example", logger: createLogger({ service: "t", level: "silent" }) }) };
    const issued = await inviteUser(quiet, company.id, { name: "Pia Printed", email: address(), gameIds: [] });
    expect(issued.mailed).toBe(false);
    expect(await inspectLink(quiet, tokenOf(issued.url))).toMatchObject({ purpose: "invitation" });
    await expect(requestPasswordReset(quiet, "anyone@studio.example", "10.0.0.1")).rejects.toMatchObject({ code: "failed_precondition", details: { type: "EMAIL_NOT_CONFIGURED" } });
  });
});

describe("a password reset", () => {
  it("is mailed to a user with a password who asks, sets a new password once within the hour, and ends their sessions", async () => {
    const company = await seedCompany(ctx.db);
    const email = address();
    await createUser(ctx.db, company.id, { name: "Rita Reset", email, gameIds: [] });
    await setUserPassword(access, email, PASSWORD);
    const session = await signInWith(email, PASSWORD);
    const before = smtp.mails.length;
    await requestPasswordReset(links, email, "10.0.0.2");
    const mail = await smtp.waitForMail(email, { after: before });
    expect(mail.subject).toBe("Reset your player support password");
    const url = /https:\S+reset-password#token=[\w-]+/.exec(mail.text)![0];
    await expect(inspectLink(links, tokenOf(url), new Date(Date.now() + 61 * 60_000))).rejects.toMatchObject({ code: "not_found" });
    await redeemLink(links, tokenOf(url), "a brand new lighthouse keeper", "10.0.0.2");
    await expect(getAgentSession(access, session.token)).rejects.toMatchObject({ code: "unauthenticated" });
    await expect(signInWith(email, PASSWORD)).rejects.toMatchObject({ code: "unauthenticated" });
    expect((await signInWith(email, "a brand new lighthouse keeper")).live.user.email).toBe(email);
  });

  it("answers an unknown email the same and mails nothing", async () => {
    const before = smtp.mails.length;
    await expect(requestPasswordReset(links, "nobody-here@studio.example", "10.0.0.3")).resolves.toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.mails.length).toBe(before);
  });

  it("can be made by an operator for the link to be passed on", async () => {
    const company = await seedCompany(ctx.db);
    const email = address();
    await createUser(ctx.db, company.id, { name: "Otto Operator", email, gameIds: [] });
    const issued = await createPasswordResetLink(links, email);
    expect(issued.url).toMatch(/\/app\/reset-password#token=/);
    expect(await inspectLink(links, tokenOf(issued.url))).toMatchObject({ purpose: "password_reset" });
  });
});

describe("deactivation", () => {
  it("refuses the user's sign-in with the generic answer, ends their sessions and says so once", async () => {
    const company = await seedCompany(ctx.db);
    const email = address();
    const user = await createUser(ctx.db, company.id, { name: "Dora Done", email, gameIds: [] });
    await setUserPassword(access, email, PASSWORD);
    const session = await signInWith(email, PASSWORD);
    expect(await deactivateUser(links, company.id, email)).toMatchObject({ user: { id: user.id, active: false }, endedSessions: 1 });
    expect((await deactivateUser(links, company.id, email)).endedSessions).toBe(0);
    await expect(getAgentSession(access, session.token)).rejects.toMatchObject({ code: "unauthenticated" });
    await expect(signInWith(email, PASSWORD)).rejects.toMatchObject({ code: "unauthenticated", message: "The email or password is wrong" });
    const audit = await ctx.db.selectFrom("audit_log").select("action").where("user_id", "=", user.id).where("action", "=", "user.deactivated").execute();
    expect(audit).toHaveLength(1);
    await expect(deactivateUser(links, (await seedCompany(ctx.db)).id, email)).rejects.toMatchObject({ code: "not_found" });
  });
});
