// content.v1.CannedResponseService mapped onto the canned response use cases.
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { CannedResponseService, type CannedActions as CannedActionsMessage, type CannedResponseInput as InputMessage, type CannedResponseSchema } from "@support/proto";
import { validationError } from "@support/errors";
import type { ContentDeps } from "../context.ts";
import type { CannedResponse, CannedResponseInput, Placeholder } from "./canned-response.ts";
import { changeCannedResponse, createCannedResponse, listForGames, renderForTicket, renderReply, retire } from "./canned-response.service.ts";

function responseMessage(response: CannedResponse): MessageInitShape<typeof CannedResponseSchema> {
  return {
    id: response.id,
    companyId: response.companyId,
    gameId: response.gameId ?? undefined,
    name: response.name,
    texts: response.texts,
    actions: { addTags: response.actions.addTags, status: response.actions.status ?? "", resolve: response.actions.resolve },
    createdBy: response.createdBy ?? undefined,
    createdAt: timestampFromDate(response.createdAt),
    updatedAt: timestampFromDate(response.updatedAt),
  };
}

function actionsInput(actions: CannedActionsMessage | undefined): CannedResponseInput["actions"] {
  if (!actions) return undefined;
  return { addTags: actions.addTags, status: actions.status === "" ? null : actions.status, resolve: actions.resolve };
}

function input(message: InputMessage | undefined): CannedResponseInput {
  return { gameId: message?.gameId ?? null, name: message?.name ?? "", texts: message?.texts ?? {}, actions: actionsInput(message?.actions) };
}

/** The gateway always names who acts; only a tenant file (an operator, not this RPC) writes without a user. */
function actingUser(id: string): string {
  if (id === "") throw validationError([{ path: "/actingUserId", message: "is required" }]);
  return id;
}

export function registerCannedResponseRoutes(router: ConnectRouter, deps: Pick<ContentDeps, "db">): void {
  const { db } = deps;
  router.service(CannedResponseService, {
    listCannedResponses: async (req) => ({
      responses: (await listForGames(db, req.companyId, req.allGames ? undefined : req.gameIds)).map(responseMessage),
    }),
    renderCannedResponses: async (req) => ({
      responses: (await renderForTicket(db, req.companyId, { gameId: req.gameId, language: req.language, values: req.values as Partial<Record<Placeholder, string>> })).map((rendered) => ({
        response: responseMessage(rendered.response),
        language: rendered.language,
        text: rendered.text,
      })),
    }),
    createCannedResponse: async (req) => ({ response: responseMessage(await createCannedResponse(db, req.companyId, actingUser(req.actingUserId), input(req.response))) }),
    updateCannedResponse: async (req) => ({ response: responseMessage(await changeCannedResponse(db, req.companyId, actingUser(req.actingUserId), req.id, input(req.response))) }),
    retireCannedResponse: async (req) => {
      await retire(db, req.companyId, actingUser(req.actingUserId), req.id);
      return {};
    },
    renderCannedReply: async (req) => {
      const reply = await renderReply(db, req.companyId, req.cannedResponseId, {
        gameId: req.gameId, language: req.language, runningId: Number(req.ticketNumber), playerName: req.playerName ?? null, agentName: req.agentName ?? null,
      });
      return { reply: { response: responseMessage(reply.response), language: reply.language, text: reply.text }, actions: reply.actions as JsonObject[] };
    },
  });
}
