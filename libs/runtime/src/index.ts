export { adminTokenSpec, metricsConfigSpecs, rpcClientConfigSpecs, serviceConfigSpecs, serviceIdentityConfigSpecs, portSpec } from "./config.ts";
export { createServiceHost, drainTimeoutOf, type HostConfig, type ServiceHost, type ServiceHostOptions, type Startable } from "./host.ts";
export { runUntilSignal, type Stoppable } from "./main.ts";
export { runMigrateCommand, type MigrateCommandSettings } from "./migrate.ts";
export { createPeriodicJob, type PeriodicJobSettings } from "./periodic-job.ts";
