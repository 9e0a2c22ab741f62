// When each API key was last used, for the settings' key list: the gateway notes the minute of
// every authenticated request in memory and reports the keys it saw to content once a minute
// (and when it stops), so that a request costs no write. A failed report is retried with the
// next one; content keeps the latest time whatever order the replicas' reports arrive in.
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Startable } from "@support/runtime";
import type { Logger } from "@support/logging";
import type { ContentClient } from "./clients.ts";

const MINUTE_MS = 60_000;
/** At most this many keys a report (content's limit); the others wait for the next one. */
const REPORT_MAX = 10_000;

export interface ApiKeyUseRecorder extends Startable {
  /** Notes a request authenticated by this key now. */
  used(apiKeyId: string, now?: number): void;
  /** Sends what was noted since the last report. */
  report(): Promise<void>;
}

export function createApiKeyUseRecorder(deps: { content: Pick<ContentClient, "recordApiKeyUse">; logger: Logger; intervalMs?: number }): ApiKeyUseRecorder {
  const intervalMs = deps.intervalMs ?? MINUTE_MS;
  // Key id -> the start of the minute of its latest request not yet reported.
  let pending = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let reporting: Promise<void> | undefined;

  const send = async () => {
    if (pending.size === 0) return;
    const batch = [...pending].slice(0, REPORT_MAX);
    const rest = new Map([...pending].slice(REPORT_MAX));
    pending = rest;
    try {
      await deps.content.recordApiKeyUse({ uses: batch.map(([apiKeyId, at]) => ({ apiKeyId, lastUsedAt: timestampFromDate(new Date(at)) })) });
    } catch (error) {
      // Put the batch back under anything newer noted meanwhile.
      for (const [apiKeyId, at] of batch) if ((pending.get(apiKeyId) ?? 0) < at) pending.set(apiKeyId, at);
      deps.logger.warn({ err: error, keys: batch.length }, "could not report API key use; retrying with the next report");
    }
  };
  const report = () => {
    reporting ??= send().finally(() => (reporting = undefined));
    return reporting;
  };

  return {
    used(apiKeyId, now = Date.now()) {
      const minute = now - (now % MINUTE_MS);
      if (pending.get(apiKeyId) !== minute) pending.set(apiKeyId, minute);
    },
    report,
    start() {
      timer = setInterval(() => void report(), intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await reporting;
      await report();
    },
  };
}
