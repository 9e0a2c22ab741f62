// Tables of the content schema, as kysely sees them.
import type { OutboxTable } from "@support/bus";
import type { AgentAccessTables } from "./agents/agent-access.table.ts";
import type { AnnouncementTables } from "./announcements/announcement.table.ts";
import type { AuditLogTables } from "./audit/audit-log.table.ts";
import type { ApiKeyTables } from "./api-keys/api-key.table.ts";
import type { CollectorTables } from "./collectors/collector.table.ts";
import type { CompanyTables } from "./companies/company.table.ts";
import type { FieldTables } from "./fields/field.table.ts";
import type { GameTables } from "./games/game.table.ts";
import type { SingleSignOnTables } from "./agents/single-sign-on.table.ts";
import type { TwoFactorTables } from "./agents/two-factor.table.ts";
import type { CannedResponseTables } from "./canned-responses/canned-response.table.ts";
import type { TagTables } from "./tags/tag.table.ts";
import type { TenantApplicationTables } from "./tenants/tenant-application.table.ts";
import type { UserTables } from "./users/user.table.ts";

export type ContentDatabase = OutboxTable &
  CompanyTables &
  ApiKeyTables &
  GameTables &
  UserTables &
  TagTables &
  CannedResponseTables &
  FieldTables &
  AnnouncementTables &
  TenantApplicationTables &
  CollectorTables &
  AgentAccessTables &
  AuditLogTables &
  TwoFactorTables &
  SingleSignOnTables;
