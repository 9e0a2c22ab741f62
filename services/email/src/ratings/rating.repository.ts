// Queries of the survey links. Free functions over an executor.
import type { Kysely } from "@support/db";
import type { Transaction } from "kysely";
import type { EmailDatabase } from "../database.ts";

type Db = Kysely<EmailDatabase> | Transaction<EmailDatabase>;

export interface RatingLink {
  companyId: string;
  ticketId: string;
  language: string;
  gameName: string;
  runningId: number;
  createdAt: Date;
  ratedAt: Date | null;
  score: number | null;
}

export async function insertRatingLink(db: Db, tokenHash: string, link: Omit<RatingLink, "createdAt" | "ratedAt" | "score">): Promise<void> {
  await db
    .insertInto("rating_links")
    .values({ token_hash: tokenHash, company_id: link.companyId, ticket_id: link.ticketId, language: link.language, game_name: link.gameName, running_id: String(link.runningId) })
    .execute();
}

export async function findRatingLink(db: Db, tokenHash: string): Promise<RatingLink | undefined> {
  const row = await db.selectFrom("rating_links").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  return row && {
    companyId: row.company_id,
    ticketId: row.ticket_id,
    language: row.language,
    gameName: row.game_name,
    runningId: Number(row.running_id),
    createdAt: row.created_at,
    ratedAt: row.rated_at,
    score: row.score,
  };
}

export async function markRated(db: Db, tokenHash: string, score: number, at: Date): Promise<void> {
  await db.updateTable("rating_links").set({ rated_at: at, score }).where("token_hash", "=", tokenHash).execute();
}

export async function deleteTicketRatingLinks(db: Db, companyId: string, ticketId: string): Promise<void> {
  await db.deleteFrom("rating_links").where("company_id", "=", companyId).where("ticket_id", "=", ticketId).execute();
}
