// What a list shows of each ticket beyond its fields: its subject, the start of the player's
// first message, and whether it is unread for the user: a player wrote after the user last
// looked at it (or the user never did).

/** The most of the first message a subject shows. */
export const SUBJECT_LENGTH = 140;

/** The first line of the message, its spaces collapsed, cut at a word boundary near SUBJECT_LENGTH with an ellipsis. */
export function subjectOf(message: string): string {
  const line = (message.split(/\r?\n/).find((part) => part.trim() !== "") ?? "").replace(/\s+/g, " ").trim();
  if (line.length <= SUBJECT_LENGTH) return line;
  const cut = line.slice(0, SUBJECT_LENGTH);
  const space = cut.lastIndexOf(" ");
  return `${(space > SUBJECT_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

export function isUnread(lastPlayerMessageAt: Date | null, readAt: Date | undefined): boolean {
  return lastPlayerMessageAt !== null && (readAt === undefined || lastPlayerMessageAt > readAt);
}
