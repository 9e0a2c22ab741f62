// Invitations, password resets and deactivation of the support application's users. A link's
// token exists only in the link (mailed when SMTP_URL is set, printed by pnpm admin); redeeming
// it sets the password, once.
import { writeEvents } from "@support/bus";
import { newEvent } from "@support/events";
import { conflict, notFound, validationError } from "@support/errors";
import { emailNotConfigured, type Mailer } from "@support/mail";
import type { Kysely } from "kysely";
import type { ContentConfig } from "../config.ts";
import type { ContentDatabase } from "../database.ts";
import { findCompany } from "../companies/company.repository.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import { findCompanyUserForUpdate, findUser, findUsersByEmail, lockActiveAdmins } from "../users/user.repository.ts";
import { checkAdminLeft, createUser } from "../users/user.service.ts";
import { userAuditView, type NewUserInput, type User } from "../users/user.ts";
import {
  findPasswordHash, findUserLink, insertUserLink, markLinkUsed, retireLinks, setUserActive, upsertPasswordHash,
} from "./agent-access.repository.ts";
import { endAndAnnounce } from "./agent-access.service.ts";
import { newToken, tokenHash } from "./agent-session.ts";
import { OPERATOR_ORIGIN, writeAudit, type AuditOrigin } from "../audit/audit-log.ts";
import { hashPassword, passwordIssues } from "./password.ts";
import { isUsable, linkMail, linkUrl, LINK_LIFETIME_MS, type LinkPurpose } from "./user-link.ts";

type Db = Kysely<ContentDatabase>;

export interface UserLinksContext {
  db: Db;
  config: Pick<ContentConfig, "SUPPORT_APP_URL">;
  mailer: Mailer;
}

export interface IssuedLink {
  user: User;
  url: string;
  expiresAt: Date;
  mailed: boolean;
}

const UNUSABLE_LINK = "This link is unknown, was used already or has expired";

async function issueLink(ctx: UserLinksContext, trx: Db, user: User, purpose: LinkPurpose, now: Date): Promise<{ url: string; expiresAt: Date }> {
  await retireLinks(trx, user.id, purpose, now);
  const token = newToken();
  const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS[purpose]);
  await insertUserLink(trx, { purpose, tokenHash: tokenHash(token), userId: user.id, companyId: user.companyId, now, expiresAt });
  return { url: linkUrl(ctx.config.SUPPORT_APP_URL, purpose, token), expiresAt };
}

/** Mails a link when mail is configured; whether it did. A link is made first, so a mail outage loses nothing (an operator can pass it on). */
async function mailLink(ctx: UserLinksContext, user: User, purpose: LinkPurpose, url: string): Promise<boolean> {
  if (!ctx.mailer.configured) return false;
  const company = await findCompany(ctx.db, user.companyId);
  await ctx.mailer.send({ to: user.email, ...linkMail(purpose, user.name, url, company?.name ?? "your studio") });
  return true;
}

/**
 * Invites a user of the company: creates them (as the tenant file would) or finds the one with
 * this email who has no password yet, and issues an invitation link (a new one replaces the
 * last). A user who already has a password is a conflict: they sign in, or reset it; so is a
 * deactivated user (their link would open nothing). `origin`: an operator unless an admin
 * invites in the team settings.
 */
export async function inviteUser(ctx: UserLinksContext, companyId: string, input: NewUserInput, now = new Date(), origin: AuditOrigin = OPERATOR_ORIGIN): Promise<IssuedLink> {
  if (!isUuid(companyId)) throw notFound("company not found");
  const issued = await inTransaction(ctx.db, async (trx) => {
    const existing = (await findUsersByEmail(trx, input.email.trim())).find((user) => user.companyId === companyId);
    const user = existing ?? (await createUser(trx, companyId, input));
    if (existing && (await findPasswordHash(trx, existing.id)) !== undefined) throw conflict("This user has a password already: they sign in, or reset it");
    if (existing && !existing.active) throw conflict("This user is deactivated");
    const link = await issueLink(ctx, trx, user, "invitation", now);
    await writeAudit(
      trx,
      {
        action: "user.invited", companyId, userId: user.id, actor: origin.actor, clientAddress: origin.clientAddress ?? null, target: { type: "user", id: user.id },
        before: existing ? userAuditView(existing) : null, after: userAuditView(user), detail: { role: user.role, resent: existing !== undefined, expiresAt: link.expiresAt.toISOString() },
      },
      now,
    );
    return { user, ...link };
  });
  return { ...issued, mailed: await mailLink(ctx, issued.user, "invitation", issued.url) };
}

/**
 * A new invitation for the company's user who has no password yet (the team settings' "resend"):
 * the previous link stops working. NOT_FOUND for another company's user.
 */
export async function resendInvitation(ctx: UserLinksContext, companyId: string, userId: string, origin: AuditOrigin, now = new Date()): Promise<IssuedLink> {
  const user = isUuid(companyId) && isUuid(userId) ? await findUser(ctx.db, userId) : undefined;
  if (!user || user.companyId !== companyId) throw notFound("user not found");
  return inviteUser(ctx, companyId, { name: user.name, email: user.email, gameIds: [] }, now, origin);
}

/** A password-reset link for the active user with this email (an operator's act). */
export async function createPasswordResetLink(ctx: UserLinksContext, email: string, now = new Date()): Promise<IssuedLink> {
  const users = (await findUsersByEmail(ctx.db, email.trim())).filter((user) => user.active);
  if (users.length !== 1) throw notFound("no single active user has this email");
  const user = users[0]!;
  const link = await inTransaction(ctx.db, async (trx) => {
    const issued = await issueLink(ctx, trx, user, "password_reset", now);
    await writeAudit(trx, { action: "password_reset.requested", companyId: user.companyId, userId: user.id, actor: { type: "operator", id: null } }, now);
    return issued;
  });
  return { user, ...link, mailed: await mailLink(ctx, user, "password_reset", link.url) };
}

/**
 * A user's own request for a reset link by email: mailed to the one active user with this email
 * and a password; nothing happens otherwise, and the caller cannot tell which.
 */
export async function requestPasswordReset(ctx: UserLinksContext, email: string, clientAddress: string, now = new Date()): Promise<void> {
  // Said to everyone alike: it depends on the service, not on the account.
  if (!ctx.mailer.configured) throw emailNotConfigured();
  const users = (await findUsersByEmail(ctx.db, email.trim())).filter((user) => user.active);
  const user = users.length === 1 ? users[0]! : undefined;
  if (!user || (await findPasswordHash(ctx.db, user.id)) === undefined) {
    await writeAudit(ctx.db, { action: "password_reset.requested", companyId: null, userId: null, actor: { type: "anonymous", id: null }, clientAddress, detail: { known: false } }, now);
    return;
  }
  const link = await inTransaction(ctx.db, async (trx) => {
    const issued = await issueLink(ctx, trx, user, "password_reset", now);
    await writeAudit(trx, { action: "password_reset.requested", companyId: user.companyId, userId: user.id, actor: { type: "anonymous", id: null }, clientAddress, detail: { known: true } }, now);
    return issued;
  });
  await mailLink(ctx, user, "password_reset", link.url);
}

/** What a usable link is for (its user's email and name), or NOT_FOUND. */
export async function inspectLink(ctx: Pick<UserLinksContext, "db">, token: string, now = new Date()): Promise<{ purpose: LinkPurpose; user: User; expiresAt: Date }> {
  const link = token === "" ? undefined : await findUserLink(ctx.db, tokenHash(token));
  const user = link && isUsable(link, now) ? await findUser(ctx.db, link.userId) : undefined;
  if (!link || !user?.active) throw notFound(UNUSABLE_LINK);
  return { purpose: link.purpose, user, expiresAt: link.expiresAt };
}

/** Sets the password a link was made for and uses the link up; the user's sessions end. */
export async function redeemLink(ctx: Pick<UserLinksContext, "db">, token: string, password: string, clientAddress: string, now = new Date()): Promise<{ purpose: LinkPurpose; user: User }> {
  const { user } = await inspectLink(ctx, token, now);
  const issues = passwordIssues(password, user);
  if (issues.length > 0) throw validationError(issues, "The password does not meet the rule");
  const passwordHash = await hashPassword(password);
  return ctx.db.transaction().execute(async (trx) => {
    // Locked and checked again: two uses of one link at once set at most one password.
    const link = await findUserLink(trx, tokenHash(token), { lock: true });
    if (!link || !isUsable(link, now)) throw notFound(UNUSABLE_LINK);
    await markLinkUsed(trx, link.id, now);
    await upsertPasswordHash(trx, user, passwordHash);
    await endAndAnnounce(trx, user, { userId: user.id }, "password_changed", now);
    await writeAudit(trx, { action: "link.redeemed", companyId: user.companyId, userId: user.id, actor: { type: "user", id: user.id }, clientAddress, detail: { purpose: link.purpose } }, now);
    return { purpose: link.purpose, user };
  });
}

/**
 * Makes the company's user (by email, or by id) inactive: no sign-in, every session ended. An
 * admin in the team settings (origin a user) cannot deactivate themself, nor the company's last
 * active admin (checkAdminLeft); an operator can.
 */
export async function deactivateUser(
  ctx: Pick<UserLinksContext, "db">,
  companyId: string,
  who: string | { userId: string },
  now = new Date(),
  origin: AuditOrigin = OPERATOR_ORIGIN,
): Promise<{ user: User; endedSessions: number }> {
  const found = !isUuid(companyId)
    ? undefined
    : typeof who === "string"
      ? (await findUsersByEmail(ctx.db, who.trim())).find((candidate) => candidate.companyId === companyId)
      : isUuid(who.userId) ? await findUser(ctx.db, who.userId) : undefined;
  if (!found || found.companyId !== companyId) throw notFound(typeof who === "string" ? "no user of this company has this email" : "user not found");
  return ctx.db.transaction().execute(async (trx) => {
    const admins = origin.actor.type === "user" ? await lockActiveAdmins(trx, companyId) : [];
    const user = (await findCompanyUserForUpdate(trx, companyId, found.id))!;
    if (origin.actor.type === "user" && user.active) checkAdminLeft(admins, user, origin, "account");
    const changed = await setUserActive(trx, user.id, false);
    const ended = await endAndAnnounce(trx, user, { userId: user.id }, "deactivated", now);
    if (changed) {
      await writeEvents(trx, [newEvent("content.user.deactivated", user.companyId, { id: user.id })]);
      await writeAudit(
        trx,
        {
          action: "user.deactivated", companyId: user.companyId, userId: user.id, actor: origin.actor, clientAddress: origin.clientAddress ?? null,
          target: { type: "user", id: user.id }, before: userAuditView(user), after: userAuditView({ ...user, active: false }), detail: { endedSessions: ended.length },
        },
        now,
      );
    }
    return { user: { ...user, active: false }, endedSessions: ended.length };
  });
}
