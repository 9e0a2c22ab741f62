export { adminTokenSpec, metricsConfigSpecs, rpcClientConfigSpecs, serviceConfigSpecs, serviceIdentityConfigSpecs, portSpec } from "./config.ts";
export {
  createHost, createServiceHost, drainTimeoutOf,
  type Host, type HostConfig, type HostOptions, type Listener, type ServiceHost, type ServiceHostOptions, type Startable,
} from "./host.ts";
export { createHttpServer, type HttpServer, type HttpServerOptions } from "./http-server.ts";
export { runUntilSignal, type Stoppable } from "./main.ts";
export { runMigrateCommand, type MigrateCommandSettings } from "./migrate.ts";
export { createPeriodicJob, type PeriodicJobSettings } from "./periodic-job.ts";
export { createClaimLoop, type ClaimLoop, type ClaimLoopSettings } from "./claim-loop.ts";
