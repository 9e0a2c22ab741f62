// Connect clients between services: HTTP/2 (h2c) with the Connect protocol (the cheapest
// client transport measured here, see STACK.md), carrying the current request id.
import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { REQUEST_ID_HEADER, currentRequestId } from "@support/logging";

const forwardRequestId: Interceptor = (next) => async (request) => {
  const requestId = currentRequestId();
  if (requestId && !request.header.has(REQUEST_ID_HEADER)) request.header.set(REQUEST_ID_HEADER, requestId);
  return next(request);
};

export interface ServiceClientOptions {
  /** Per-call deadline; a slow dependency becomes a 503 rather than a hung request. */
  timeoutMs?: number;
  /** Run after the request id is set, e.g. adminTokenHeader(token). */
  interceptors?: Interceptor[];
}

export function createServiceClient<T extends DescService>(service: T, baseUrl: string, options: ServiceClientOptions = {}): Client<T> {
  const transport = createConnectTransport({
    baseUrl,
    httpVersion: "2",
    useBinaryFormat: true,
    interceptors: [forwardRequestId, ...(options.interceptors ?? [])],
    defaultTimeoutMs: options.timeoutMs ?? 10_000,
  });
  return createClient(service, transport);
}
