// tickets.v1.PlayerSideService mapped onto the player-side use cases (a new chat ticket onto createTicket).
import { toJson } from "@bufbuild/protobuf";
import { ValueSchema, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { isUuid, validationError } from "@support/errors";
import { PlayerSideService, type PlayerSideOwner as OwnerMessage } from "@support/proto";
import type { TicketsContext } from "../context.ts";
import { ticketMessage } from "../routes.ts";
import { createTicket } from "../tickets/ticket.service.ts";
import { toOwner, type PlayerSideOwner } from "./player-side.ts";
import { addCollectorResult, addPlayerMessage, getPlayerTicket, listPlayerConversations, markPlayerTicketRead, submitCsat } from "./player-side.service.ts";

function company(companyId: string): string {
  if (!isUuid(companyId)) throw validationError([{ path: "/companyId", message: "must be a uuid" }]);
  return companyId.toLowerCase();
}

function owner(message: OwnerMessage | undefined): PlayerSideOwner {
  if (!message) throw validationError([{ path: "/owner", message: "is required" }]);
  return toOwner({ companyId: company(message.companyId), gameId: message.gameId, sessionId: message.sessionId, playerId: message.playerId, email: message.email });
}

export function registerPlayerSideRoutes(router: ConnectRouter, ctx: TicketsContext): void {
  router.service(PlayerSideService, {
    createPlayerTicket: async (req) => {
      const { ticketId, runningId } = await createTicket(ctx, {
        supportSource: "WEB",
        companyId: company(req.companyId),
        gameId: req.gameId,
        environmentId: req.environmentId,
        sessionId: req.sessionId,
        player: { externalId: req.player?.id, email: req.player?.email, name: req.player?.name, tier: req.player?.tier },
        message: req.message,
        attachmentIds: req.attachments,
        language: req.language,
        tags: req.tags,
        fields: req.fields ?? {},
        article: req.articleKey === undefined ? undefined : { key: req.articleKey, title: req.articleTitle ?? req.articleKey },
      });
      return { ticketId, runningId: BigInt(runningId) };
    },
    listPlayerTickets: async (req) => {
      const conversations = await listPlayerConversations(ctx, owner(req.owner));
      return {
        tickets: conversations.map(({ ticket }) => ticketMessage(ticket, ctx.supportAppUrl)),
        activity: conversations.map(({ ticket, activity }) => ({
          ticketId: ticket.id,
          unread: activity.unread,
          ...(activity.lastMessage
            ? { lastMessage: { from: activity.lastMessage.from, preview: activity.lastMessage.preview, hasAttachments: activity.lastMessage.hasAttachments, createdAt: timestampFromDate(activity.lastMessage.at) } }
            : {}),
        })),
      };
    },
    markPlayerTicketRead: async (req) => {
      await markPlayerTicketRead(ctx, owner(req.owner), req.ticketId);
      return {};
    },
    getPlayerTicket: async (req) => ({ ticket: ticketMessage(await getPlayerTicket(ctx, owner(req.owner), req.ticketId), ctx.supportAppUrl) }),
    addPlayerMessage: async (req) => {
      const { ticket, eventId } = await addPlayerMessage(ctx, {
        owner: owner(req.owner), ticketId: req.ticketId, message: req.message, attachments: req.attachments,
      });
      return { ticket: ticketMessage(ticket, ctx.supportAppUrl), eventId };
    },
    addCollectorResult: async (req) => {
      const { ticket, resultId, eventId } = await addCollectorResult(ctx, {
        owner: owner(req.owner),
        ticketId: req.ticketId,
        collectorId: req.collectorId,
        title: req.title,
        fields: req.fields.map((field) => ({
          key: field.key,
          label: field.label,
          type: field.type,
          value: field.value === undefined ? undefined : toJson(ValueSchema, field.value),
          attachmentIds: field.attachmentIds,
        })),
      });
      return { ticket: ticketMessage(ticket, ctx.supportAppUrl), resultId, eventId };
    },
    submitCsat: async (req) => ({
      ticket: ticketMessage(
        await submitCsat(ctx, { owner: owner(req.owner), ticketId: req.ticketId, score: req.score, review: req.review ?? null }),
        ctx.supportAppUrl,
      ),
    }),
  });
}
