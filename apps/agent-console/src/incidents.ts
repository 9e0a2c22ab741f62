// The open incidents of the user's games (docs/automation.md, "Outbreaks"), for the banner every
// page shows. Read on each page change, on each incident change the live stream announces (one
// opened, a ticket joining, one closed), and every minute while the console is open (a stream
// that is down); the incident page reads its own.
import { signal } from "@preact/signals";
import { call } from "./api.ts";

export interface Incident {
  id: string;
  gameId: string;
  title: string;
  status: "open" | "closed";
  openedAt: string;
  closedAt: string | null;
  closedByUserId: string | null;
  ticketCount: number;
}

/** How often an open console reads the incidents again. */
export const INCIDENTS_EVERY_MS = 60_000;

export const openIncidents = signal<readonly Incident[]>([]);

export async function loadIncidents(): Promise<void> {
  const { body } = await call<{ incidents: Incident[] }>("GET", "/incidents");
  openIncidents.value = body.incidents;
}
