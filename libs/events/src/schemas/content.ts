// Events of the content service: one for every change it commits (the admin command's changes
// included). None ever carries an API key's secret; a request that changes nothing publishes
// nothing.
import { Type, type Static } from "@sinclair/typebox";
import { defineEvent } from "../contract.ts";
import { CollectorFieldType, DateTime, Nullable, OneOf, Uuid } from "./common.ts";

const Slug = Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" });

export const companyCreated = defineEvent({
  type: "content.company.created",
  description: "An operator created a company (`pnpm admin apply`).",
  version: 1,
  schema: Type.Object({
    id: Uuid(),
    name: Type.String(),
    primaryLanguage: Type.String({ description: "Language code (the API's language enumeration: en, de, es, ...)" }),
    allowImmediateDeletion: Type.Boolean(),
    autoCloseWaitingAfterHours: Type.Number({ exclusiveMinimum: 0 }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  }),
});

const apiKey = {
  apiKeyId: Uuid(),
  name: Type.String(),
  keyPrefix: Type.String({ description: "The first characters of the key (psk_...), for recognising it; not secret" }),
  keyHash: Type.String({ pattern: "^[0-9a-f]{64}$", description: "Hex SHA-256 of the key" }),
  createdAt: DateTime(),
};

export const apiKeyCreated = defineEvent({
  type: "content.api_key.created",
  description: "An API key was created. Gateways forget a cached miss for its `keyHash`.",
  version: 1,
  schema: Type.Object({ ...apiKey, revokedAt: Type.Null() }),
});

export const apiKeyRevoked = defineEvent({
  type: "content.api_key.revoked",
  description: "An API key was revoked: every gateway evicts it from its cache by `keyHash` at once.",
  version: 1,
  schema: Type.Object({ ...apiKey, revokedAt: DateTime() }),
});

export const gameCreated = defineEvent({
  type: "content.game.created",
  description: "A game was created.",
  version: 1,
  schema: Type.Object({
    id: Uuid(),
    name: Type.String(),
    slug: Type.String({ pattern: "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$" }),
    languages: Type.Array(Type.String(), { minItems: 1 }),
    blockUnverifiedPlayers: Type.Boolean(),
    metadataJwks: Nullable(
      Type.Object({ keys: Type.Array(Type.Object({ kty: Type.String() }, { additionalProperties: true, description: "A JSON Web Key (its other members as the key type has them)" })) }),
      "Public keys (JWKS) verifying signedMetadataToken, or null",
    ),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  }),
});

export const gameUpdated = defineEvent({
  type: "content.game.updated",
  description:
    "An admin changed a game in the settings (its name, languages, blockUnverifiedPlayers or JWKS): the game as it is now, in the shape of content.game.created. Caches of the game are stale.",
  version: 1,
  schema: Type.Object({
    id: Uuid(),
    name: Type.String(),
    slug: Type.String({ pattern: "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$" }),
    languages: Type.Array(Type.String(), { minItems: 1 }),
    blockUnverifiedPlayers: Type.Boolean(),
    metadataJwks: Nullable(
      Type.Object({ keys: Type.Array(Type.Object({ kty: Type.String() }, { additionalProperties: true, description: "A JSON Web Key (its other members as the key type has them)" })) }),
      "Public keys (JWKS) verifying signedMetadataToken, or null",
    ),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  }),
});

export const gameBrandingUpdated = defineEvent({
  type: "content.game.branding_updated",
  description:
    "An admin changed how a game's web support page looks (accent colour, colour scheme, logo): the branding as it is now, the logo by its hash (its bytes are content's, served by the gateway under that hash). Caches of the game's branding and logo are stale.",
  version: 1,
  schema: Type.Object({
    gameId: Uuid(),
    accentColor: Nullable(Type.String({ pattern: "^#[0-9a-f]{6}$" }), "The accent colour, or null for the page's default"),
    colorScheme: Type.Union([Type.Literal("light"), Type.Literal("dark"), Type.Literal("system")], { description: "light, dark, or the player's system preference" }),
    logo: Nullable(
      Type.Object({
        sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }),
        contentType: Type.Union([Type.Literal("image/png"), Type.Literal("image/jpeg"), Type.Literal("image/webp")]),
        size: Type.Integer({ minimum: 1 }),
        width: Type.Integer({ minimum: 1 }),
        height: Type.Integer({ minimum: 1 }),
      }),
      "The logo (not its bytes), or null when there is none",
    ),
    updatedAt: DateTime(),
  }),
});

export const gameDeleted = defineEvent({
  type: "content.game.deleted",
  description: "A game was soft-deleted: it is \"game not found\" from now on.",
  version: 1,
  schema: Type.Object({ id: Uuid(), deletedAt: DateTime() }),
});

export const environmentCreated = defineEvent({
  type: "content.environment.created",
  description: "A game environment (with its public token) was created.",
  version: 1,
  schema: Type.Object({
    id: Uuid(),
    gameId: Uuid(),
    name: Type.String(),
    token: Uuid("Public token naming the environment on the public session endpoints"),
  }),
});

export const environmentTokenRotated = defineEvent({
  type: "content.environment.token_rotated",
  description:
    "An environment got a new public token: `token` works at once, `previousToken` keeps working until `previousTokenExpiresAt` and names nothing after it. Whoever keeps the environment's token replaces it.",
  version: 1,
  schema: Type.Object({
    id: Uuid(),
    gameId: Uuid(),
    name: Type.String(),
    token: Uuid("The new public token"),
    previousToken: Uuid("The token before the rotation"),
    previousTokenExpiresAt: DateTime("When the previous token stops working (the time of the rotation for no overlap)"),
  }),
});

export const resourceCreated = defineEvent({
  type: "content.resource.created",
  description: "A support resource of a game was created.",
  version: 1,
  schema: Type.Object({ id: Uuid(), gameId: Uuid(), key: Slug, title: Type.String() }),
});

const resourceChanged = Type.Object({
  id: Uuid(),
  gameId: Uuid(),
  key: Slug,
  title: Type.String({ description: "The plain title (the company's primary language's text)." }),
  position: Type.Integer({ minimum: 0, description: "Its place among the game's articles (then the key)." }),
});

export const resourceUpdated = defineEvent({
  type: "content.resource.updated",
  description:
    "An admin changed a help article (a resource) of a game in the settings: its title, section or body, or its place in the game's order. Its id, key and game never change. Caches of the game's resources are stale.",
  version: 1,
  schema: resourceChanged,
});

export const resourceRemoved = defineEvent({
  type: "content.resource.removed",
  description: "An admin removed a help article (a resource) of a game: the web support page no longer lists or opens it. The data is the article as it was.",
  version: 1,
  schema: resourceChanged,
});

const collectorDefinition = Type.Object({
  id: Uuid(),
  gameId: Uuid(),
  ref: Slug,
  title: Type.String(),
  contactForm: Type.Boolean(),
  fields: Type.Array(
    Type.Object({
      key: Type.String(),
      label: Type.String(),
      type: CollectorFieldType,
      options: Type.Array(Type.String()),
      required: Type.Boolean(),
    }),
  ),
});

export const collectorCreated = defineEvent({
  type: "content.collector.created",
  description: "A collector definition (a form) of a game was created.",
  version: 1,
  schema: collectorDefinition,
});

export const collectorUpdated = defineEvent({
  type: "content.collector.updated",
  description:
    "An admin changed a collector in the settings (its title or fields), or it became or stopped being its game's contact form: the collector as it is now, in the shape of content.collector.created (its id, ref and game never change). Caches of the game's collectors are stale.",
  version: 1,
  schema: collectorDefinition,
});

export const collectorRetired = defineEvent({
  type: "content.collector.retired",
  description:
    "A collector was retired: it is no longer shown or answered (and no longer the contact form); the results players submitted stay on their tickets.",
  version: 1,
  schema: Type.Object({
    id: Uuid(),
    gameId: Uuid(),
    ref: Slug,
    title: Type.String(),
    wasContactForm: Type.Boolean({ description: "Whether it was the game's contact form until now (the game then has none)" }),
    retiredAt: DateTime(),
  }),
});

export const userCreated = defineEvent({
  type: "content.user.created",
  description: "A service user (an agent with access to games, or an admin of the whole company) was created.",
  version: 1,
  schema: Type.Object({
    id: Uuid(),
    name: Type.String(),
    displayName: Type.Optional(Type.String({ description: "The name players see on the user's replies" })),
    email: Type.String(),
    role: Type.Optional(OneOf(["admin", "agent"], "Absent in events written before roles existed: agent")),
    active: Type.Optional(Type.Boolean({ description: "An inactive user cannot sign in; absent: true" })),
    gameIds: Type.Array(Uuid(), { description: "Games the user has access to (an admin has every game)" }),
    skills: Type.Optional(
      Type.Array(Type.String(), { description: "Names of the company's tags marked isSkill, for routing; absent in events written before skills existed: none" }),
    ),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  }),
});

const tagDefinition = Type.Object({
  id: Uuid(),
  gameId: Nullable(Uuid(), "null: a company-wide tag"),
  name: Type.String(),
  description: Nullable(Type.String()),
  isAiTag: Type.Boolean(),
  isSkill: Type.Boolean(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

export const tagCreated = defineEvent({
  type: "content.tag.created",
  description: "A tag definition was created.",
  version: 1,
  schema: tagDefinition,
});

export const tagUpdated = defineEvent({
  type: "content.tag.updated",
  description: "A tag definition's description, isAiTag or isSkill changed (its name and game never change).",
  version: 1,
  schema: tagDefinition,
});

export const tagRetired = defineEvent({
  type: "content.tag.retired",
  description: "A tag was retired: no ticket can get it any more; tickets that have it keep it.",
  version: 1,
  schema: Type.Object({ id: Uuid(), gameId: Nullable(Uuid(), "null: a company-wide tag"), name: Type.String(), retiredAt: DateTime() }),
});

const fieldDefinition = Type.Object({
  id: Uuid(),
  gameId: Nullable(Uuid(), "null: a company-wide field"),
  key: Type.String(),
  name: Type.String(),
  type: OneOf(["text", "number", "date", "boolean", "dropdown"]),
  description: Nullable(Type.String()),
  isAiField: Type.Boolean(),
  options: Type.Array(Type.String(), { description: "Dropdown options; empty for other types" }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

export const fieldCreated = defineEvent({
  type: "content.field.created",
  description: "A custom field definition was created.",
  version: 1,
  schema: fieldDefinition,
});

export const fieldUpdated = defineEvent({
  type: "content.field.updated",
  description: "A custom field definition's name, description, isAiField or dropdown options changed (its key, type and game never change).",
  version: 1,
  schema: fieldDefinition,
});

export const fieldRetired = defineEvent({
  type: "content.field.retired",
  description: "A custom field was retired: no ticket can get a value for it any more; values tickets have stay.",
  version: 1,
  schema: Type.Object({ id: Uuid(), gameId: Nullable(Uuid(), "null: a company-wide field"), key: Type.String(), retiredAt: DateTime() }),
});

const announcementScope = {
  scope: OneOf(["shared", "game", "environment"]),
  gameId: Nullable(Uuid(), "null for the shared scope; the environment's game for an environment override"),
  environmentId: Nullable(Uuid(), "Set for the environment scope only"),
};

export const announcementUpdated = defineEvent({
  type: "content.announcement.updated",
  description:
    "The shared, a game or an environment announcement was set or replaced. Says which one changed, not its content: read it with ListAnnouncements or ResolveAnnouncement.",
  version: 1,
  schema: Type.Object(announcementScope),
});

export const announcementCleared = defineEvent({
  type: "content.announcement.cleared",
  description: "The shared, a game or an environment announcement was cleared.",
  version: 1,
  schema: Type.Object(announcementScope),
});

export const userDeactivated = defineEvent({
  type: "content.user.deactivated",
  description: "A user was made inactive: they cannot sign in, and their sessions ended (content.agent_sessions.ended).",
  version: 1,
  schema: Type.Object({ id: Uuid() }),
});

const agentSessionsEndedV1 = Type.Object({
  userId: Uuid(),
  sessionIds: Type.Array(Uuid(), { minItems: 1 }),
  reason: OneOf(["signed_out", "signed_out_everywhere", "password_changed", "deactivated"]),
});

export const agentSessionsEnded = defineEvent({
  type: "content.agent_sessions.ended",
  description:
    "Sessions of a user in the support application ended before their expiry: the user signed out, signed out everywhere, got a new password, was deactivated, turned two-factor on (the session it was enrolled in is replaced) or had two-factor reset by an operator. Every gateway forgets them at once.",
  version: 2,
  schema: Type.Object({
    userId: Uuid(),
    sessionIds: Type.Array(Uuid(), { minItems: 1 }),
    reason: OneOf(["signed_out", "signed_out_everywhere", "password_changed", "deactivated", "two_factor_enabled", "two_factor_reset"]),
  }),
  // v2 added the two-factor reasons; v1's data is v2's as it is.
  earlier: { 1: { schema: agentSessionsEndedV1, upcast: (data) => data as Static<typeof agentSessionsEndedV1> } },
});

/**
 * The properties of an audit entry shared by content.audit.recorded and the entries other
 * services hand to content's log (webhooks.audit.recorded).
 */
export const auditEntryProperties = {
  action: Type.String({ description: "What happened, e.g. `api_key.created`, `sign_in.failed`, `user.invited`" }),
  actor: Type.Object({
    type: OneOf(["user", "operator", "anonymous"]),
    id: Nullable(Type.String(), "The acting user's id for `user`; null otherwise"),
  }),
  target: Nullable(Type.Object({ type: Type.String(), id: Type.String() }), "The object changed (`api_key`, `user`, `game`, ...), when there is one"),
  before: Nullable(Type.Record(Type.String(), Type.Unknown()), "The object's settings before the change; null for a creation or no object"),
  after: Nullable(Type.Record(Type.String(), Type.Unknown()), "The object's settings after the change; null for a removal or no object"),
  detail: Type.Record(Type.String(), Type.Unknown(), { description: "A few facts of the act (the sign-in method, a session id, what was locked)" }),
  clientAddress: Nullable(Type.String(), "The address the request came from, when it came through the gateway"),
  createdAt: DateTime(),
};

export const auditRecorded = defineEvent({
  type: "content.audit.recorded",
  description:
    "An entry of a company's audit log: a change made in the settings of the support application, by `pnpm admin` or by a tenant file, or a sign-in event. It never carries a password, a token, a code or an API key's secret.",
  version: 1,
  schema: Type.Object({
    auditEntryId: Type.String({ pattern: "^[1-9][0-9]{0,18}$", description: "The entry's id in the log (ascending in time)" }),
    ...auditEntryProperties,
    userId: Nullable(Uuid(), "The user the entry is about, when there is one"),
  }),
});

export const userUpdated = defineEvent({
  type: "content.user.updated",
  description:
    "An admin (settings) or a tenant file changed a user's role, games, skills, ticket languages or capacity: the user as it is now, in the shape of content.user.created. Routing hands out queued tickets the user can now take.",
  version: 1,
  schema: Type.Object({
    id: Uuid(),
    name: Type.String(),
    displayName: Type.String({ description: "The name players see on the user's replies" }),
    email: Type.String(),
    role: OneOf(["admin", "agent"]),
    active: Type.Boolean(),
    gameIds: Type.Array(Uuid(), { description: "Games the user has access to (an admin has every game)" }),
    skills: Type.Array(Type.String(), { description: "Names of the company's tags marked isSkill" }),
    languages: Type.Array(Type.String(), { description: "The ticket languages the user speaks (routing); empty: every language" }),
    capacity: Type.Integer({ minimum: 0, description: "The most open tickets routing assigns to the user" }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  }),
});

export const userAvailabilityChanged = defineEvent({
  type: "content.user.availability_changed",
  description:
    "A user became available for routing (their console toggle) or away (the toggle, signing out of their last session, deactivation, or a console closed without signing out). Routing assigns queued tickets to an available agent and puts an away agent's tickets without an agent reply back in the queue.",
  version: 1,
  schema: Type.Object({
    userId: Uuid(),
    available: Type.Boolean(),
    reason: OneOf(
      ["agent", "signed_out", "deactivated", "idle"],
      "agent: the user's own toggle; signed_out: their last live session ended; deactivated: an admin or operator deactivated them; idle: none of their sessions was used for AGENT_AWAY_AFTER_SECONDS (the console closed without signing out)",
    ),
  }),
});

export const gameRoutingChanged = defineEvent({
  type: "content.game.routing_changed",
  description: "An admin (settings or tenant file) turned a game's routing on or off. Turned on, routing assigns the game's queued tickets.",
  version: 1,
  schema: Type.Object({ gameId: Uuid(), enabled: Type.Boolean() }),
});

/**
 * Content events that change no reference data (company settings, games, environments, tags,
 * fields, announcements, collectors): caches of reference data keep their entries on them.
 */
export const contentEventsKeepingReference: ReadonlySet<string> = new Set(["content.agent_sessions.ended", "content.audit.recorded", "content.user.availability_changed"]);

export const contentEvents = [
  companyCreated, apiKeyCreated, apiKeyRevoked, gameCreated, gameUpdated, gameDeleted, environmentCreated, environmentTokenRotated, resourceCreated,
  collectorCreated, userCreated, tagCreated, fieldCreated, announcementUpdated, announcementCleared, userDeactivated, agentSessionsEnded,
  auditRecorded, tagUpdated, tagRetired, fieldUpdated, fieldRetired, gameBrandingUpdated, collectorUpdated, collectorRetired,
  resourceUpdated, resourceRemoved, userAvailabilityChanged, gameRoutingChanged, userUpdated,
] as const;
