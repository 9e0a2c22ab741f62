// Duration of every RPC, handled (rpc_server_duration_seconds) or made (rpc_client_duration_seconds),
// by service, method and Connect code ("ok" on success). Each method and code is looked up once
// and its series kept, so a call costs a clock read and one observation.
import type { DescMethod } from "@bufbuild/protobuf";
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import { rpcClientDuration, rpcServerDuration, type HistogramSeries, type Registry } from "@support/metrics";

/** `rpc_code` of an error: the Connect code's name in snake case ("not_found", "unavailable"). */
export function rpcCodeOf(error: unknown): string {
  return codeToString(ConnectError.from(error).code);
}

/** The interceptor that records a side's durations in `registry`, or none without a registry. */
export function metricsInterceptors(side: "server" | "client", registry: Registry | undefined): Interceptor[] {
  if (!registry) return [];
  const histogram = side === "server" ? rpcServerDuration(registry) : rpcClientDuration(registry);
  const seriesByMethod = new WeakMap<DescMethod, Map<string, HistogramSeries>>();
  const observe = (method: DescMethod, code: string, startedAt: number) => {
    let byCode = seriesByMethod.get(method);
    if (!byCode) seriesByMethod.set(method, (byCode = new Map()));
    let series = byCode.get(code);
    if (!series) byCode.set(code, (series = histogram.series({ rpc_service: method.parent.typeName, rpc_method: method.name, rpc_code: code })));
    series.observe((performance.now() - startedAt) / 1000);
  };
  async function* observed<T>(messages: AsyncIterable<T>, method: DescMethod, startedAt: number): AsyncIterable<T> {
    try {
      yield* messages;
    } catch (error) {
      observe(method, rpcCodeOf(error), startedAt);
      throw error;
    }
    observe(method, "ok", startedAt);
  }
  const interceptor: Interceptor = (next) => async (request) => {
    const startedAt = performance.now();
    try {
      const response = await next(request);
      if (!response.stream) {
        observe(request.method, "ok", startedAt);
        return response;
      }
      // A streamed answer ends with its last message: that is when the call is done.
      return { ...response, message: observed(response.message, request.method, startedAt) };
    } catch (error) {
      observe(request.method, rpcCodeOf(error), startedAt);
      throw error;
    }
  };
  return [interceptor];
}
