export { createRpcServer, type RpcServer, type RpcServerOptions } from "./server.ts";
export { createServiceClient, createServiceTransport, domainTransport, type ServiceClientOptions } from "./client.ts";
export {
  DEFAULT_RESOLVE_INTERVAL_MS, balancingOf, createBalancedTransport, hostsFileResolver, systemResolver,
  type AddressState, type BalancedTransport, type BalancerOptions, type Resolver,
} from "./balancer.ts";
export { BUSY_MESSAGE, busyError, createAdmissionTransport, type AdmissionOptions, type AdmissionState, type AdmittingTransport } from "./admission.ts";
export { createResilientTransport, type BreakerState, type ResilienceOptions, type ResilientTransport } from "./resilience.ts";
export { currentCallScope, outsideCallScope, scopedContext, withCallScope, withDeadline, type CallScope } from "./deadline.ts";
export {
  appErrorToConnect, connectToAppError, httpStatusOf, toHttpError, toServiceError, type HttpErrorOptions, type HttpErrorResponse,
} from "./errors.ts";
export {
  DEADLINE_MESSAGE, OUTCOME_UNKNOWN_MESSAGE, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE, isDependencyUnavailable,
} from "./faults.ts";
export { registerHealthService, type ReadinessCheck } from "./health.ts";
export {
  ALLOWED_CALLERS, DEVELOPMENT_CALLER, SERVICE_IDENTITY_HEADER, IDENTITY_NAMES, TOKEN_LIFETIME_SECONDS, calleeOf, createServiceCaller,
  createServiceVerifier, defaultServiceCaller, generateIdentityKey, generateServiceIdentities, identityEnv, loadServiceCaller,
  loadServiceVerifier, parseTrust, publicKeyOf, serviceIdentityGate, serviceIdentityInterceptor,
  type GeneratedIdentities, type ServiceCaller, type ServiceIdentitySettings, type IdentityName, type ServiceVerifier, type Trust,
  type VerifierOptions, type VerifyResult,
} from "./identity.ts";
export { adminTokenGate, adminTokenHeader, isAdminAuthorization } from "./admin-token.ts";
export { metricsInterceptors, rpcCodeOf } from "./metrics.ts";
export { tracingClientInterceptor, tracingServerInterceptor } from "./tracing.ts";
