// Connect clients of the services the email channel reads: tickets (a ticket and its
// conversation) and content (the game's name, the company's sender). Mapped here onto the use cases' interfaces.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import type { Registry } from "@support/metrics";
import { ContentService, MediaService, TicketsService } from "@support/proto";
import { balancingOf, connectToAppError, createServiceClient, loadServiceCaller, type ServiceIdentitySettings } from "@support/rpc";
import type { EmailConfig } from "./config.ts";
import type { CompanySender, CompanySenders, ConversationMessage, FileStore, GameNames, TicketReader } from "./context.ts";

type ClientConfig = Pick<EmailConfig, "TICKETS_URL" | "CONTENT_URL" | "MEDIA_URL" | "RPC_TIMEOUT_MS" | "RPC_RESOLVE_INTERVAL_MS" | "RPC_HOSTS_FILE"> & ServiceIdentitySettings;

export type TicketsClient = Client<typeof TicketsService>;
export type ContentClient = Client<typeof ContentService>;
export type MediaClient = Client<typeof MediaService>;

export function createTicketsClient(config: ClientConfig, registry?: Registry): TicketsClient {
  return createServiceClient(TicketsService, config.TICKETS_URL, { timeoutMs: config.RPC_TIMEOUT_MS, balancing: balancingOf(config), registry, identity: loadServiceCaller("email", config) });
}

export function createContentClient(config: ClientConfig, registry?: Registry): ContentClient {
  return createServiceClient(ContentService, config.CONTENT_URL, { timeoutMs: config.RPC_TIMEOUT_MS, balancing: balancingOf(config), registry, identity: loadServiceCaller("email", config) });
}

export function createMediaClient(config: ClientConfig, registry?: Registry): MediaClient {
  // A mail's files travel in the call: up to EMAIL_INBOUND_MAX_BYTES, so a longer deadline.
  return createServiceClient(MediaService, config.MEDIA_URL, { timeoutMs: Math.max(config.RPC_TIMEOUT_MS, 30_000), balancing: balancingOf(config), registry, identity: loadServiceCaller("email", config) });
}

/** A mail's files, stored by media as the company's uploads. */
export function createFileStore(media: MediaClient): FileStore {
  return {
    async store(companyId, gameId, file) {
      try {
        const { attachment } = await media.storeAttachment({ companyId, gameId, fileName: file.fileName.slice(0, 255), fileType: file.contentType, content: file.content });
        return attachment!.id;
      } catch (error) {
        throw connectToAppError(error);
      }
    },
  };
}

const isNotFound = (error: unknown) => connectToAppError(error).code === "not_found";

export function createTicketReader(tickets: TicketsClient): TicketReader {
  return {
    async ticket(companyId, ticketId) {
      try {
        const { ticket } = await tickets.getTicket({ companyId, ticketId });
        if (ticket === undefined) return undefined;
        return {
          id: ticket.id, runningId: Number(ticket.runningId), gameId: ticket.gameId, channels: ticket.channels, email: ticket.email, language: ticket.language,
          status: ticket.status, resolutionType: ticket.resolutionType, csatScore: ticket.csatScore,
        };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw connectToAppError(error);
      }
    },
    async conversation(companyId, ticketId) {
      const { events } = await tickets.listTicketEvents({ companyId, ticketId });
      const messages: ConversationMessage[] = [];
      for (const event of events) {
        const { payload } = event;
        // Player and agent messages only: a private note never reaches the player.
        if (payload.case !== "playerMessage" && payload.case !== "agentMessage") continue;
        messages.push({
          id: event.id,
          fromPlayer: payload.case === "playerMessage",
          message: payload.value.message,
          createdAt: event.createdAt ? timestampDate(event.createdAt) : new Date(0),
        });
      }
      return messages;
    },
    async openTicket(input) {
      try {
        const created = await tickets.createEmailTicket({ ...input, name: input.name ?? undefined });
        return { ticketId: created.ticketId, eventId: created.eventId };
      } catch (error) {
        throw connectToAppError(error);
      }
    },
    async rate(companyId, ticketId, score, review) {
      try {
        await tickets.rateTicket({ companyId, ticketId, score, review: review ?? undefined });
      } catch (error) {
        throw connectToAppError(error);
      }
    },
    async addReply(companyId, ticketId, message, attachments) {
      try {
        return await tickets.addEmailReply({ companyId, ticketId, message, attachments });
      } catch (error) {
        throw connectToAppError(error);
      }
    },
  };
}

/** Games' names, remembered per process (a name seldom changes; the next start reads it again). */
export function createGameNames(content: ContentClient): GameNames {
  const names = new Map<string, string>();
  return {
    async nameOf(companyId, gameId) {
      const key = `${companyId}/${gameId}`;
      const known = names.get(key);
      if (known !== undefined) return known;
      try {
        const { game } = await content.getGame({ companyId, gameId });
        const name = game?.name ?? "";
        if (names.size >= 10_000) names.clear();
        names.set(key, name);
        return name;
      } catch (error) {
        throw connectToAppError(error);
      }
    },
  };
}

/**
 * Companies' senders (content.GetCompany), remembered per process for `ttlMs`
 * (EMAIL_SENDER_CACHE_MS, 60 s): a mail needs no call of its own, and an edited sender is used
 * within a minute.
 */
export function createCompanySenders(content: ContentClient, options: { ttlMs?: number; now?: () => number } = {}): CompanySenders {
  const ttlMs = options.ttlMs ?? 60_000;
  const now = options.now ?? Date.now;
  const senders = new Map<string, { sender: CompanySender; expiresAt: number }>();
  return {
    async senderOf(companyId) {
      const known = senders.get(companyId);
      if (known !== undefined && known.expiresAt > now()) return known.sender;
      try {
        const { company } = await content.getCompany({ companyId });
        const sender = { name: company?.emailSenderName ?? null, address: company?.emailSenderAddress ?? null };
        if (senders.size >= 10_000) senders.clear();
        senders.set(companyId, { sender, expiresAt: now() + ttlMs });
        return sender;
      } catch (error) {
        throw connectToAppError(error);
      }
    },
  };
}
