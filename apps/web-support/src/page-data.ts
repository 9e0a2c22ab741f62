// What the gateway may put into the page it serves with a fresh session code (GET /support/?sid=):
// the session and the conversations, exactly as GET /player-api/session and /player-api/tickets
// answer them, in a JSON data block (never run as script, so the strict CSP is untouched). The
// page then shows its home without asking for them: two round trips less on a slow network.
// A page served without it (another static host, a code the gateway refused, a reload) asks.
import type { PlayerTicket, SupportSession } from "./api.ts";

export interface PageData {
  session: SupportSession;
  tickets: PlayerTicket[];
}

const ELEMENT_ID = "support-page-data";

/** The data the page was served with, once: it is removed from the document as it is read. */
export function takePageData(): PageData | null {
  const element = document.getElementById(ELEMENT_ID);
  if (!element) return null;
  element.remove();
  try {
    const data = JSON.parse(element.textContent ?? "") as Partial<PageData>;
    return data && typeof data.session === "object" && data.session !== null && Array.isArray(data.tickets) ? (data as PageData) : null;
  } catch {
    return null;
  }
}
