// The services the tickets service depends on, over Connect: content (games, tags, fields,
// company settings, user access), players (identity) and media (attachments). Each is
// implemented here as the operations the use cases need; the clients already answer
// AppErrors, so nothing here converts errors.
import type { Client } from "@connectrpc/connect";
import { CannedResponseService, ContentService, MediaService, PlayersService, RuleTargetsService, type Player } from "@support/proto";
import type { Registry } from "@support/metrics";
import { balancingOf, createServiceClient, createServiceTransport, loadServiceCaller, type ServiceIdentitySettings } from "@support/rpc";
import type { TicketsConfig } from "./config.ts";
import { isAppError } from "@support/errors";
import type { AttachmentClaims, CannedReplies, KnownPlayer, PlayerContact, PlayerDirectory, RuleTargets } from "./context.ts";
import type { ContentSource } from "./reference/content-reference.ts";
import type { RoutingSource } from "./routing/routing.service.ts";
import type { FieldType } from "./tickets/field-values.ts";

export interface TicketsClients {
  content: ContentSource;
  routing: RoutingSource;
  players: PlayerDirectory;
  media: AttachmentClaims;
  cannedReplies: CannedReplies;
  ruleTargets: RuleTargets;
}

export function contentSource(content: Client<typeof ContentService>): ContentSource {
  return {
    async company(companyId) {
      const { company } = await content.getCompany({ companyId });
      if (!company) throw new Error("content returned no company");
      return { autoCloseWaitingAfterHours: company.autoCloseWaitingAfterHours };
    },
    async game(companyId, gameId) {
      const { game, environments } = await content.getGame({ companyId, gameId });
      if (!game) throw new Error("content returned no game");
      return { id: game.id, languages: game.languages, environmentIds: environments.map((e) => e.id) };
    },
    async definitions(companyId) {
      const [{ tags }, { fields }] = await Promise.all([content.listTags({ companyId }), content.listFields({ companyId })]);
      return {
        tags: tags.map((tag) => ({ gameId: tag.gameId ?? null, name: tag.name, ai: tag.isAiTag })),
        fields: fields.map((field) => ({ gameId: field.gameId ?? null, key: field.key, type: field.type as FieldType, options: field.options, ai: field.isAiField })),
      };
    },
    async hasGameAccess(companyId, userId, gameId) {
      const { hasAccess } = await content.checkUserAccess({ companyId, userId, gameId });
      return hasAccess;
    },
  };
}

export function routingSource(content: Client<typeof ContentService>): RoutingSource {
  return {
    async gameRouting(companyId, gameId) {
      const { enabled, agents, skillTags } = await content.getGameRouting({ companyId, gameId });
      return { enabled, skillTags, agents: agents.map((agent) => ({ userId: agent.userId, skills: agent.skills, languages: agent.languages, capacity: agent.capacity })) };
    },
  };
}

function knownPlayer(player: Player): KnownPlayer {
  return { id: player.id, name: player.name ?? null, email: player.email ?? null, tier: player.tier ?? null, blocked: player.blocked };
}

function contactMessage(contact: PlayerContact) {
  return {
    companyId: contact.companyId,
    gameId: contact.gameId,
    externalId: contact.externalId ?? undefined,
    email: contact.email ?? undefined,
    name: contact.name ?? undefined,
    tier: contact.tier ?? undefined,
  };
}

export function playerDirectory(players: Client<typeof PlayersService>): PlayerDirectory {
  return {
    async findPlayer(contact) {
      const { player } = await players.findPlayer(contactMessage(contact));
      return player && knownPlayer(player);
    },
    async resolvePlayer(contact) {
      const { player } = await players.resolvePlayer(contactMessage(contact));
      if (!player) throw new Error("players returned no player");
      return knownPlayer(player);
    },
    async setPlayerInfo(companyId, playerId, info) {
      await players.setPlayerInfo({ companyId, playerId, ...info });
    },
  };
}

export function attachmentClaims(media: Client<typeof MediaService>): AttachmentClaims {
  return {
    async claimAttachments(claim) {
      const { attachments } = await media.claimAttachments(claim);
      return attachments.map((attachment) => attachment.id);
    },
  };
}

export function cannedReplies(canned: Client<typeof CannedResponseService>): CannedReplies {
  return {
    async list(companyId) {
      const { responses } = await canned.listCannedResponses({ companyId, allGames: true });
      return responses.map((response) => ({ id: response.id, name: response.name, gameId: response.gameId ?? null }));
    },
    async render(companyId, cannedResponseId, ticket) {
      try {
        const { actions } = await canned.renderCannedReply({
          companyId, cannedResponseId, gameId: ticket.gameId, language: ticket.language, ticketNumber: BigInt(ticket.runningId), playerName: ticket.playerName ?? undefined,
        });
        return actions;
      } catch (error) {
        if (isAppError(error) && error.code === "not_found") return undefined;
        throw error;
      }
    },
  };
}

export function ruleTargets(webhooks: Client<typeof RuleTargetsService>): RuleTargets {
  return {
    async check(companyId, urls) {
      const { problems } = await webhooks.checkRuleTargets({ companyId, urls });
      return problems.map((problem) => ({ index: problem.index, message: problem.message }));
    },
  };
}

/** `registry`: where the calls' durations are recorded (rpc_client_duration_seconds). */
export function createClients(
  config: Pick<TicketsConfig, "CONTENT_URL" | "PLAYERS_URL" | "MEDIA_URL" | "WEBHOOKS_URL" | "RPC_TIMEOUT_MS" | "RPC_RESOLVE_INTERVAL_MS" | "RPC_HOSTS_FILE"> & ServiceIdentitySettings,
  registry?: Registry,
): TicketsClients {
  const options = { timeoutMs: config.RPC_TIMEOUT_MS, balancing: balancingOf(config), registry, identity: loadServiceCaller("tickets", config) };
  // One transport to content for its two services.
  const contentTransport = createServiceTransport(config.CONTENT_URL, options);
  const content = createServiceClient(ContentService, contentTransport, options);
  return {
    content: contentSource(content),
    routing: routingSource(content),
    players: playerDirectory(createServiceClient(PlayersService, config.PLAYERS_URL, options)),
    media: attachmentClaims(createServiceClient(MediaService, config.MEDIA_URL, options)),
    cannedReplies: cannedReplies(createServiceClient(CannedResponseService, contentTransport, options)),
    ruleTargets: ruleTargets(createServiceClient(RuleTargetsService, config.WEBHOOKS_URL, options)),
  };
}
