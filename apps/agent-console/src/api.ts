// The agent API as the console uses it: same-origin requests that carry the session cookie, and
// on every state-changing request the session's CSRF token (the browser adds the Origin).
// Errors are the project's JSON body `{code, message, details?}`, raised as ApiError.

export interface ApiErrorBody {
  code: string;
  message: string;
  /** For a refused request body: `{type, issues: [{path, message}]}`, each path a JSON pointer. */
  details?: { type?: string; issues?: { path?: string; message?: string }[] } & Record<string, unknown>;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ApiErrorBody["details"];
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, body: Partial<ApiErrorBody>, retryAfter: string | null) {
    super(body.message ?? `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.code = body.code ?? "unknown";
    this.details = body.details;
    const seconds = retryAfter === null ? NaN : Number(retryAfter);
    this.retryAfterSeconds = Number.isFinite(seconds) ? seconds : undefined;
  }

  /** The JSON pointers (`/password`) the error names, when it names fields. */
  get paths(): string[] {
    const issues = this.details?.issues;
    return Array.isArray(issues) ? issues.map((issue) => issue.path ?? "").filter(Boolean) : [];
  }
}

let csrfToken: string | undefined;

/** The token of the signed-in session (from GET /agent-api/me); sent as X-CSRF-Token on writes. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export interface ApiAnswer<T> {
  status: number;
  body: T;
}

export async function call<T = unknown>(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken !== undefined) headers["x-csrf-token"] = csrfToken;
  const response = await fetch(`/agent-api${path}`, {
    method,
    headers,
    credentials: "same-origin",
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!response.ok) throw new ApiError(response.status, (parsed ?? {}) as Partial<ApiErrorBody>, response.headers.get("retry-after"));
  return { status: response.status, body: parsed as T };
}

export type Role = "admin" | "agent";

export interface Me {
  /** skills: names of the company's skill tags; empty when none. */
  /** available, languages, capacity: routing's settings of the user (docs/automation.md). */
  user: { id: string; name: string; displayName: string; email: string; role: Role; skills: string[]; available: boolean; languages: string[]; capacity: number };
  companyId: string;
  gameIds: string[];
  csrfToken: string;
  session: { createdAt: string; idleExpiresAt: string; expiresAt: string; scope: "full" | "two_factor_enrolment" };
  twoFactor: { enabled: boolean; required: boolean };
}

export interface TwoFactorChallenge {
  twoFactorRequired: true;
  expiresAt: string;
}

export interface TwoFactorEnrolment {
  otpauthUri: string;
  secret: string;
  qrCode: string;
}

export interface LinkInfo {
  purpose: "invitation" | "password_reset";
  email: string;
  name: string;
  expiresAt: string;
}

export type TicketStatus = "new" | "assigned" | "unassigned" | "waiting" | "on_hold" | "closed";

/** A ticket as the public API projects it (the fields the console shows). */
export interface Ticket {
  id: string;
  runningId: number;
  url: string;
  gameId: string;
  playerId: string | null;
  playerName: string | null;
  email: string | null;
  status: TicketStatus;
  channels: string[];
  language: string;
  resolutionType: string | null;
  /** With resolutionType merged: the ticket this one was merged into. */
  followUpTicketId: string | null;
  csatScore: number | null;
  csatReview: string | null;
  createdAt: string;
  lastActivityAt: string | null;
  tags: string[];
  fields: Record<string, unknown>;
  /** articleKey and articleTitle: the help article the player read before asking on the web support page. */
  metadata: { platform?: string; playerTier?: number; articleKey?: string; articleTitle?: string };
}

/** A ticket's SLA policy and clocks (GET /agent-api/tickets/{ticketId}/sla). */
export interface TicketSla {
  policyId: string | null;
  policyName: string | null;
  clocks: {
    metric: "first_response" | "next_response" | "resolution";
    cycle: string;
    state: "running" | "paused" | "met" | "breached";
    startedAt: string;
    stoppedAt: string | null;
    targetMinutes: number;
    elapsedSeconds: number;
    dueAt: string | null;
  }[];
}

export interface TicketListItem {
  ticket: Ticket;
  assigneeId: string | null;
  /** The first line of the player's first message. */
  subject: string;
  /** A player wrote since the user last looked at the ticket. */
  unread: boolean;
  /** When the ticket's SLA clock due soonest is (or was) due; null: no clock running. */
  slaDueAt: string | null;
  /** With a search (`q`): where the ticket matched. */
  match?: SearchMatch;
}

export type SearchMatchField = "message" | "note" | "collectorAnswer" | "playerName" | "email" | "playerId" | "runningId";

/** A search's snippet: plain text in parts, the highlighted parts being the matched words. */
export interface SearchMatch {
  field: SearchMatchField;
  eventId: string | null;
  snippet: { text: string; highlight: boolean }[];
}

export interface TicketPage {
  tickets: TicketListItem[];
  pagination: { cursor: string | null };
}

export interface ViewCount {
  id: string;
  name: string;
  count: number;
}

export interface ConversationEvent {
  id: string;
  type: string;
  createdAt: string;
  message?: string;
  language?: string;
  attachments?: { id: string }[];
  score?: number;
  review?: string | null;
  fields?: { key: string | null; label: string; type: string; value?: unknown; attachments?: { id: string }[] }[];
  /** On a copy of a merged ticket's event: that ticket, and when the event was written there. */
  mergedFrom?: { ticketId: string; runningId: number; eventId: string; createdAt: string };
}

/** Where the mail carrying an agent's message to the player of an email ticket stands. */
export interface EmailDelivery {
  status: "queued" | "sent" | "deferred" | "bounced" | "failed";
  attempts: number;
  sentAt: string | null;
  nextAttemptAt: string | null;
  lastError: string | null;
}

export interface ConversationItem {
  event: ConversationEvent;
  author: { type: "user" | "api_key" | "player" | "system"; id: string | null } | null;
  emailDelivery?: EmailDelivery;
}

/** What media knows of one of the conversation's files. */
export interface AttachmentInfo {
  id: string;
  fileName: string;
  fileType: string;
  fileSize: number;
}

/** POST /agent-api/tickets/{id}/attachments: where and how to PUT the file. */
export interface UploadInstruction {
  attachmentId: string;
  uploadUrl: string;
  uploadMethod: string;
  uploadHeaders: Record<string, string>;
  uploadExpiresInSeconds: number;
}

/** A mail received for an email ticket from someone who is not its player: held, never in the conversation. */
export interface HeldMail {
  id: string;
  from: string;
  subject: string;
  text: string;
  receivedAt: string;
}

export interface TicketView {
  ticket: Ticket;
  assigneeId: string | null;
  conversation: ConversationItem[];
  heldMails: HeldMail[];
  /** Name, type and size of the conversation's files; an id missing here is no longer stored. */
  attachments: AttachmentInfo[];
  player: {
    scheduledDeletion: { scheduledAt: string; dueAt: string; requestedBy: "api_key" | "operator" } | null;
    record: { servicePlayerId: string; playerId: string | null; name: string | null; email: string | null; tier: number | null; blocked: boolean } | null;
    breadcrumbs: { message: string; clientOccurredAt?: string }[];
    otherTickets: Ticket[];
  };
}

export interface CannedActions {
  addTags: string[];
  status: "waiting" | "on_hold" | null;
  resolve: boolean;
}

/** A canned response filled in for a ticket. */
export interface TicketCannedResponse {
  id: string;
  gameId: string | null;
  name: string;
  language: string;
  text: string;
  actions: CannedActions;
}

/** Who made a change in the audit log, or created an API key. */
export interface AuditActor {
  type: "user" | "operator" | "anonymous";
  id: string | null;
  name: string | null;
}

export interface ApiKeyInfo {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: string;
  createdBy: AuditActor;
  lastUsedAt: string | null;
  rateLimitPerMinute: number | null;
  effectiveRateLimitPerMinute: number;
  revokedAt: string | null;
}

export interface AuditEntry {
  id: string;
  action: string;
  userId: string | null;
  actor: AuditActor;
  clientAddress: string | null;
  target: { type: string; id: string } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  detail: Record<string, unknown>;
  createdAt: string;
}

/** A user of the company as the team settings show them. */
export interface TeamMember {
  id: string;
  name: string;
  displayName: string | null;
  email: string;
  role: "admin" | "agent";
  gameIds: string[];
  skills: string[];
  /** Ticket languages the user speaks; empty: every language. */
  languages: string[];
  capacity: number;
  available: boolean;
  twoFactorEnabled: boolean;
  state: "invited" | "invitation_expired" | "active" | "deactivated";
  invitationExpiresAt: string | null;
  lastSignedInAt: string | null;
  signedInNow: boolean;
  createdAt: string;
}

export interface Team {
  users: TeamMember[];
  games: { id: string; name: string }[];
  skillTags: string[];
}

export interface GameEnvironmentInfo {
  id: string;
  gameId: string;
  name: string;
  token: string;
  createdAt: string;
  previousToken: string | null;
  previousTokenExpiresAt: string | null;
  tokenRotatedAt: string | null;
}

export interface GameSettings {
  id: string;
  name: string;
  slug: string;
  languages: string[];
  blockUnverifiedPlayers: boolean;
  routingEnabled: boolean;
  metadataJwks: { keys: Record<string, unknown>[] } | null;
  createdAt: string;
  updatedAt: string;
  environments: GameEnvironmentInfo[];
}

export interface GameBranding {
  accentColor: string | null;
  accentTextColor: string;
  colorScheme: "light" | "dark" | "system";
  logo: { url: string; sha256: string; contentType: string; size: number; width: number; height: number } | null;
  updatedAt: string | null;
}

export interface MetadataTokenCheck {
  verified: boolean;
  reason: string | null;
  message: string | null;
  kid: string | null;
  expiresAt: string | null;
  metadata: Record<string, unknown> | null;
}

/** One change of a ticket's assignee (GET /tickets/{id}/assignments). */
export interface AssignmentChange {
  at: string;
  fromUserId: string | null;
  toUserId: string | null;
  by: { type: "user" | "api_key" | "player" | "system"; id: string | null };
}
