// A studio's webhook endpoint on this machine, for tests: an HTTP server on a free port that
// answers every request (204 by default, or the given status and body) and keeps it (headers and
// body as text).
import http from "node:http";
import { freePort } from "./net.ts";

export interface ReceivedRequest {
  headers: Record<string, string>;
  body: string;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks` */
  url: string;
  received: ReceivedRequest[];
  /** The bodies received so far, parsed as JSON. */
  bodies(): unknown[];
  stop(): Promise<void>;
}

export interface WebhookReceiverOptions {
  /** The status of every answer (204 by default). */
  status?: number;
  /** A text body of every answer (none by default). */
  body?: string;
}

export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString("utf8") });
      if (options.body === undefined) res.writeHead(options.status ?? 204).end();
      else res.writeHead(options.status ?? 200, { "content-type": "text/plain; charset=utf-8" }).end(options.body);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    bodies: () => received.map((request) => JSON.parse(request.body) as unknown),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
