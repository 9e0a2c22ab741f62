// Every migration of the content schema, in order. Migrations never import application code; the
// outbox and idempotency tables come with the libraries that own them, under the names first recorded.
import type { Migration } from "@support/db";
import { addOutboxTraceparentMigration } from "@support/bus";
import { createIdempotencyKeysMigration } from "@support/idempotency";
import * as createContent from "./2026_11_22_00_01_00_create_content.ts";
import * as createTenantApplications from "./2026_11_23_00_01_00_create_tenant_applications.ts";
import * as resourceContentAndCollectors from "./2026_11_23_00_02_00_resource_content_and_collectors.ts";
import * as apiRateLimits from "./2026_11_27_00_00_00_api_rate_limits.ts";
import * as agentAccess from "./2026_11_28_00_00_00_agent_access.ts";
import * as userLinks from "./2026_11_28_00_01_00_user_links.ts";
import * as twoFactor from "./2026_11_28_00_02_00_two_factor.ts";
import * as singleSignOn from "./2026_11_29_00_00_00_single_sign_on.ts";
import * as userSkills from "./2026_11_29_00_01_00_user_skills.ts";
import * as cannedResponses from "./2026_11_29_00_02_00_canned_responses.ts";
import * as companyEmailSender from "./2026_11_30_00_00_00_company_email_sender.ts";
import * as companySettings from "./2026_12_01_00_00_00_company_settings.ts";
import * as environmentTokenRotation from "./2026_12_02_00_00_00_environment_token_rotation.ts";
import * as retiredTagsAndFields from "./2026_12_01_00_01_00_retired_tags_and_fields.ts";
import * as retiredCollectors from "./2026_12_03_00_01_00_retired_collectors.ts";
import * as gameBranding from "./2026_12_03_00_00_00_game_branding.ts";
import * as auditSourceEvents from "./2026_12_04_02_00_00_audit_source_events.ts";
import * as articleSections from "./2026_12_04_03_00_00_article_sections.ts";
import * as articleSearch from "./2026_12_06_00_00_00_article_search.ts";
import * as routing from "./2026_12_07_00_00_00_routing.ts";

export const migrations: Record<string, Migration> = {
  "2026_11_22_00_01_00_create_content": createContent,
  "2026_11_23_00_01_00_create_tenant_applications": createTenantApplications,
  "2026_11_23_00_02_00_resource_content_and_collectors": resourceContentAndCollectors,
  "2026_11_26_00_00_00_add_outbox_traceparent": addOutboxTraceparentMigration,
  "2026_11_27_00_00_00_api_rate_limits": apiRateLimits,
  "2026_11_27_00_00_00_create_idempotency_keys": createIdempotencyKeysMigration,
  "2026_11_28_00_00_00_agent_access": agentAccess,
  "2026_11_28_00_01_00_user_links": userLinks,
  "2026_11_28_00_02_00_two_factor": twoFactor,
  "2026_11_29_00_00_00_single_sign_on": singleSignOn,
  "2026_11_29_00_01_00_user_skills": userSkills,
  "2026_11_29_00_02_00_canned_responses": cannedResponses,
  "2026_11_30_00_00_00_company_email_sender": companyEmailSender,
  "2026_12_01_00_00_00_company_settings": companySettings,
  "2026_12_01_00_01_00_retired_tags_and_fields": retiredTagsAndFields,
  "2026_12_02_00_00_00_environment_token_rotation": environmentTokenRotation,
  "2026_12_03_00_00_00_game_branding": gameBranding,
  "2026_12_03_00_01_00_retired_collectors": retiredCollectors,
  "2026_12_04_02_00_00_audit_source_events": auditSourceEvents,
  "2026_12_04_03_00_00_article_sections": articleSections,
  "2026_12_06_00_00_00_article_search": articleSearch,
  "2026_12_07_00_00_00_routing": routing,
};
