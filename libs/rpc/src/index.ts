export { createRpcServer, type RpcServer, type RpcServerOptions } from "./server.ts";
export { createServiceClient, type ServiceClientOptions } from "./client.ts";
export { appErrorToConnect, connectToAppError, httpStatusOf, toHttpError, type HttpErrorResponse } from "./errors.ts";
export { registerHealthService, type ReadinessCheck } from "./health.ts";
export { adminTokenGate, adminTokenHeader, isAdminAuthorization } from "./admin-token.ts";
