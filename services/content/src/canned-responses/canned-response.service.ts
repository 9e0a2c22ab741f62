// Canned response use cases: admins write them (recorded in the audit log), the support
// application lists them for a ticket with the placeholders filled in the ticket's language.
import type { Kysely } from "kysely";
import { notFound } from "@support/errors";
import { writeAudit } from "../audit/audit-log.ts";
import { uniqueOrConflict } from "../common/db-errors.ts";
import { inTransaction } from "../common/transaction.ts";
import { isUuid } from "../common/validation.ts";
import { findCompany } from "../companies/company.repository.ts";
import type { ContentDatabase } from "../database.ts";
import { getGame, requireLiveGame } from "../games/game.service.ts";
import { requireCompanyAdmin } from "../users/user.service.ts";
import { fillPlaceholders, parseCannedResponse, pickLanguage, type CannedResponse, type CannedResponseInput, type Placeholder } from "./canned-response.ts";
import { insertCannedResponse, listCannedResponses, retireCannedResponse, updateCannedResponse } from "./canned-response.repository.ts";

type Db = Kysely<ContentDatabase>;

/** Who writes: an admin of the company (a user id), or an operator's tenant file (null). */
async function requireAdmin(db: Db, companyId: string, userId: string | null): Promise<void> {
  if (userId !== null) await requireCompanyAdmin(db, companyId, userId, "writes canned responses");
}

async function requireScope(db: Db, companyId: string, gameId: string | null): Promise<void> {
  if (!isUuid(companyId) || !(await findCompany(db, companyId))) throw notFound("company not found");
  if (gameId !== null) await requireLiveGame(db, companyId, gameId);
}

const nameTaken = (name: string, gameId: string | null) => `a ${gameId === null ? "company-wide" : "game"} canned response named ${name} already exists`;

export async function createCannedResponse(db: Db, companyId: string, userId: string | null, input: CannedResponseInput): Promise<CannedResponse> {
  const values = parseCannedResponse(input);
  return inTransaction(db, async (trx) => {
    await requireScope(trx, companyId, values.gameId);
    await requireAdmin(trx, companyId, userId);
    const created = await uniqueOrConflict(insertCannedResponse(trx, companyId, values, userId), nameTaken(values.name, values.gameId));
    await writeAudit(trx, { action: "canned_response.created", companyId, userId, actor: { type: userId ? "user" : "operator", id: userId }, detail: { cannedResponseId: created.id, name: created.name } });
    return created;
  });
}

export async function changeCannedResponse(db: Db, companyId: string, userId: string | null, id: string, input: CannedResponseInput): Promise<CannedResponse> {
  const values = parseCannedResponse(input);
  return inTransaction(db, async (trx) => {
    await requireScope(trx, companyId, values.gameId);
    await requireAdmin(trx, companyId, userId);
    const updated = isUuid(id) ? await uniqueOrConflict(updateCannedResponse(trx, companyId, id, values), nameTaken(values.name, values.gameId)) : undefined;
    if (!updated) throw notFound("canned response not found");
    await writeAudit(trx, { action: "canned_response.updated", companyId, userId, actor: { type: userId ? "user" : "operator", id: userId }, detail: { cannedResponseId: id, name: updated.name } });
    return updated;
  });
}

export async function retire(db: Db, companyId: string, userId: string | null, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    await requireAdmin(trx, companyId, userId);
    const retired = isUuid(companyId) && isUuid(id) ? await retireCannedResponse(trx, companyId, id) : undefined;
    if (!retired) throw notFound("canned response not found");
    await writeAudit(trx, { action: "canned_response.retired", companyId, userId, actor: { type: userId ? "user" : "operator", id: userId }, detail: { cannedResponseId: id, name: retired.name } });
  });
}

export async function listForGames(db: Db, companyId: string, gameIds?: readonly string[]): Promise<CannedResponse[]> {
  return isUuid(companyId) ? listCannedResponses(db, companyId, gameIds?.filter(isUuid)) : [];
}

/** What a ticket gives the placeholders, and its language. */
export interface TicketContext {
  gameId: string;
  language: string;
  values: Partial<Record<Placeholder, string>>;
}

export interface RenderedCannedResponse {
  response: CannedResponse;
  language: string;
  text: string;
}

/** The responses for the ticket's game, each in the ticket's language (or the nearest it has), placeholders filled. */
export async function renderForTicket(db: Db, companyId: string, ticket: TicketContext): Promise<RenderedCannedResponse[]> {
  const company = isUuid(companyId) ? await findCompany(db, companyId) : undefined;
  if (!company) throw notFound("company not found");
  const responses = await listForGames(db, companyId, [ticket.gameId]);
  return responses.map((response) => {
    const language = pickLanguage(response.texts, ticket.language, company.primaryLanguage);
    return { response, language, text: fillPlaceholders(response.texts[language]!, ticket.values) };
  });
}

/** A ticket as a reply to it names it: its game and language, and what the placeholders say of it. */
export interface ReplyTicket {
  gameId: string;
  language: string;
  runningId: number;
  playerName: string | null;
  /** Who sends the reply ({{agent.name}}); null for a rule. */
  agentName: string | null;
}

export interface CannedReply extends RenderedCannedResponse {
  /** The reply as ticket actions (the public API's JSON), in the order the ticket takes them. */
  actions: Record<string, unknown>[];
}

/**
 * One response ready to send on one ticket: the one way an agent's "answer all" (the gateway)
 * and a rule's sendCannedResponse action (tickets) send it. Not found when it is not a live
 * response of the company for the ticket's game.
 */
export async function renderReply(db: Db, companyId: string, cannedResponseId: string, ticket: ReplyTicket): Promise<CannedReply> {
  const { game } = isUuid(ticket.gameId) ? await getGame(db, companyId, ticket.gameId) : { game: undefined };
  const values: Partial<Record<Placeholder, string>> = { "ticket.number": String(ticket.runningId) };
  if (ticket.playerName) values["player.name"] = ticket.playerName;
  if (ticket.agentName) values["agent.name"] = ticket.agentName;
  if (game?.name) values["game.name"] = game.name;
  const id = cannedResponseId.toLowerCase();
  const rendered = (await renderForTicket(db, companyId, { gameId: ticket.gameId, language: ticket.language, values })).find((candidate) => candidate.response.id === id);
  if (!rendered) throw notFound("canned response not found");
  return { ...rendered, actions: [{ type: "sendMessage", message: rendered.text }, ...replyActions(rendered.response.actions)] };
}

/** A response's own actions as ticket actions, after its message: tags, then waiting / on hold, or resolved. */
function replyActions(actions: CannedResponse["actions"]): Record<string, unknown>[] {
  const list: Record<string, unknown>[] = [];
  if (actions.addTags.length > 0) list.push({ type: "addTags", tagNames: [...actions.addTags] });
  if (actions.status === "waiting") list.push({ type: "setStatus", status: "waiting" });
  if (actions.status === "on_hold") list.push({ type: "setOnHold", onHold: true });
  if (actions.resolve) list.push({ type: "resolveTicket" });
  return list;
}
