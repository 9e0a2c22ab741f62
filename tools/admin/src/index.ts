// The admin command in-process, for the integration tests of other packages (the gateway's
// stack) and scripts that provision tenants.
export { main, type CliIo } from "./cli.ts";
export { runAdmin, runAdminCommand, type AdminRun } from "./in-process.ts";
export type { TenantOutput } from "./apply.ts";
