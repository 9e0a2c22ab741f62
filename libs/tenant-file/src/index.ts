// The tenant file of `pnpm admin apply` (tools/admin): read by the admin tool, which checks it
// before calling anything, and by the content service, which checks it again when applying it.
export {
  parseTenantFile, TenantFileError, type CollectorFieldType, type LocalizedText, type TenantCollector, type TenantFile, type TenantFileIssue, type TenantRule, type TenantSlaPolicy,
} from "./tenant-file.ts";
export { default as tenantFileSchema } from "./tenant-file.schema.json" with { type: "json" };
