// The tenant files applied so far, by digest, with the ids they created (no secrets).
import type { ColumnType, Generated } from "kysely";
import type { RecordedTenant } from "./tenant.ts";

export interface TenantApplicationTable {
  digest: string;
  company_id: string;
  result: ColumnType<RecordedTenant, string, never>;
  applied_at: Generated<Date>;
}

export interface TenantApplicationTables {
  tenant_applications: TenantApplicationTable;
}
