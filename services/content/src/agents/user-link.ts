// Invitation and password-reset links: a random token in the link's fragment (so that it never
// reaches a server log), stored only as its hash, single use, with an expiry.
export const LINK_PURPOSES = ["invitation", "password_reset"] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

/** How long a link can be used: an invitation 72 hours, a password reset 1 hour. */
export const LINK_LIFETIME_MS: Record<LinkPurpose, number> = { invitation: 72 * 3_600_000, password_reset: 3_600_000 };

/** The page of the support application that takes the link. */
// Pages of the support application, below its address (SUPPORT_APP_URL).
const LINK_PAGES: Record<LinkPurpose, string> = { invitation: "/welcome", password_reset: "/reset-password" };

export interface UserLinkRecord {
  id: string;
  purpose: LinkPurpose;
  userId: string;
  companyId: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export function linkUrl(appUrl: string, purpose: LinkPurpose, token: string): string {
  return `${appUrl.replace(/\/+$/, "")}${LINK_PAGES[purpose]}#token=${token}`;
}

export const isUsable = (link: UserLinkRecord, now: Date): boolean => link.usedAt === null && link.expiresAt > now;

/** The mail that carries a link, in English (the support application's language for now). */
export function linkMail(purpose: LinkPurpose, name: string, url: string, companyName: string): { subject: string; text: string } {
  if (purpose === "invitation") {
    return {
      subject: `You are invited to ${companyName}'s player support`,
      text: `Hello ${name},\n\nyou have been invited to answer players in ${companyName}'s support application. Choose your password here (the link works once, within 72 hours):\n\n${url}\n\nIf you did not expect this, ignore this mail.\n`,
    };
  }
  return {
    subject: "Reset your player support password",
    text: `Hello ${name},\n\nsomeone asked to reset the password of your support application account. Choose a new one here (the link works once, within an hour):\n\n${url}\n\nIf it was not you, ignore this mail: your password stays as it is.\n`,
  };
}
