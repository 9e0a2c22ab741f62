// /agent-api/settings/...: the company's own setup, changed by its admins. Content owns every
// object (its CompanySettingsService checks that the user is an admin and writes the audit
// log); this answers an agent's request with a 403 before calling anything, and maps HTTP onto
// the RPCs with the acting admin and the request's address.
import type { Context } from "koa";
import type { CompanyApiKey, FieldDefinition, Tag, TeamMember } from "@support/proto";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { ApiKeyCache } from "../auth.ts";
import type { CompanySettingsClient } from "../clients.ts";
import { isoTimestamp, isoTimestampOrNull } from "../mappings/timestamps.ts";
import { HttpProblem } from "../middleware/errors.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { respond, type ApiRoutes } from "./api.ts";

export interface AgentSettingsRoutesDeps {
  companySettings: CompanySettingsClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
  /** The service's limit for keys of companies without one (API_RATE_LIMIT_PER_MINUTE). */
  defaultRateLimitPerMinute: number;
  /** This gateway's cache of API keys: a key revoked here is dropped from it at once. */
  apiKeys: ApiKeyCache;
}

/** Only the company's admins reach the settings: an agent learns so before anything is read. */
export function requireAdmin(ctx: Context, next: () => Promise<unknown>) {
  const session = (ctx.state as AgentSessionState).agentSession;
  if (session.user.role !== "admin") throw new HttpProblem(403, "permission_denied", "Only an admin of the company changes its settings");
  return next();
}

export function auditActorDto(actor: { type: string; id?: string | undefined; name?: string | undefined } | undefined): Schemas["AgentAuditActor"] {
  return { type: (actor?.type ?? "operator") as Schemas["AgentAuditActor"]["type"], id: actor?.id ?? null, name: actor?.name ?? null };
}

function tagDto(tag: Tag): Schemas["AgentSettingsTag"] {
  return { id: tag.id, gameId: tag.gameId ?? null, name: tag.name, description: tag.description ?? null, isAiTag: tag.isAiTag, isSkill: tag.isSkill };
}

function fieldDto(field: FieldDefinition): Schemas["AgentSettingsField"] {
  return {
    id: field.id, gameId: field.gameId ?? null, key: field.key, name: field.name, type: field.type as Schemas["AgentSettingsField"]["type"],
    description: field.description ?? null, isAiField: field.isAiField, options: [...field.options],
  };
}

export function registerAgentSettingsRoutes(api: ApiRoutes, deps: AgentSettingsRoutesDeps): void {
  const { companySettings, guards } = deps;
  const read = [...guards.read, requireAdmin];
  const write = [...guards.write, requireAdmin];
  const changeOf = (ctx: Context) => {
    const session = (ctx.state as AgentSessionState).agentSession;
    return { companyId: session.companyId, actingUserId: session.user.id, clientAddress: guards.clientAddress(ctx) };
  };
  const apiKeyDto = (key: CompanyApiKey, companyLimit: number | undefined): Schemas["AgentApiKey"] => ({
    id: key.id,
    name: key.name,
    keyPrefix: key.keyPrefix,
    createdAt: isoTimestamp(key.createdAt, "content", "API key createdAt"),
    createdBy: auditActorDto(key.createdBy),
    lastUsedAt: isoTimestampOrNull(key.lastUsedAt),
    rateLimitPerMinute: key.rateLimitPerMinute ?? null,
    effectiveRateLimitPerMinute: key.rateLimitPerMinute ?? companyLimit ?? deps.defaultRateLimitPerMinute,
    revokedAt: isoTimestampOrNull(key.revokedAt),
  });

  api.operation<"listAgentApiKeys", AgentSessionState>(
    "listAgentApiKeys",
    async (ctx) => {
      const { apiKeys, companyRateLimitPerMinute } = await companySettings.listCompanyApiKeys({ change: changeOf(ctx) });
      respond(ctx, 200, { apiKeys: apiKeys.map((key) => apiKeyDto(key, companyRateLimitPerMinute)) });
    },
    { before: read },
  );

  api.operation<"createAgentApiKey", AgentSessionState>(
    "createAgentApiKey",
    async (ctx) => {
      const { name, rateLimitPerMinute } = ctx.state.validated.body;
      const created = await companySettings.createCompanyApiKey({ change: changeOf(ctx), name, rateLimitPerMinute: rateLimitPerMinute ?? undefined });
      respond(ctx, 201, { apiKey: apiKeyDto(created.apiKey!, created.companyRateLimitPerMinute), secret: created.secret });
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"revokeAgentApiKey", AgentSessionState>(
    "revokeAgentApiKey",
    async (ctx) => {
      const { apiKey, companyRateLimitPerMinute } = await companySettings.revokeCompanyApiKey({ change: changeOf(ctx), apiKeyId: ctx.state.validated.params.apiKeyId });
      // Refused from this answer on by this gateway; the other replicas drop it on content's
      // content.api_key.revoked event (events/content-changed.consumer.ts), moments later.
      deps.apiKeys.evictWhere((identity) => identity.apiKeyId === apiKey!.id);
      respond(ctx, 200, apiKeyDto(apiKey!, companyRateLimitPerMinute));
    },
    { before: write },
  );

  // ---- tags and custom fields
  api.operation<"listAgentSettingsTags", AgentSessionState>(
    "listAgentSettingsTags",
    async (ctx) => {
      const { tags } = await companySettings.listCompanyTagsAndFields({ change: changeOf(ctx) });
      respond(ctx, 200, { tags: tags.map(tagDto) });
    },
    { before: read },
  );

  api.operation<"createAgentSettingsTag", AgentSessionState>(
    "createAgentSettingsTag",
    async (ctx) => {
      const body = ctx.state.validated.body;
      const { tag } = await companySettings.createCompanyTag({
        change: changeOf(ctx), gameId: body.gameId ?? undefined, name: body.name, description: body.description ?? undefined, isAiTag: body.isAiTag ?? false, isSkill: body.isSkill ?? false,
      });
      respond(ctx, 201, tagDto(tag!));
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"updateAgentSettingsTag", AgentSessionState>(
    "updateAgentSettingsTag",
    async (ctx) => {
      const body = ctx.state.validated.body;
      const { tag } = await companySettings.updateCompanyTag({
        change: changeOf(ctx), tagId: ctx.state.validated.params.tagId, description: body.description ?? undefined, isAiTag: body.isAiTag ?? false, isSkill: body.isSkill ?? false,
      });
      respond(ctx, 200, tagDto(tag!));
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"retireAgentSettingsTag", AgentSessionState>(
    "retireAgentSettingsTag",
    async (ctx) => {
      const { tag } = await companySettings.retireCompanyTag({ change: changeOf(ctx), tagId: ctx.state.validated.params.tagId });
      respond(ctx, 200, tagDto(tag!));
    },
    { before: write },
  );

  api.operation<"listAgentSettingsFields", AgentSessionState>(
    "listAgentSettingsFields",
    async (ctx) => {
      const { fields } = await companySettings.listCompanyTagsAndFields({ change: changeOf(ctx) });
      respond(ctx, 200, { fields: fields.map(fieldDto) });
    },
    { before: read },
  );

  api.operation<"createAgentSettingsField", AgentSessionState>(
    "createAgentSettingsField",
    async (ctx) => {
      const body = ctx.state.validated.body;
      const { field } = await companySettings.createCompanyField({
        change: changeOf(ctx), gameId: body.gameId ?? undefined, key: body.key, name: body.name, type: body.type, description: body.description ?? undefined,
        isAiField: body.isAiField ?? false, options: body.options ?? [],
      });
      respond(ctx, 201, fieldDto(field!));
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"updateAgentSettingsField", AgentSessionState>(
    "updateAgentSettingsField",
    async (ctx) => {
      const body = ctx.state.validated.body;
      const { field } = await companySettings.updateCompanyField({
        change: changeOf(ctx), fieldId: ctx.state.validated.params.fieldId, name: body.name, description: body.description ?? undefined, isAiField: body.isAiField ?? false,
        options: body.options ?? [],
      });
      respond(ctx, 200, fieldDto(field!));
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"retireAgentSettingsField", AgentSessionState>(
    "retireAgentSettingsField",
    async (ctx) => {
      const { field } = await companySettings.retireCompanyField({ change: changeOf(ctx), fieldId: ctx.state.validated.params.fieldId });
      respond(ctx, 200, fieldDto(field!));
    },
    { before: write },
  );

  const teamMemberDto = (user: TeamMember | undefined): Schemas["AgentTeamMember"] => {
    if (!user) throw new Error("content returned no team member");
    return {
      id: user.id,
      name: user.name,
      displayName: user.displayName ?? null,
      email: user.email,
      role: user.role as Schemas["AgentTeamMember"]["role"],
      gameIds: user.gameIds,
      skills: user.skills,
      languages: user.languages,
      capacity: user.capacity,
      available: user.available,
      twoFactorEnabled: user.twoFactorEnabled,
      state: user.state as Schemas["AgentTeamMember"]["state"],
      invitationExpiresAt: isoTimestampOrNull(user.invitationExpiresAt),
      lastSignedInAt: isoTimestampOrNull(user.lastSignedInAt),
      signedInNow: user.signedInNow,
      createdAt: isoTimestamp(user.createdAt, "content", "team member createdAt"),
    };
  };

  api.operation<"listAgentTeamMembers", AgentSessionState>(
    "listAgentTeamMembers",
    async (ctx) => {
      const team = await companySettings.listTeamMembers({ change: changeOf(ctx) });
      respond(ctx, 200, { users: team.users.map(teamMemberDto), games: team.games.map((game) => ({ id: game.id, name: game.name })), skillTags: team.skillTags });
    },
    { before: read },
  );

  api.operation<"inviteAgentTeamMember", AgentSessionState>(
    "inviteAgentTeamMember",
    async (ctx) => {
      const { email, name, role, gameIds, displayName, skills } = ctx.state.validated.body;
      const invited = await companySettings.inviteTeamMember({ change: changeOf(ctx), email, name, role, gameIds, displayName, skills: skills ?? [] });
      respond(ctx, 201, { user: teamMemberDto(invited.user), mailed: invited.mailed });
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"updateAgentTeamMember", AgentSessionState>(
    "updateAgentTeamMember",
    async (ctx) => {
      const { role, gameIds, skills, languages, capacity } = ctx.state.validated.body;
      const updated = await companySettings.updateTeamMember({
        change: changeOf(ctx), userId: ctx.state.validated.params.userId, role,
        setGameIds: gameIds !== undefined, gameIds: gameIds ?? [], setSkills: skills !== undefined, skills: skills ?? [],
        setLanguages: languages !== undefined, languages: languages ?? [], capacity,
      });
      respond(ctx, 200, teamMemberDto(updated.user));
    },
    { before: [...write, jsonBody(deps.bodyLimitBytes)] },
  );

  api.operation<"resendAgentTeamInvitation", AgentSessionState>(
    "resendAgentTeamInvitation",
    async (ctx) => {
      const sent = await companySettings.resendTeamInvitation({ change: changeOf(ctx), userId: ctx.state.validated.params.userId });
      respond(ctx, 200, { user: teamMemberDto(sent.user), mailed: sent.mailed });
    },
    { before: write },
  );

  api.operation<"deactivateAgentTeamMember", AgentSessionState>(
    "deactivateAgentTeamMember",
    async (ctx) => {
      const { user } = await companySettings.deactivateTeamMember({ change: changeOf(ctx), userId: ctx.state.validated.params.userId });
      respond(ctx, 200, teamMemberDto(user));
    },
    { before: write },
  );

  api.operation<"resetAgentTeamMemberTwoFactor", AgentSessionState>(
    "resetAgentTeamMemberTwoFactor",
    async (ctx) => {
      const { user } = await companySettings.resetTeamMemberTwoFactor({ change: changeOf(ctx), userId: ctx.state.validated.params.userId });
      respond(ctx, 200, teamMemberDto(user));
    },
    { before: write },
  );
}
