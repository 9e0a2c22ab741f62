// The document itself: valid OpenAPI 3.1, exactly the public API's operations, and the
// conventions the gateway relies on (errors, auth, request ids).
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { openapiDocument, openapiJson } from "./openapi.ts";
import { operations, resolvePointer } from "./operations.ts";

type Json = Record<string, unknown>;

// The 18 endpoints of the public API: authenticated by an API key, except the two public ones.
const API_OPERATIONS = [
  ["get", "/announcements", "listAnnouncements"],
  ["put", "/announcements", "putAnnouncement"],
  ["delete", "/announcements", "deleteSharedAnnouncement"],
  ["delete", "/announcements/{gameId}", "deleteGameAnnouncement"],
  ["get", "/tickets", "listTickets"],
  ["post", "/tickets", "createTicket"],
  ["post", "/attachments", "createAttachment"],
  ["get", "/attachments/{attachmentId}", "getAttachment"],
  ["post", "/tickets/{ticketId}/actions", "performTicketActions"],
  ["get", "/tickets/{ticketId}/events", "listTicketEvents"],
  ["get", "/tickets/{ticketId}/breadcrumbs", "listTicketBreadcrumbs"],
  ["get", "/games", "listGames"],
  ["get", "/tags", "listTags"],
  ["get", "/fields", "listFields"],
  ["post", "/player/schedule-deletion", "schedulePlayerDeletion"],
  ["delete", "/player", "deletePlayer"],
  ["get", "/support/sessions/redirect", "redirectToSupportSession"],
  ["post", "/support/sessions", "createSupportSession"],
  ["get", "/webhooks", "listWebhooks"],
  ["post", "/webhooks", "createWebhook"],
  ["get", "/webhooks/{webhookId}", "getWebhook"],
  ["patch", "/webhooks/{webhookId}", "updateWebhook"],
  ["delete", "/webhooks/{webhookId}", "deleteWebhook"],
  ["post", "/webhooks/{webhookId}/rotate-secret", "rotateWebhookSecret"],
  ["get", "/webhooks/{webhookId}/deliveries", "listWebhookDeliveries"],
  ["post", "/webhooks/{webhookId}/deliveries/{deliveryId}/retry", "retryWebhookDelivery"],
  ["post", "/webhooks/{webhookId}/test", "sendWebhookTestEvent"],
] as const;
const PUBLIC_OPERATIONS = new Set(["redirectToSupportSession", "createSupportSession"]);
// The player side (chat tickets, messages, CSAT, collector answers, breadcrumbs, attachments),
// authenticated by a web support session code.
const PLAYER_SIDE_OPERATIONS = [
  ["get", "/player-api/tickets", "listPlayerTickets"],
  ["post", "/player-api/tickets", "createPlayerTicket"],
  ["post", "/player-api/tickets/{ticketId}/messages", "sendPlayerMessage"],
  ["get", "/player-api/tickets/{ticketId}/events", "listPlayerTicketEvents"],
  ["post", "/player-api/tickets/{ticketId}/csat", "submitPlayerCsat"],
  ["post", "/player-api/tickets/{ticketId}/read", "markPlayerTicketRead"],
  ["post", "/player-api/tickets/{ticketId}/breadcrumbs", "addPlayerBreadcrumbs"],
  ["post", "/player-api/tickets/{ticketId}/collector-results", "addPlayerCollectorResult"],
  ["post", "/player-api/attachments", "createPlayerAttachment"],
  ["get", "/player-api/session", "getPlayerSession"],
  ["get", "/player-api/resources/{key}", "getPlayerResource"],
  ["get", "/player-api/resources", "searchPlayerResources"],
  ["get", "/player-api/resources/{key}/related", "listPlayerRelatedResources"],
  ["post", "/player-api/resources/{key}/feedback", "sendPlayerResourceFeedback"],
  ["get", "/player-api/tickets/{ticketId}/stream", "streamPlayerTicketEvents"],
  ["get", "/player-api/tickets/{ticketId}/attachments/{attachmentId}", "getPlayerAttachment"],
  ["post", "/player-api/verification/email", "startPlayerEmailVerification"],
  ["post", "/player-api/verification/email/confirm", "confirmPlayerEmailVerification"],
] as const;
const SESSION_OPERATIONS = new Set<string>(PLAYER_SIDE_OPERATIONS.map((op) => op[2]));
// The support application's door: sign-in (and its two-factor step, with the challenge cookie)
// is public, the others take the session cookie.
const AGENT_OPERATIONS = [
  ["post", "/agent-api/sign-in", "signInAgent"],
  ["post", "/agent-api/sign-in/totp", "completeAgentTwoFactorSignIn"],
  ["post", "/agent-api/two-factor/enrolment", "startAgentTwoFactorEnrolment"],
  ["post", "/agent-api/two-factor/enrolment/confirm", "confirmAgentTwoFactorEnrolment"],
  ["post", "/agent-api/sign-out", "signOutAgent"],
  ["post", "/agent-api/sign-out-everywhere", "signOutAgentEverywhere"],
  ["get", "/agent-api/me", "getAgentMe"],
  ["post", "/agent-api/password-reset", "requestAgentPasswordReset"],
  ["post", "/agent-api/links/inspect", "inspectAgentLink"],
  ["post", "/agent-api/links/redeem", "redeemAgentLink"],
  ["get", "/agent-api/audit-log", "listAgentAuditLog"],
  ["get", "/agent-api/sso/start", "startAgentSingleSignOn"],
  ["get", "/agent-api/sso/callback", "completeAgentSingleSignOn"],
  ["get", "/agent-api/tickets", "listAgentTickets"],
  ["get", "/agent-api/views", "listAgentViews"],
  ["get", "/agent-api/tickets/{ticketId}", "getAgentTicket"],
  ["post", "/agent-api/tickets/{ticketId}/actions", "performAgentTicketActions"],
  ["post", "/agent-api/tickets/{ticketId}/merge", "mergeAgentTicket"],
  ["get", "/agent-api/tickets/{ticketId}/attachments/{attachmentId}", "getAgentTicketAttachment"],
  ["get", "/agent-api/stream", "streamAgentChanges"],
  ["post", "/agent-api/tickets/{ticketId}/presence", "announceAgentPresence"],
  ["get", "/agent-api/canned-responses", "listAgentCannedResponses"],
  ["post", "/agent-api/canned-responses", "createAgentCannedResponse"],
  ["put", "/agent-api/canned-responses/{cannedResponseId}", "updateAgentCannedResponse"],
  ["delete", "/agent-api/canned-responses/{cannedResponseId}", "retireAgentCannedResponse"],
  ["get", "/agent-api/tickets/{ticketId}/canned-responses", "listAgentTicketCannedResponses"],
  ["delete", "/agent-api/tickets/{ticketId}/player/scheduled-deletion", "cancelAgentPlayerDeletion"],
  ["get", "/agent-api/users", "listAgentUsers"],
  ["get", "/agent-api/tags", "listAgentTags"],
  ["post", "/agent-api/tickets/{ticketId}/read", "markAgentTicketRead"],
  ["put", "/agent-api/me/availability", "setAgentAvailability"],
  ["post", "/agent-api/tickets/{ticketId}/requeue", "requeueAgentTicket"],
  ["get", "/agent-api/tickets/{ticketId}/assignments", "listAgentTicketAssignments"],
  ["get", "/agent-api/settings/outbreaks", "getAgentSettingsOutbreaks"],
  ["put", "/agent-api/settings/outbreaks", "setAgentSettingsOutbreaks"],
  ["get", "/agent-api/incidents", "listAgentIncidents"],
  ["get", "/agent-api/incidents/{incidentId}", "getAgentIncident"],
  ["post", "/agent-api/incidents/{incidentId}/close", "closeAgentIncident"],
  ["post", "/agent-api/incidents/{incidentId}/answer", "answerAgentIncident"],
  ["post", "/agent-api/incidents/{incidentId}/announcement", "publishAgentIncidentAnnouncement"],
  ["get", "/agent-api/tickets/{ticketId}/triage", "listAgentTicketTriage"],
  ["post", "/agent-api/tickets/{ticketId}/triage/{predictionId}/apply", "applyAgentTicketTriage"],
  ["post", "/agent-api/tickets/{ticketId}/triage/{predictionId}/dismiss", "dismissAgentTicketTriage"],
  ["get", "/agent-api/settings/triage", "getAgentTriageSettings"],
  ["patch", "/agent-api/settings/triage", "updateAgentTriageSettings"],
  ["post", "/agent-api/settings/triage/train", "trainAgentTriageModel"],
  ["get", "/agent-api/tickets/{ticketId}/sla", "getAgentTicketSla"],
  ["get", "/agent-api/settings/sla", "getAgentSettingsSla"],
  ["put", "/agent-api/settings/sla", "setAgentSettingsSla"],
  ["get", "/agent-api/settings/sla/report", "getAgentSlaReport"],
  ["get", "/agent-api/saved-views", "listAgentSavedViews"],
  ["post", "/agent-api/saved-views", "createAgentSavedView"],
  ["delete", "/agent-api/saved-views/{savedViewId}", "deleteAgentSavedView"],
  ["post", "/agent-api/tickets/{ticketId}/attachments", "createAgentTicketAttachment"],
  ["get", "/agent-api/fields", "listAgentFields"],
  ["get", "/agent-api/games", "listAgentGames"],
  ["get", "/agent-api/audit-log/export", "exportAgentAuditLog"],
  ["get", "/agent-api/settings/api-keys", "listAgentApiKeys"],
  ["post", "/agent-api/settings/api-keys", "createAgentApiKey"],
  ["delete", "/agent-api/settings/api-keys/{apiKeyId}", "revokeAgentApiKey"],
  ["get", "/agent-api/settings/tags", "listAgentSettingsTags"],
  ["post", "/agent-api/settings/tags", "createAgentSettingsTag"],
  ["put", "/agent-api/settings/tags/{tagId}", "updateAgentSettingsTag"],
  ["delete", "/agent-api/settings/tags/{tagId}", "retireAgentSettingsTag"],
  ["get", "/agent-api/settings/fields", "listAgentSettingsFields"],
  ["post", "/agent-api/settings/fields", "createAgentSettingsField"],
  ["put", "/agent-api/settings/fields/{fieldId}", "updateAgentSettingsField"],
  ["delete", "/agent-api/settings/fields/{fieldId}", "retireAgentSettingsField"],
  ["get", "/agent-api/settings/users", "listAgentTeamMembers"],
  ["post", "/agent-api/settings/users", "inviteAgentTeamMember"],
  ["patch", "/agent-api/settings/users/{userId}", "updateAgentTeamMember"],
  ["post", "/agent-api/settings/users/{userId}/invitation", "resendAgentTeamInvitation"],
  ["post", "/agent-api/settings/users/{userId}/deactivate", "deactivateAgentTeamMember"],
  ["delete", "/agent-api/settings/users/{userId}/two-factor", "resetAgentTeamMemberTwoFactor"],
  ["get", "/agent-api/settings/games", "listAgentSettingsGames"],
  ["post", "/agent-api/settings/games", "createAgentSettingsGame"],
  ["get", "/agent-api/settings/games/{gameId}", "getAgentSettingsGame"],
  ["patch", "/agent-api/settings/games/{gameId}", "updateAgentSettingsGame"],
  ["put", "/agent-api/settings/games/{gameId}/metadata-keys", "setAgentGameMetadataKeys"],
  ["post", "/agent-api/settings/games/{gameId}/metadata-token-checks", "checkAgentMetadataToken"],
  ["post", "/agent-api/settings/games/{gameId}/environments", "createAgentEnvironment"],
  ["post", "/agent-api/settings/games/{gameId}/environments/{environmentId}/token-rotation", "rotateAgentEnvironmentToken"],
  ["get", "/agent-api/settings/games/{gameId}/branding", "getAgentSettingsGameBranding"],
  ["put", "/agent-api/settings/games/{gameId}/branding", "setAgentSettingsGameBranding"],
  ["get", "/agent-api/settings/collectors", "listAgentSettingsCollectors"],
  ["post", "/agent-api/settings/collectors", "createAgentSettingsCollector"],
  ["put", "/agent-api/settings/collectors/{collectorId}", "updateAgentSettingsCollector"],
  ["delete", "/agent-api/settings/collectors/{collectorId}", "retireAgentSettingsCollector"],
  ["put", "/agent-api/settings/games/{gameId}/contact-form", "setAgentSettingsContactForm"],
  // Settings → Webhooks.
  ["get", "/agent-api/settings/webhooks", "listAgentSettingsWebhooks"],
  ["post", "/agent-api/settings/webhooks", "createAgentSettingsWebhook"],
  ["patch", "/agent-api/settings/webhooks/{webhookId}", "updateAgentSettingsWebhook"],
  ["delete", "/agent-api/settings/webhooks/{webhookId}", "deleteAgentSettingsWebhook"],
  ["post", "/agent-api/settings/webhooks/{webhookId}/rotate-secret", "rotateAgentSettingsWebhookSecret"],
  ["post", "/agent-api/settings/webhooks/{webhookId}/test", "sendAgentSettingsWebhookTestEvent"],
  ["get", "/agent-api/settings/webhooks/{webhookId}/deliveries", "listAgentSettingsWebhookDeliveries"],
  ["post", "/agent-api/settings/webhooks/{webhookId}/deliveries/{deliveryId}/retry", "retryAgentSettingsWebhookDelivery"],
  ["get", "/agent-api/settings/games/{gameId}/articles", "listAgentSettingsArticles"],
  ["post", "/agent-api/settings/games/{gameId}/articles", "createAgentSettingsArticle"],
  ["put", "/agent-api/settings/games/{gameId}/article-order", "reorderAgentSettingsArticles"],
  ["put", "/agent-api/settings/articles/{articleId}", "updateAgentSettingsArticle"],
  ["delete", "/agent-api/settings/articles/{articleId}", "removeAgentSettingsArticle"],
  ["get", "/agent-api/settings/announcements", "listAgentSettingsAnnouncements"],
  ["put", "/agent-api/settings/announcements", "setAgentSettingsAnnouncement"],
  ["delete", "/agent-api/settings/announcements", "clearAgentSettingsAnnouncement"],
  // Settings → Players.
  ["get", "/agent-api/settings/players/immediate-deletion", "getAgentSettingsImmediateDeletion"],
  ["get", "/agent-api/settings/games/{gameId}/blocked-players", "listAgentSettingsBlockedPlayers"],
  ["post", "/agent-api/settings/games/{gameId}/blocked-players", "blockAgentSettingsPlayer"],
  ["delete", "/agent-api/settings/games/{gameId}/blocked-players/{servicePlayerId}", "unblockAgentSettingsPlayer"],
  ["post", "/agent-api/settings/games/{gameId}/player-erasures", "deleteAgentSettingsPlayer"],
  ["get", "/agent-api/settings/scheduled-deletions", "listAgentSettingsScheduledDeletions"],
  ["delete", "/agent-api/settings/scheduled-deletions/{servicePlayerId}", "cancelAgentSettingsPlayerDeletion"],
  // Settings → Rules.
  ["get", "/agent-api/settings/rules", "listAgentSettingsRules"],
  ["post", "/agent-api/settings/rules", "createAgentSettingsRule"],
  ["patch", "/agent-api/settings/rules/{ruleId}", "updateAgentSettingsRule"],
  ["delete", "/agent-api/settings/rules/{ruleId}", "deleteAgentSettingsRule"],
  ["put", "/agent-api/settings/rule-order", "reorderAgentSettingsRules"],
  ["get", "/agent-api/settings/rule-runs", "listAgentSettingsRuleRuns"],
  ["get", "/agent-api/tickets/{ticketId}/rule-runs", "listAgentTicketRuleRuns"],
  ["get", "/agent-api/settings/rule-signing-secret", "getAgentSettingsRuleSigningSecret"],
  ["post", "/agent-api/settings/rule-signing-secret/rotate", "rotateAgentSettingsRuleSigningSecret"],
] as const;
// Routes behind requireFullSession: a session limited to two-factor enrolment gets 403 on a GET too.
const AGENT_FULL_SESSION_READS = new Set<string>(["getAgentSettingsOutbreaks", "listAgentIncidents", "getAgentIncident", "listAgentTicketAssignments", "getAgentTicketSla", "getAgentSettingsSla", "getAgentSlaReport", "listAgentSettingsRules", "listAgentSettingsRuleRuns", "listAgentTicketRuleRuns", "getAgentSettingsRuleSigningSecret", "listAgentTicketTriage", "getAgentTriageSettings", "listAgentAuditLog", "listAgentTickets", "listAgentViews", "getAgentTicket", "getAgentTicketAttachment", "streamAgentChanges", "listAgentCannedResponses", "listAgentTicketCannedResponses", "listAgentUsers", "listAgentTags", "listAgentSavedViews", "listAgentFields", "listAgentGames", "exportAgentAuditLog", "listAgentApiKeys", "listAgentSettingsTags", "listAgentSettingsFields", "listAgentTeamMembers", "listAgentSettingsGames", "getAgentSettingsGame", "listAgentSettingsCollectors", "getAgentSettingsGameBranding", "listAgentSettingsArticles", "listAgentSettingsAnnouncements", "listAgentSettingsWebhooks", "listAgentSettingsWebhookDeliveries", "getAgentSettingsImmediateDeletion", "listAgentSettingsBlockedPlayers", "listAgentSettingsScheduledDeletions"]);
const AGENT_SESSION_OPERATIONS = new Set<string>([
  "listAgentSettingsArticles", "createAgentSettingsArticle", "reorderAgentSettingsArticles", "updateAgentSettingsArticle", "removeAgentSettingsArticle",
  "listAgentSettingsAnnouncements", "setAgentSettingsAnnouncement", "clearAgentSettingsAnnouncement",
  "signOutAgent", "signOutAgentEverywhere", "getAgentMe", "startAgentTwoFactorEnrolment", "confirmAgentTwoFactorEnrolment", "listAgentAuditLog",
  "listAgentTickets", "listAgentViews", "getAgentTicket", "performAgentTicketActions", "mergeAgentTicket", "getAgentTicketAttachment", "streamAgentChanges", "announceAgentPresence",
  "listAgentCannedResponses", "createAgentCannedResponse", "updateAgentCannedResponse", "retireAgentCannedResponse", "listAgentTicketCannedResponses", "cancelAgentPlayerDeletion", "listAgentUsers", "listAgentTags", "markAgentTicketRead", "listAgentSavedViews", "createAgentSavedView", "deleteAgentSavedView",
  "createAgentTicketAttachment", "listAgentFields", "listAgentGames", "exportAgentAuditLog", "listAgentApiKeys", "createAgentApiKey", "revokeAgentApiKey",
  "listAgentSettingsTags", "createAgentSettingsTag", "updateAgentSettingsTag", "retireAgentSettingsTag", "listAgentSettingsFields", "createAgentSettingsField", "updateAgentSettingsField", "retireAgentSettingsField",
  "listAgentTeamMembers", "inviteAgentTeamMember", "updateAgentTeamMember", "resendAgentTeamInvitation", "deactivateAgentTeamMember", "resetAgentTeamMemberTwoFactor",
  "listAgentSettingsCollectors", "createAgentSettingsCollector", "updateAgentSettingsCollector", "retireAgentSettingsCollector", "setAgentSettingsContactForm",
  "listAgentSettingsGames", "createAgentSettingsGame", "getAgentSettingsGame", "updateAgentSettingsGame", "setAgentGameMetadataKeys", "checkAgentMetadataToken", "createAgentEnvironment",
  "rotateAgentEnvironmentToken", "getAgentSettingsGameBranding", "setAgentSettingsGameBranding",
  "listAgentSettingsWebhooks", "createAgentSettingsWebhook", "updateAgentSettingsWebhook", "deleteAgentSettingsWebhook", "rotateAgentSettingsWebhookSecret",
  "sendAgentSettingsWebhookTestEvent", "listAgentSettingsWebhookDeliveries", "retryAgentSettingsWebhookDelivery",
  "getAgentSettingsImmediateDeletion", "listAgentSettingsBlockedPlayers", "blockAgentSettingsPlayer", "unblockAgentSettingsPlayer", "deleteAgentSettingsPlayer",
  "listAgentSettingsScheduledDeletions", "cancelAgentSettingsPlayerDeletion",
  "setAgentAvailability", "requeueAgentTicket", "listAgentTicketAssignments",
  "getAgentSettingsOutbreaks", "setAgentSettingsOutbreaks", "listAgentIncidents", "getAgentIncident", "closeAgentIncident", "answerAgentIncident", "publishAgentIncidentAnnouncement",
  "listAgentTicketTriage", "applyAgentTicketTriage", "dismissAgentTicketTriage", "getAgentTriageSettings", "updateAgentTriageSettings", "trainAgentTriageModel",
  "listAgentSettingsRules", "createAgentSettingsRule", "updateAgentSettingsRule", "deleteAgentSettingsRule", "reorderAgentSettingsRules", "listAgentSettingsRuleRuns", "listAgentTicketRuleRuns",
  "getAgentSettingsRuleSigningSecret", "rotateAgentSettingsRuleSigningSecret",
  "getAgentTicketSla", "getAgentSettingsSla", "setAgentSettingsSla", "getAgentSlaReport",
]);
const AGENT_API_OPERATIONS = new Set<string>(AGENT_OPERATIONS.map((op) => op[2]));

/** Every object in the document with its JSON pointer. */
function* walk(value: unknown, pointer = ""): Generator<[Json, string]> {
  if (value === null || typeof value !== "object") return;
  if (!Array.isArray(value)) yield [value as Json, pointer];
  for (const [key, child] of Object.entries(value)) {
    yield* walk(child, `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
  }
}

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(openapiDocument) as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(openapiDocument.openapi).toBe("3.1.0");
    expect(openapiDocument.info.version).toBe("1.0.0");
    expect(openapiDocument.servers).toEqual([expect.objectContaining({ url: "/" })]);
  });

  it("is refused by the validator when broken (the check above is not vacuous)", async () => {
    const broken = structuredClone(openapiDocument) as Json;
    delete (broken.info as Json).version;
    const result = await new Validator().validate(broken as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.valid).toBe(false);
  });

  it("has exactly the 27 operations of the public API plus the 14 of the player side and the 121 of the agent API, each with its operationId", () => {
    const actual = [...operations.values()].map((op) => [op.method, op.path, op.operationId]).sort();
    expect(actual).toEqual([...API_OPERATIONS, ...PLAYER_SIDE_OPERATIONS, ...AGENT_OPERATIONS].map((op) => [...op]).sort());
  });

  it("resolves every $ref", () => {
    for (const [object, pointer] of walk(openapiDocument)) {
      const ref = object.$ref;
      if (typeof ref !== "string") continue;
      expect(ref, pointer).toMatch(/^#\//);
      expect(() => resolvePointer(openapiDocument, ref.slice(1)), `${pointer} -> ${ref}`).not.toThrow();
      // A named component, never a part of one (`.../X/properties/y`): client generators
      // such as orval cannot compile a reference into another schema's properties.
      expect(ref, pointer).toMatch(/^#\/components\/[A-Za-z]+\/[^/]+$/);
    }
  });

  it("states its licence (proprietary) and a contact", () => {
    const info = openapiDocument.info as Json;
    expect(info.license).toEqual({ name: "Proprietary", identifier: "LicenseRef-Proprietary" });
    expect((info.contact as Json | undefined)?.name).toBeTruthy();
  });

  it("uses only JSON Schema keywords ajv knows (catches misspelled keywords)", () => {
    // Strict schema mode refuses unknown keywords; OpenAPI's own additions are allowed.
    const ajv = new Ajv2020({ strictSchema: true, strictTypes: false, strictRequired: false, discriminator: true });
    addFormats.default(ajv);
    ajv.addVocabulary(["example"]);
    // Only the component schemas are JSON Schema: add them alone, as `$defs` of one schema.
    const schemas = structuredClone(openapiDocument.components.schemas!) as Json;
    for (const [object] of walk(schemas)) {
      if (object.discriminator !== undefined) delete (object.discriminator as Json).mapping;
      if (typeof object.$ref === "string") object.$ref = object.$ref.replace("#/components/schemas/", "#/$defs/");
    }
    ajv.addSchema({ $defs: schemas }, "schemas.json");
    for (const name of Object.keys(schemas)) {
      expect(() => ajv.compile({ $ref: `schemas.json#/$defs/${name}` }), name).not.toThrow();
    }
    // The check works: a misspelled keyword is refused.
    expect(() => ajv.compile({ type: "array", minitems: 1 })).toThrow(/unknown keyword/);
  });

  it("declares every required property of an object schema", () => {
    const declared = (schema: Json): Set<string> => {
      const names = new Set(Object.keys((schema.properties ?? {}) as Json));
      for (const part of (schema.allOf ?? []) as Json[]) {
        const target = typeof part.$ref === "string" ? (resolvePointer(openapiDocument, part.$ref.slice(1)) as Json) : part;
        for (const name of declared(target)) names.add(name);
      }
      return names;
    };
    for (const [object, pointer] of walk(openapiDocument.components.schemas)) {
      if (!Array.isArray(object.required) || object.properties === undefined) continue;
      const names = declared(object);
      for (const name of object.required as string[]) expect(names.has(name), `${pointer} requires ${name}`).toBe(true);
    }
  });

  it("requires the bearer API key except on the two public routes, the player side (session code) and agent sign-in (its cookie)", () => {
    expect(openapiDocument.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: "http", scheme: "bearer" }),
      sessionCode: expect.objectContaining({ type: "apiKey", in: "header", name: "Authorization" }),
      agentSession: expect.objectContaining({ type: "apiKey", in: "cookie", name: "__Host-support_session" }),
    });
    expect(openapiDocument.security).toEqual([{ bearerAuth: [] }]);
    for (const op of operations.values()) {
      expect(op.authenticated, op.operationId).toBe(!PUBLIC_OPERATIONS.has(op.operationId) && !SESSION_OPERATIONS.has(op.operationId) && !AGENT_API_OPERATIONS.has(op.operationId));
      expect(op.agentSessionAuthenticated, op.operationId).toBe(AGENT_SESSION_OPERATIONS.has(op.operationId));
      if (AGENT_API_OPERATIONS.has(op.operationId) && !AGENT_SESSION_OPERATIONS.has(op.operationId)) expect((openapiDocument.paths[op.path]![op.method] as Json).security).toEqual([]);
      expect(op.sessionAuthenticated, op.operationId).toBe(SESSION_OPERATIONS.has(op.operationId));
      if (SESSION_OPERATIONS.has(op.operationId)) expect(openapiDocument.paths[op.path]![op.method]).toMatchObject({ security: [{ sessionCode: [] }] });
      const raw = openapiDocument.paths[op.path]![op.method] as Json;
      if (PUBLIC_OPERATIONS.has(op.operationId)) expect(raw.security).toEqual([]);
    }
  });

  it("documents the errors each route can answer, all with the {code, message, details?} error body", () => {
    const errorSchema = "/components/schemas/Error";
    for (const op of operations.values()) {
      const statuses = [...op.responses.keys()];
      // What any operation can answer: an internal failure, a dependency down or too slow. Every
      // operation has a handler, so none declares 501.
      for (const status of ["500", "503", "504"]) expect(statuses, op.operationId).toContain(status);
      expect(statuses, op.operationId).not.toContain("501");
      expect(op.responses.get("503")!.requiredHeaders, op.operationId).toContain("retry-after");
      if (AGENT_API_OPERATIONS.has(op.operationId)) {
        // Agent sign-in: no session or an Authorization header is a 401; a POST can fail the
        // CSRF checks (403); every 429 says when to retry.
        expect(statuses, op.operationId).toContain("401");
        // The audit log is the admins' (403 for an agent); the ticket routes need a full session;
        // every write can fail the CSRF checks.
        if (op.method !== "get" || AGENT_FULL_SESSION_READS.has(op.operationId)) expect(statuses, op.operationId).toContain("403");
        else expect(statuses, op.operationId).not.toContain("403");
        expect(statuses, op.operationId).toContain("429");
        expect(op.responses.get("429")!.requiredHeaders, op.operationId).toContain("retry-after");
        // Signing in and out sets the cookie; a link's redemption only sets a password.
        for (const [status, response] of op.responses) {
          if (status === "204" && /^signIn|^signOut/.test(op.operationId)) expect(response.requiredHeaders, `${op.operationId} ${status}`).toContain("set-cookie");
        }
      } else if (op.sessionAuthenticated) {
        // The player side: a session check (403) behind its own abuse limits (429).
        expect(statuses, op.operationId).toContain("403");
        expect(statuses, op.operationId).toContain("429");
        expect(op.responses.get("429")!.requiredHeaders, op.operationId).toContain("retry-after");
      } else if (op.authenticated) {
        // The API key's side: the key's and its company's per-minute limits (429 with the RateLimit headers).
        expect(statuses, op.operationId).toContain("403");
        expect(statuses, op.operationId).toContain("429");
        expect(op.responses.get("429")!.requiredHeaders, op.operationId).toEqual(expect.arrayContaining(["retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]));
        for (const [status, response] of op.responses) {
          if (Number(status) < 400) expect(response.requiredHeaders, `${op.operationId} ${status}`).toEqual(expect.arrayContaining(["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]));
        }
      } else {
        expect(statuses, op.operationId).toContain("429");
        expect(op.responses.get("429")!.requiredHeaders, op.operationId).toContain("retry-after");
        expect(statuses, op.operationId).not.toContain("403");
      }
      if (op.requestBody !== undefined || op.parameters.length > 0) expect(statuses, op.operationId).toContain("400");
      if (op.requestBody !== undefined) expect(statuses, op.operationId).toContain("413");
      for (const [status, response] of op.responses) {
        expect(response.requiredHeaders, `${op.operationId} ${status}`).toContain("x-request-id");
        if (Number(status) >= 400) {
          const schema = resolvePointer(openapiDocument, response.schemaPointer!) as Json;
          expect(schema.$ref, `${op.operationId} ${status}`).toBe(`#${errorSchema}`);
        }
      }
    }
    expect(operations.get("performTicketActions")!.responses.has("409")).toBe(true);
  });

  it("answers the four redirects with 307, a Location header and no body", () => {
    for (const id of ["getAttachment", "redirectToSupportSession", "getPlayerAttachment", "getAgentTicketAttachment"]) {
      const redirect = operations.get(id)!.responses.get("307")!;
      expect(redirect.schemaPointer).toBeUndefined();
      expect(redirect.requiredHeaders).toContain("location");
      expect(operations.get(id)!.responses.has("200")).toBe(false);
    }
  });

  it("gives every operation a summary and tags, and every parameter a schema", () => {
    for (const op of operations.values()) {
      const raw = openapiDocument.paths[op.path]![op.method] as Json;
      expect(typeof raw.summary, op.operationId).toBe("string");
      expect(raw.tags, op.operationId).toHaveLength(1);
      for (const parameter of op.parameters) {
        expect(resolvePointer(openapiDocument, parameter.schemaPointer), `${op.operationId} ${parameter.name}`).toBeTypeOf("object");
      }
    }
  });

  it("declares the GET /tickets query: JSON-encoded tags, fields and status, limit 1..1000 (default 100), order asc or desc", () => {
    const query = Object.fromEntries(
      operations.get("listTickets")!.parameters.map((p) => [p.name, resolvePointer(openapiDocument, p.schemaPointer)]),
    );
    expect(Object.keys(query).sort()).toEqual(
      ["playerId", "email", "gameId", "ticketId", "tags", "fields", "status", "createdAfter", "createdBefore", "order", "cursor", "limit"].sort(),
    );
    for (const name of ["tags", "fields", "status"]) expect(query[name]).toEqual({ type: "string" });
    expect(query.limit).toEqual({ type: "integer", minimum: 1, maximum: 1000, default: 100 });
    expect(query.order).toEqual({ type: "string", enum: ["asc", "desc"], default: "asc" });
  });

  it("serializes the same document for GET /openapi.json", () => {
    expect(JSON.parse(openapiJson)).toEqual(openapiDocument);
  });
});
