// Outbreak detection's rules, without I/O: a ticket's text as a vector, how alike two tickets
// are, and what a new ticket does (join an open incident, open one with the recent tickets like
// it, or nothing). The service (outbreaks.service.ts) reads the game's recent vectors and open
// incidents under the game's lock, decides with these functions and writes the result.
import { vectorize, type SparseVector } from "@support/triage";
import type { Actor } from "../tickets/ticket.ts";

/** Who detection's changes are attributed to in the tickets' history (and rules' outbreak moments). */
export const OUTBREAKS_ACTOR: Actor = { type: "system", id: "outbreaks" };

/** A company's outbreak settings (docs/automation.md#outbreaks). */
export interface OutbreakSettings {
  enabled: boolean;
  /** Tickets alike (the new one included) that open an incident. */
  minTickets: number;
  /** How far back, in minutes, tickets count towards an outbreak. */
  windowMinutes: number;
  /** Cosine similarity (0..1) from which two tickets are alike. */
  similarity: number;
}

/**
 * Off unless an admin turns it on (nothing changes for a company that does not); the numbers
 * are the ones measured on the triage corpus (docs/automation.md#outbreaks).
 */
export const DEFAULT_OUTBREAK_SETTINGS: Readonly<OutbreakSettings> = Object.freeze({ enabled: false, minTickets: 10, windowMinutes: 30, similarity: 0.6 });

export const OUTBREAK_LIMITS = Object.freeze({
  minTickets: { min: 3, max: 1000 },
  windowMinutes: { min: 5, max: 1440 },
  similarity: { min: 0.2, max: 0.95 },
});

/** Most recent tickets of a game one decision compares with (newest first): bounds the cost per ticket. */
export const RECENT_LIMIT = 300;

/** Characters of the first message that make an incident's title. */
const TITLE_LENGTH = 120;

/** The text that is compared: the ticket's first player message. */
export function outbreakVector(text: string): SparseVector {
  return vectorize(text);
}

/** Cosine similarity of two unit-length sparse vectors: their dot product (indices ascending). */
export function similarity(a: SparseVector, b: SparseVector): number {
  let i = 0;
  let j = 0;
  let dot = 0;
  const ai = a.indices;
  const bi = b.indices;
  while (i < ai.length && j < bi.length) {
    const x = ai[i]!;
    const y = bi[j]!;
    if (x === y) {
      dot += a.values[i]! * b.values[j]!;
      i += 1;
      j += 1;
    } else if (x < y) i += 1;
    else j += 1;
  }
  return dot;
}

/** Scratch space of dotAll: one bucket per feature hash (2^18 doubles, 2 MiB), zero between calls. */
let scratch: Float64Array | undefined;

/**
 * The similarity of `vector` with each of `others`: the vector spread into a dense array once,
 * then one lookup per nonzero of each other vector, about three times faster than merging the
 * sorted indices pair by pair (the cost per ticket is what detection is budgeted on).
 */
export function similarities(vector: SparseVector, others: readonly SparseVector[]): number[] {
  scratch ??= new Float64Array(1 << 18);
  const dense = scratch;
  const mask = dense.length - 1;
  for (let i = 0; i < vector.indices.length; i++) dense[vector.indices[i]! & mask] = vector.values[i]!;
  const answers = new Array<number>(others.length);
  for (let k = 0; k < others.length; k++) {
    const other = others[k]!;
    let dot = 0;
    for (let i = 0; i < other.indices.length; i++) dot += other.values[i]! * dense[other.indices[i]! & mask]!;
    answers[k] = dot;
  }
  for (let i = 0; i < vector.indices.length; i++) dense[vector.indices[i]! & mask] = 0;
  return answers;
}

/** The unit-length mean of vectors: what an incident's tickets have in common. */
export function centroid(vectors: readonly SparseVector[]): SparseVector {
  const sums = new Map<number, number>();
  for (const vector of vectors) for (let i = 0; i < vector.indices.length; i++) sums.set(vector.indices[i]!, (sums.get(vector.indices[i]!) ?? 0) + vector.values[i]!);
  const indices = Uint32Array.from(sums.keys()).sort();
  const values = new Float64Array(indices.length);
  let norm = 0;
  for (let i = 0; i < indices.length; i++) {
    values[i] = sums.get(indices[i]!)!;
    norm += values[i]! * values[i]!;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < values.length; i++) values[i]! /= norm;
  return { indices, values };
}

/** Stored form: the count, the indices (uint32) and the values (float32), little-endian. */
export function encodeVector(vector: SparseVector): Buffer {
  const n = vector.indices.length;
  const buffer = Buffer.alloc(4 + n * 8);
  buffer.writeUInt32LE(n, 0);
  for (let i = 0; i < n; i++) {
    buffer.writeUInt32LE(vector.indices[i]!, 4 + i * 4);
    buffer.writeFloatLE(vector.values[i]!, 4 + n * 4 + i * 4);
  }
  return buffer;
}

export function decodeVector(buffer: Uint8Array): SparseVector {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const n = view.getUint32(0, true);
  const indices = new Uint32Array(n);
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    indices[i] = view.getUint32(4 + i * 4, true);
    values[i] = view.getFloat32(4 + n * 4 + i * 4, true);
  }
  return { indices, values };
}

/** An incident's title: the first line of the first ticket's message, shortened. */
export function incidentTitle(text: string): string {
  const line = text.trim().split(/\r?\n/u)[0]!.replace(/\s+/gu, " ");
  const chars = [...line];
  return chars.length <= TITLE_LENGTH ? line : `${chars.slice(0, TITLE_LENGTH - 1).join("")}…`;
}

export interface RecentTicket {
  ticketId: string;
  vector: SparseVector;
}

export interface OpenIncident {
  id: string;
  /** The centroid of the tickets that opened it. */
  vector: SparseVector;
}

export type OutbreakDecision =
  | { kind: "join"; incidentId: string; similarity: number }
  /** Opens an incident with these earlier tickets and the new one (its centroid given). */
  | { kind: "open"; ticketIds: string[]; vector: SparseVector }
  | { kind: "none" };

/**
 * What a new ticket does: joins the open incident it is most alike (at least the threshold)
 * when there is one; otherwise, when at least minTickets − 1 recent tickets not in an incident
 * are each alike with it, opens an incident with them; otherwise nothing. `recent` are the
 * game's tickets within the window, not in an incident, newest first, without the new one.
 */
export function decide(vector: SparseVector, open: readonly OpenIncident[], recent: readonly RecentTicket[], settings: Pick<OutbreakSettings, "minTickets" | "similarity">): OutbreakDecision {
  if (vector.indices.length === 0) return { kind: "none" };
  let best: { incidentId: string; similarity: number } | undefined;
  const toIncidents = similarities(vector, open.map((incident) => incident.vector));
  for (const [index, incident] of open.entries()) {
    const s = toIncidents[index]!;
    if (s >= settings.similarity && (best === undefined || s > best.similarity)) best = { incidentId: incident.id, similarity: s };
  }
  if (best) return { kind: "join", ...best };
  const toRecent = similarities(vector, recent.map((ticket) => ticket.vector));
  const alike = recent.filter((_, index) => toRecent[index]! >= settings.similarity);
  if (alike.length + 1 < settings.minTickets) return { kind: "none" };
  return { kind: "open", ticketIds: alike.map((ticket) => ticket.ticketId), vector: centroid([vector, ...alike.map((ticket) => ticket.vector)]) };
}
