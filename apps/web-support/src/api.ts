// The player API as the page uses it: every call carries `Authorization: Session <code>`.
// The API lives at the page's own origin unless the page says otherwise (a page hosted on a
// CDN sets <meta name="support-api" content="https://api.example.com">).
import type { Branding } from "./branding.ts";

export interface CollectorFieldDefinition {
  key: string;
  label: string;
  type: "TEXT" | "DATE" | "EMAIL" | "PLATFORM_SELECTOR" | "SELECT_GROUP" | "DROPDOWN" | "CHECKBOX" | "FILE";
  options?: string[];
  required: boolean;
}

export interface Collector {
  id: string;
  title: string;
  fields: CollectorFieldDefinition[];
}

export interface ResourceSummary {
  key: string;
  title: string;
  /** The section the home page lists it under (the session's list only); null: none. */
  section?: string | null;
  /** The language of its title, when known (it may differ from the page's). */
  language?: string;
}

export interface Resource extends ResourceSummary {
  body: string | null;
  /** The language its title and body are in (it may differ from the page's). */
  language: string;
}

/** A help center search result: the article, where it is, and plain text around the words found. */
export interface SearchResult {
  key: string;
  title: string;
  excerpt: string;
  /** The language the article is shown (and was searched) in. */
  language: string;
  section: string | null;
}

/** How far the session's player is proven; an unverified session sees only the conversations it started. */
export type Verification = "verified" | "email_verified" | "unverified";

export interface SupportSession {
  verification: Verification;
  game: { id: string; name: string; languages: string[] };
  language: string;
  environment: string | null;
  expiresAt: string;
  player: { id?: string; name?: string; email?: string };
  announcement: { text: string; details?: string | null; language?: string; detailsLanguage?: string } | null;
  resources: ResourceSummary[];
  resource: Resource | null;
  contactForm: Collector | null;
  /** How the page looks for the game (absent from an older API). */
  branding?: Branding;
}

export interface PlayerTicket {
  id: string;
  runningId: number;
  status: string;
  createdAt: string;
  lastActivityAt: string | null;
  resolutionType: string | null;
  csatScore: number | null;
  /** The conversation's last message, the player's or an agent's. */
  lastMessage: { from: "player" | "agent"; preview: string; hasAttachments: boolean; createdAt: string } | null;
  /** Agent messages since the player last looked at the conversation. */
  unread: number;
}

export interface AttachmentRef {
  id: string;
}

/** An item of GET /player-api/tickets/{id}/events; unknown types are kept and ignored. */
export interface TicketEvent {
  id: string;
  type: string;
  createdAt: string;
  message?: string;
  attachments?: AttachmentRef[];
  score?: number;
  review?: string | null;
  resolutionType?: string;
  title?: string;
  fields?: { label: string; type: string; value?: unknown; attachments?: AttachmentRef[] }[];
  /** An agent's message: its writer as players see them (absent when an API key sent it). */
  agent?: { displayName: string };
  [other: string]: unknown;
}

export interface UploadInstruction {
  attachmentId: string;
  uploadUrl: string;
  uploadMethod: "PUT";
  uploadHeaders: Record<string, string>;
}

export type CollectorAnswer =
  | { key: string; label: string; type: "TEXT" | "DATE" | "EMAIL" | "PLATFORM_SELECTOR"; value: string | null }
  | { key: string; label: string; type: "SELECT_GROUP" | "DROPDOWN"; value: string[] }
  | { key: string; label: string; type: "CHECKBOX"; value: boolean | null }
  | { key: string; label: string; type: "FILE"; attachments: string[] };

/** A failed call: the HTTP status and the API's error code (`unauthenticated`, `conflict`, ...). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** The error's `details.type` (`VALIDATION_ERROR`, `ALREADY_VERIFIED`, ...), if any. */
  readonly detailsType: string | undefined;
  constructor(status: number, code: string, message: string, detailsType?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.detailsType = detailsType;
  }
}

export function apiBase(): string {
  const configured = document.querySelector<HTMLMetaElement>('meta[name="support-api"]')?.content;
  return (configured || location.origin).replace(/\/$/, "");
}

export interface PlayerApi {
  session(): Promise<SupportSession>;
  resource(key: string): Promise<Resource>;
  /** The help articles matching the words, best first. */
  search(query: string): Promise<SearchResult[]>;
  /** Up to three articles to read after this one. */
  related(key: string): Promise<ResourceSummary[]>;
  /** "Was this helpful?": one answer per session and article, a second replaces the first. */
  feedback(key: string, helpful: boolean): Promise<void>;
  tickets(): Promise<PlayerTicket[]>;
  /**
   * Asks for the conversations now, beside the session: the home page's first tickets() takes
   * this answer instead of asking after the session arrived (one round trip less on a slow
   * network before the home page is whole). Given the conversations (the page carried them),
   * that answer is taken without asking.
   */
  prefetchTickets(known?: PlayerTicket[]): void;
  /** Opens a ticket; `article` names the help article the player read before asking. */
  openTicket(message: string, attachments: AttachmentRef[], article?: string): Promise<{ ticketId: string }>;
  sendMessage(ticketId: string, message: string, attachments: AttachmentRef[]): Promise<{ status: string }>;
  collectorResult(ticketId: string, collector: Collector, fields: CollectorAnswer[]): Promise<void>;
  events(ticketId: string): Promise<TicketEvent[]>;
  rate(ticketId: string, score: number, review: string | null): Promise<void>;
  /** The player looked at the conversation now: its agent messages so far are read. */
  markRead(ticketId: string): Promise<void>;
  startUpload(file: { fileName: string; fileType: string; fileSize: number }): Promise<UploadInstruction>;
  attachment(ticketId: string, attachmentId: string): Promise<Blob>;
  /** Mails a one-time code to the session's email address. */
  sendEmailCode(): Promise<{ sentTo: string; expiresAt: string; sendsLeft: number }>;
  /** Enters the mailed code; the session then sees the address's earlier conversations. */
  confirmEmailCode(code: string): Promise<{ verification: Verification }>;
  /** The raw response of the ticket's event stream (Server-Sent Events). */
  stream(ticketId: string, lastEventId: string | undefined, signal: AbortSignal): Promise<Response>;
}

/** How long conversations asked for beside the session stay the home page's answer. */
const PREFETCH_FRESH_MS = 10_000;

export function createPlayerApi(sessionCode: string): PlayerApi {
  const base = apiBase();
  const headers = (extra: Record<string, string> = {}) => ({ Authorization: `Session ${sessionCode}`, ...extra });

  async function call<T>(path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
    const response = await fetch(base + path, {
      method: init.method ?? "GET",
      headers: headers(init.json === undefined ? {} : { "Content-Type": "application/json" }),
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      credentials: "omit",
    });
    if (!response.ok) throw await toError(response);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }

  const listTickets = async () => (await call<{ tickets: PlayerTicket[] }>("/player-api/tickets")).tickets;
  // Taken only by a tickets() asked for soon after it (the home page shown with the session);
  // a later one (the session opened on an article, home visited afterwards) asks afresh.
  let prefetched: { answer: Promise<PlayerTicket[]>; at: number } | undefined;

  return {
    session: () => call<SupportSession>("/player-api/session"),
    resource: (key) => call<Resource>(`/player-api/resources/${encodeURIComponent(key)}`),
    search: async (query) => (await call<{ results: SearchResult[] }>(`/player-api/resources?q=${encodeURIComponent(query)}`)).results,
    related: async (key) => (await call<{ resources: ResourceSummary[] }>(`/player-api/resources/${encodeURIComponent(key)}/related`)).resources,
    async feedback(key, helpful) {
      await call(`/player-api/resources/${encodeURIComponent(key)}/feedback`, { method: "POST", json: { helpful } });
    },
    tickets: () => {
      const answer = prefetched !== undefined && Date.now() - prefetched.at < PREFETCH_FRESH_MS ? prefetched.answer : listTickets();
      prefetched = undefined;
      return answer;
    },
    prefetchTickets(known) {
      prefetched = { answer: known ? Promise.resolve(known) : listTickets(), at: Date.now() };
      // A refused session is handled by the session's own answer; the home page that would
      // read this one is never shown then.
      prefetched.answer.catch(() => undefined);
    },
    openTicket: (message, attachments, article) =>
      call("/player-api/tickets", { method: "POST", json: { message, ...attachmentIds(attachments), ...(article ? { article } : {}) } }),
    sendMessage: (ticketId, message, attachments) =>
      call(`/player-api/tickets/${encodeURIComponent(ticketId)}/messages`, { method: "POST", json: { message, ...attachmentIds(attachments) } }),
    async collectorResult(ticketId, collector, fields) {
      await call(`/player-api/tickets/${encodeURIComponent(ticketId)}/collector-results`, {
        method: "POST",
        json: { collectorId: collector.id, title: collector.title, fields },
      });
    },
    events: async (ticketId) => (await call<{ events: TicketEvent[] }>(`/player-api/tickets/${encodeURIComponent(ticketId)}/events`)).events,
    async rate(ticketId, score, review) {
      await call(`/player-api/tickets/${encodeURIComponent(ticketId)}/csat`, { method: "POST", json: { score, ...(review ? { review } : {}) } });
    },
    async markRead(ticketId) {
      await call(`/player-api/tickets/${encodeURIComponent(ticketId)}/read`, { method: "POST" });
    },
    startUpload: (file) => call<UploadInstruction>("/player-api/attachments", { method: "POST", json: file }),
    sendEmailCode: () => call("/player-api/verification/email", { method: "POST" }),
    confirmEmailCode: (code) => call("/player-api/verification/email/confirm", { method: "POST", json: { code } }),
    async attachment(ticketId, attachmentId) {
      const response = await fetch(`${base}/player-api/tickets/${encodeURIComponent(ticketId)}/attachments/${encodeURIComponent(attachmentId)}`, {
        headers: headers(),
        redirect: "follow",
        credentials: "omit",
      });
      if (!response.ok) throw await toError(response);
      return response.blob();
    },
    async stream(ticketId, lastEventId, signal) {
      const response = await fetch(`${base}/player-api/tickets/${encodeURIComponent(ticketId)}/stream`, {
        headers: headers({ Accept: "text/event-stream", ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}) }),
        credentials: "omit",
        cache: "no-store",
        signal,
      });
      if (!response.ok) throw await toError(response);
      return response;
    },
  };
}

/** Requests name attachments by id; events answer them as `{ id }`. */
function attachmentIds(attachments: AttachmentRef[]): { attachments?: string[] } {
  return attachments.length > 0 ? { attachments: attachments.map((attachment) => attachment.id) } : {};
}

async function toError(response: Response): Promise<ApiError> {
  let code = "unknown";
  let message = response.statusText;
  let detailsType: string | undefined;
  try {
    const body = (await response.json()) as { code?: string; message?: string; details?: { type?: string } };
    code = body.code ?? code;
    message = body.message ?? message;
    detailsType = body.details?.type;
  } catch {
    // Not JSON (a proxy's page): the status alone tells.
  }
  return new ApiError(response.status, code, message, detailsType);
}
