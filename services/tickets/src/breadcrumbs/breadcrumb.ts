// SDK breadcrumbs: what the game client logged before the player asked for help, with
// the client's own timestamps; the clock offset (client minus server) lets readers align them.
import type { ValidationIssue } from "@support/errors";

export interface Breadcrumb {
  message: string;
  clientOccurredAt: Date;
}

export const MAX_BREADCRUMBS_PER_CALL = 1000;
const MAX_BREADCRUMB_LENGTH = 10_000;

/** Issues of an upload: at most MAX_BREADCRUMBS_PER_CALL, each with a message and a valid time. */
export function breadcrumbIssues(breadcrumbs: readonly { message: string; clientOccurredAt: Date | undefined }[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (breadcrumbs.length > MAX_BREADCRUMBS_PER_CALL) {
    issues.push({ path: "/breadcrumbs", message: `must have at most ${MAX_BREADCRUMBS_PER_CALL} items` });
  }
  breadcrumbs.forEach((breadcrumb, index) => {
    if (breadcrumb.message.length > MAX_BREADCRUMB_LENGTH) {
      issues.push({ path: `/breadcrumbs/${index}/message`, message: `must be at most ${MAX_BREADCRUMB_LENGTH} characters` });
    }
    if (breadcrumb.clientOccurredAt === undefined || Number.isNaN(breadcrumb.clientOccurredAt.getTime())) {
      issues.push({ path: `/breadcrumbs/${index}/clientOccurredAt`, message: "must be a date-time" });
    }
  });
  return issues;
}
