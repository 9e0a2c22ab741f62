// HTTP/1.1 keep-alive clients written on raw sockets, so that what happens to each request
// during a graceful stop is seen exactly: a complete answer, a connection closed before any
// byte of the answer (the request can be sent again), or an answer cut in the middle (which
// must never happen). Each client sends its next request as soon as the previous answer is
// complete, and stops once the server closes its connection.
import net from "node:net";

export interface KeepAliveAnswer {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface KeepAliveResult {
  answers: KeepAliveAnswer[];
  /** Requests written whose connection closed before any byte of their answer. */
  closedBeforeAnswer: number;
  /** Answers that had begun when the connection closed. */
  cut: { request: string; received: string }[];
  /** Connections that could not be opened at all. */
  refused: number;
}

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: string;
  length: number;
}

/** The first complete response in `buffer`, or undefined while it is incomplete. */
function parseResponse(buffer: Buffer): Parsed | undefined {
  const end = buffer.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine, ...lines] = buffer.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(statusLine!.split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let offset = end + 4;
  if (headers["transfer-encoding"]?.includes("chunked")) {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = buffer.indexOf("\r\n", offset);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(buffer.subarray(offset, lineEnd).toString("latin1"), 16);
      if (buffer.length < lineEnd + 2 + size + 2) return undefined;
      if (size === 0) return { status, headers, body: Buffer.concat(chunks).toString("utf8"), length: lineEnd + 4 };
      chunks.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      offset = lineEnd + 2 + size + 2;
    }
  }
  const length = Number(headers["content-length"] ?? 0);
  if (buffer.length < offset + length) return undefined;
  return { status, headers, body: buffer.subarray(offset, offset + length).toString("utf8"), length: offset + length };
}

export interface KeepAliveRequest {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** One connection: requests from `next` one after another until the server closes it. */
function runConnection(port: number, next: () => KeepAliveRequest, result: KeepAliveResult, connected: () => void): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let buffer = Buffer.alloc(0);
    let current: KeepAliveRequest | undefined;
    let opened = false;
    const send = () => {
      current = next();
      const body = current.body ?? "";
      const head = [`${current.method} ${current.path} HTTP/1.1`, `host: 127.0.0.1:${port}`, `content-length: ${Buffer.byteLength(body)}`];
      for (const [name, value] of Object.entries(current.headers)) head.push(`${name}: ${value}`);
      socket.write(`${head.join("\r\n")}\r\n\r\n${body}`);
    };
    socket.on("connect", () => {
      opened = true;
      connected();
      send();
    });
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const parsed = parseResponse(buffer);
        if (!parsed || !current) return;
        result.answers.push({ request: current.name, status: parsed.status, headers: parsed.headers, body: parsed.body });
        buffer = buffer.subarray(parsed.length);
        current = undefined;
        // The server says it closes: the client would go to another replica; this one stops.
        if (parsed.headers.connection?.toLowerCase() === "close") return;
        send();
      }
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      if (!opened) result.refused++;
      else if (current && buffer.length > 0) result.cut.push({ request: current.name, received: buffer.toString("utf8").slice(0, 300) });
      else if (current) result.closedBeforeAnswer++;
      resolve();
    });
  });
}

/**
 * Opens `connections` keep-alive connections to 127.0.0.1:`port` and keeps each busy with
 * requests from `next`; `done` resolves once the server has closed every one of them, `opened`
 * when all connections are established. `result` fills in as answers arrive.
 */
export function keepAliveLoad(
  port: number,
  connections: number,
  next: () => KeepAliveRequest,
): { opened: Promise<void>; done: Promise<KeepAliveResult>; result: KeepAliveResult } {
  const result: KeepAliveResult = { answers: [], closedBeforeAnswer: 0, cut: [], refused: 0 };
  let connectedCount = 0;
  let allOpen!: () => void;
  const opened = new Promise<void>((resolve) => (allOpen = resolve));
  const onConnected = () => {
    connectedCount++;
    if (connectedCount === connections) allOpen();
  };
  const done = Promise.all(Array.from({ length: connections }, () => runConnection(port, next, result, onConnected))).then(() => {
    allOpen();
    return result;
  });
  return { opened, done, result };
}
