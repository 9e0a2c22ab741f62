// Connect clients between services: HTTP/2 (h2c) with the Connect protocol (the cheapest
// client transport measured here), balanced over every address of the service (balancer.ts),
// carrying the current request id and the caller's deadline,
// and answering domain errors (AppError) instead of Connect errors, so that use cases neither
// import Connect nor wrap their calls.
import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { REQUEST_ID_HEADER, currentRequestId } from "@support/logging";
import type { Registry } from "@support/metrics";
import { createBalancedTransport, type BalancedTransport, type BalancerOptions } from "./balancer.ts";
import { currentCallScope } from "./deadline.ts";
import { connectToAppError } from "./errors.ts";
import { defaultServiceCaller, serviceIdentityInterceptor, type ServiceCaller } from "./identity.ts";
import { metricsInterceptors } from "./metrics.ts";
import { tracingClientInterceptor } from "./tracing.ts";

const forwardRequestId: Interceptor = (next) => async (request) => {
  const requestId = currentRequestId();
  if (requestId && !request.header.has(REQUEST_ID_HEADER)) request.header.set(REQUEST_ID_HEADER, requestId);
  return next(request);
};

async function* domainErrorsOf<T>(messages: AsyncIterable<T>): AsyncIterable<T> {
  try {
    yield* messages;
  } catch (error) {
    throw connectToAppError(error);
  }
}

/**
 * The client side of every service-to-service call, wrapped around a Connect transport:
 *
 * - A call ends at the earlier of its own timeout and the deadline of the call being handled
 *   (see deadline.ts), and is cancelled with it. The remaining time travels in the timeout
 *   header, so the next service limits its own calls the same way.
 * - Every error, of the call or of a response stream, becomes the AppError it stands for
 *   (connectToAppError: faults become fixed texts, a service's answers keep theirs). This
 *   happens here rather than in an interceptor because Connect wraps whatever an interceptor
 *   throws back into a ConnectError.
 */
export function domainTransport(transport: Transport, defaultTimeoutMs: number): Transport {
  const limits = (signal: AbortSignal | undefined, timeoutMs: number | undefined): [AbortSignal | undefined, number] => {
    const own = timeoutMs ?? defaultTimeoutMs;
    const scope = currentCallScope();
    if (!scope) return [signal, own];
    const remaining = scope.deadline === undefined ? own : Math.max(0, scope.deadline - Date.now());
    const signals = [signal, scope.signal].filter((s): s is AbortSignal => s !== undefined);
    return [signals.length <= 1 ? signals[0] : AbortSignal.any(signals), Math.min(own, remaining)];
  };
  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const [callSignal, callTimeout] = limits(signal, timeoutMs);
      try {
        return await transport.unary(method, callSignal, callTimeout, header, input, contextValues);
      } catch (error) {
        throw connectToAppError(error);
      }
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      const [callSignal, callTimeout] = limits(signal, timeoutMs);
      try {
        const response = await transport.stream(method, callSignal, callTimeout, header, input, contextValues);
        return { ...response, message: domainErrorsOf(response.message) };
      } catch (error) {
        throw connectToAppError(error);
      }
    },
  };
}

export interface ServiceClientOptions {
  /** Per-call deadline; a slow dependency becomes a 504 rather than a hung request. */
  timeoutMs?: number;
  /** Run after the request id is set, e.g. adminTokenHeader(token). */
  interceptors?: Interceptor[];
  /** How the service's addresses are found and balanced (re-resolve interval, resolver). */
  balancing?: Pick<BalancerOptions, "resolveIntervalMs" | "ejectMs" | "resolver">;
  /** Where rpc_client_duration_seconds is recorded; none without it. */
  registry?: Registry;
  /**
   * Who the calls come from: every call carries this caller's token (identity.ts). Without it,
   * a development process signs as DEVELOPMENT_CALLER (test clients of services in the same
   * process), and a production process sends none, which every service refuses.
   */
  identity?: ServiceCaller;
}

/**
 * The transport to one service, balanced over its addresses (see createBalancedTransport for
 * `target`), carrying the request id: to share between several clients of the same service.
 */
export function createServiceTransport(target: string, options: ServiceClientOptions = {}): BalancedTransport {
  const caller = options.identity ?? defaultServiceCaller();
  const identity = caller ? [serviceIdentityInterceptor(caller)] : [];
  return createBalancedTransport(target, {
    ...options.balancing,
    interceptors: [tracingClientInterceptor(), ...metricsInterceptors("client", options.registry), forwardRequestId, ...identity, ...(options.interceptors ?? [])],
    defaultTimeoutMs: options.timeoutMs ?? 10_000,
  });
}

/**
 * A client of `service` at `target` (a URL, or a comma-separated list of them, whose addresses
 * are balanced), or over a transport made by createServiceTransport (then `interceptors` and
 * `balancing` were given to it).
 */
export function createServiceClient<T extends DescService>(service: T, target: string | Transport, options: ServiceClientOptions = {}): Client<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const transport = typeof target === "string" ? createServiceTransport(target, options) : target;
  return createClient(service, domainTransport(transport, timeoutMs));
}
