// Preloaded (`--import`) into each process of the stack by write-cost.ts: answers the parent's
// IPC message {costProbe: true} with the process's CPU time so far and the Postgres statements it
// has sent, counted per statement text, so a run can divide both by the requests it made.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
// The same pg module instance the services load (one version in the workspace).
const pg = require("pg") as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };

const statements = new Map<string, number>();
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(this: unknown, ...args: unknown[]) {
  const first = args[0] as string | { text?: unknown } | undefined;
  const text = typeof first === "string" ? first : typeof first?.text === "string" ? first.text : undefined;
  if (text !== undefined) {
    const key = text.replace(/\s+/g, " ").trim().slice(0, 90);
    statements.set(key, (statements.get(key) ?? 0) + 1);
  }
  return original.apply(this, args);
};

process.on("message", (message: { costProbe?: boolean }) => {
  if (message?.costProbe !== true) return;
  process.send?.({ costProbe: true, cpu: process.cpuUsage(), statements: Object.fromEntries(statements) });
});
// The listener must not keep a stopping process alive.
process.channel?.unref();
