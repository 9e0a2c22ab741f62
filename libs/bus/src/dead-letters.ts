// The dead-letter store: one JetStream stream per deployment (NATS_PREFIX) holding the messages
// that consumers set aside instead of letting them block the messages behind them (unparseable,
// not an envelope, a version of its type the consumer does not read, data that does not match
// its type's contract, a handler failing past its
// bound, a handler's own `term`). Each is kept as it was received (the same bytes, the same
// headers but NATS' own) plus headers naming where it came from and why, so that an operator
// can list it, replay it to its original subject, or delete it (`pnpm admin dead-letters`).
import { jetstream, jetstreamManager, type JetStreamClient, type JsMsg, type StoredMsg } from "@nats-io/jetstream";
import { headers as natsHeaders, type MsgHdrs } from "@nats-io/nats-core";
import type { NatsConnection } from "@nats-io/transport-node";
import { ensureStream } from "./nats.ts";

/**
 * Why a message was set aside: it cannot be read (see UNREADABLE_REASONS), it is of a version the
 * consumer does not read or its data does not match its type's contract ("unknown_version",
 * "invalid_data", from the consumer's `read`), its handler failed past the consumer's bound
 * ("failed"), or its handler gave up on it (`term`: "rejected").
 */
export const DEAD_LETTER_REASONS = ["unparseable", "not_envelope", "unknown_version", "invalid_data", "failed", "rejected"] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** Kept for 30 days: long enough to notice, fix and replay; the alert fires at the first one. */
export const DEAD_LETTER_MAX_AGE_MS = 30 * 24 * 3600_000;
/** At most 1 GiB (the oldest go first): a flood of bad messages cannot fill NATS' disk. */
export const DEAD_LETTER_MAX_BYTES = 1024 ** 3;

/** The headers a dead letter carries besides the original message's own. */
export const deadLetterHeader = {
  subject: "Support-Dead-Letter-Subject",
  stream: "Support-Dead-Letter-Stream",
  sequence: "Support-Dead-Letter-Sequence",
  consumer: "Support-Dead-Letter-Consumer",
  reason: "Support-Dead-Letter-Reason",
  detail: "Support-Dead-Letter-Detail",
  deliveries: "Support-Dead-Letter-Deliveries",
  time: "Support-Dead-Letter-Time",
  messageId: "Support-Dead-Letter-Msg-Id",
} as const;

/** On a replayed message: the dead letter's sequence it came from. */
export const REPLAYED_FROM_HEADER = "Support-Replayed-From";

/** The stream, e.g. DEAD_LETTERS (T_AB12_DEAD_LETTERS in a test run). */
export function deadLetterStreamName(prefix: string): string {
  return `${prefix}dead_letters`.replace(/[^A-Za-z0-9_-]/g, "_").toUpperCase();
}

/** The subject of one consumer's dead letters: `<prefix>dead_letters.<consumer>`. */
export function deadLetterSubject(prefix: string, consumer: string): string {
  return `${prefix}dead_letters.${consumer}`;
}

/**
 * Creates the stream or brings it to its settings; every consumer runs this at start, so the
 * store exists before the first message needs it. `replicas` as the service's own stream.
 */
export async function ensureDeadLetterStream(nc: NatsConnection, prefix: string, replicas = 1): Promise<void> {
  await ensureStream(nc, {
    name: deadLetterStreamName(prefix),
    subjects: [`${prefix}dead_letters.>`],
    maxAgeMs: DEAD_LETTER_MAX_AGE_MS,
    maxBytes: DEAD_LETTER_MAX_BYTES,
    replicas,
  });
}

/** NATS refuses line breaks in header values; a detail is one line of at most 1000 characters. */
function headerValue(text: string): string {
  return text.replace(/[\r\n]+/g, " ").slice(0, 1000);
}

/** The message's own headers, without NATS' (Nats-Msg-Id, ...) and without ours. */
function ownHeaders(source: MsgHdrs | undefined, into: MsgHdrs): void {
  if (!source) return;
  for (const key of source.keys()) {
    const lower = key.toLowerCase();
    if (lower.startsWith("nats-") || lower.startsWith("support-dead-letter-") || lower === REPLAYED_FROM_HEADER.toLowerCase()) continue;
    for (const value of source.values(key)) into.append(key, value);
  }
}

export interface DeadLetterPublish {
  prefix: string;
  consumer: string;
  reason: DeadLetterReason;
  detail: string;
  timeoutMs?: number;
}

/**
 * Writes the message into the store; resolves once JetStream has it, rejects otherwise (the
 * caller then retries later rather than terminating the original). Its Nats-Msg-Id names the
 * original stream, sequence and consumer: a message dead-lettered again after a lost `term` is
 * stored once.
 */
export async function publishDeadLetter(js: JetStreamClient, message: JsMsg, settings: DeadLetterPublish): Promise<void> {
  const h = natsHeaders();
  ownHeaders(message.headers, h);
  h.set(deadLetterHeader.subject, message.subject);
  h.set(deadLetterHeader.stream, message.info.stream);
  h.set(deadLetterHeader.sequence, String(message.info.streamSequence));
  h.set(deadLetterHeader.consumer, settings.consumer);
  h.set(deadLetterHeader.reason, settings.reason);
  h.set(deadLetterHeader.detail, headerValue(settings.detail) || "-");
  h.set(deadLetterHeader.deliveries, String(message.info.deliveryCount));
  h.set(deadLetterHeader.time, new Date().toISOString());
  const messageId = message.headers?.get("Nats-Msg-Id");
  if (messageId) h.set(deadLetterHeader.messageId, messageId);
  await js.publish(deadLetterSubject(settings.prefix, settings.consumer), message.data, {
    headers: h,
    msgID: `${message.info.stream}:${message.info.streamSequence}:${settings.consumer}`,
    timeout: settings.timeoutMs ?? 5000,
  });
}

export interface DeadLetter {
  /** Sequence in the dead-letter stream: what replay and delete take. */
  seq: number;
  consumer: string;
  reason: string;
  detail: string;
  /** Where the message was: its subject, stream and sequence there. */
  subject: string;
  stream: string;
  streamSequence: number;
  /** Deliveries to the consumer, the last one included. */
  deliveries: number;
  deadLetteredAt: string;
  /** The original Nats-Msg-Id (the event id of an outbox event), when it had one. */
  messageId: string | null;
  /** The body as UTF-8 text; `bodyBase64` instead when it is not valid UTF-8. */
  body?: string;
  bodyBase64?: string;
  /** The original message's own headers (a traceparent, ...). */
  headers: Record<string, string[]>;
}

function describe(stored: StoredMsg): DeadLetter {
  const get = (name: string) => (stored.header?.has(name) ? stored.header.get(name) : "");
  const headers: Record<string, string[]> = {};
  const own = natsHeaders();
  ownHeaders(stored.header, own);
  for (const key of own.keys()) headers[key] = own.values(key);
  let body: Pick<DeadLetter, "body" | "bodyBase64">;
  try {
    body = { body: new TextDecoder("utf-8", { fatal: true }).decode(stored.data) };
  } catch {
    body = { bodyBase64: Buffer.from(stored.data).toString("base64") };
  }
  return {
    seq: stored.seq,
    consumer: get(deadLetterHeader.consumer),
    reason: get(deadLetterHeader.reason),
    detail: get(deadLetterHeader.detail),
    subject: get(deadLetterHeader.subject),
    stream: get(deadLetterHeader.stream),
    streamSequence: Number(get(deadLetterHeader.sequence)),
    deliveries: Number(get(deadLetterHeader.deliveries)),
    deadLetteredAt: get(deadLetterHeader.time) || stored.time.toISOString(),
    messageId: get(deadLetterHeader.messageId) || null,
    ...body,
    headers,
  };
}

export class DeadLetterNotFoundError extends Error {
  readonly seq: number;
  constructor(seq: number) {
    super(`no dead letter ${seq}`);
    this.seq = seq;
  }
}

function isStreamNotFound(error: unknown): boolean {
  return /stream not found/i.test(String((error as Error)?.message ?? error));
}

/**
 * The dead letters, oldest first: of one consumer or all, after sequence `after` (paging), at
 * most `limit`. `total` counts all of them (of that consumer). No stream yet: none.
 */
export async function listDeadLetters(
  nc: NatsConnection,
  prefix: string,
  options: { consumer?: string; limit?: number; after?: number } = {},
): Promise<{ deadLetters: DeadLetter[]; total: number }> {
  const jsm = await jetstreamManager(nc);
  const stream = deadLetterStreamName(prefix);
  const subject = options.consumer ? deadLetterSubject(prefix, options.consumer) : `${prefix}dead_letters.>`;
  let total: number;
  try {
    const info = await jsm.streams.info(stream, { subjects_filter: subject });
    total = Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
  } catch (error) {
    if (isStreamNotFound(error)) return { deadLetters: [], total: 0 };
    throw error;
  }
  const limit = options.limit ?? 100;
  const deadLetters: DeadLetter[] = [];
  let seq = (options.after ?? 0) + 1;
  while (deadLetters.length < limit) {
    // The next message of that subject at or after seq (the server skips the others).
    const stored = await jsm.streams.getMessage(stream, { seq, next_by_subj: subject } as unknown as { seq: number });
    if (!stored) break;
    deadLetters.push(describe(stored));
    seq = stored.seq + 1;
  }
  return { deadLetters, total };
}

async function getDeadLetter(nc: NatsConnection, prefix: string, seq: number): Promise<StoredMsg> {
  const jsm = await jetstreamManager(nc);
  let stored: StoredMsg | null;
  try {
    stored = await jsm.streams.getMessage(deadLetterStreamName(prefix), { seq });
  } catch (error) {
    if (isStreamNotFound(error)) throw new DeadLetterNotFoundError(seq);
    throw error;
  }
  if (!stored) throw new DeadLetterNotFoundError(seq);
  return stored;
}

/**
 * Publishes a dead letter's body (and its own headers) to its original subject again, where
 * every consumer of that subject receives it anew (handlers are idempotent), then deletes it
 * unless `keep`. It is published without the original Nats-Msg-Id: the stream would drop a
 * message with the id of one it stored within its duplicate window (10 minutes), and a replay
 * must never be dropped silently (a PubAck saying "duplicate" is an error).
 */
export async function replayDeadLetter(
  nc: NatsConnection,
  prefix: string,
  seq: number,
  options: { keep?: boolean; js?: JetStreamClient } = {},
): Promise<{ deadLetter: DeadLetter; replayed: { stream: string; seq: number }; deleted: boolean }> {
  const stored = await getDeadLetter(nc, prefix, seq);
  const deadLetter = describe(stored);
  if (!deadLetter.subject) throw new Error(`dead letter ${seq} names no original subject`);
  const h = natsHeaders();
  ownHeaders(stored.header, h);
  h.set(REPLAYED_FROM_HEADER, String(seq));
  const ack = await (options.js ?? jetstream(nc)).publish(deadLetter.subject, stored.data, { headers: h, timeout: 10_000 });
  if (ack.duplicate) throw new Error(`the replay of dead letter ${seq} was taken for a duplicate by ${ack.stream}`);
  const deleted = options.keep ? false : await deleteDeadLetter(nc, prefix, seq).then(() => true);
  return { deadLetter, replayed: { stream: ack.stream, seq: ack.seq }, deleted };
}

/** Removes one dead letter (after it was replayed, or when its effect no longer matters). */
export async function deleteDeadLetter(nc: NatsConnection, prefix: string, seq: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  try {
    if (!(await jsm.streams.deleteMessage(deadLetterStreamName(prefix), seq, false))) throw new DeadLetterNotFoundError(seq);
  } catch (error) {
    if (error instanceof DeadLetterNotFoundError) throw error;
    if (isStreamNotFound(error) || /no message found|not found/i.test(String((error as Error)?.message ?? error))) throw new DeadLetterNotFoundError(seq);
    throw error;
  }
}
