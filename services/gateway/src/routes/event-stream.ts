// The answer of a Server-Sent Events route: a long-lived response on a socket that must neither
// time out nor wait to fill a packet, ended with the stream when the client goes away.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { PassThrough } from "node:stream";

/** The parts of a route's context the answer sets (a route's own context types its body more narrowly). */
interface StreamingContext {
  req: IncomingMessage;
  res: ServerResponse;
  set(field: string, value: string): void;
  status: number;
  body: unknown;
}

export function answerEventStream(ctx: StreamingContext, stream: { body: PassThrough; close(): void }): void {
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  // The response's close, not the request's: a request emits it once its (empty) body is read.
  ctx.res.on("close", () => stream.close());
  ctx.set("Content-Type", "text/event-stream; charset=utf-8");
  ctx.set("Cache-Control", "no-store");
  // Proxies that buffer (nginx) must pass each event on at once.
  ctx.set("X-Accel-Buffering", "no");
  ctx.status = 200;
  ctx.body = stream.body;
}
