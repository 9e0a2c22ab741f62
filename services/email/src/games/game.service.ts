// The games the email channel knows from content's events: whose a game's support address is,
// its languages, and the link to continue a conversation on the web support page.
import type { EmailContext } from "../context.ts";
import { findGame, insertEnvironment, markGameDeleted, replaceEnvironmentToken, upsertGame, type KnownGame } from "./game.repository.ts";

export const rememberGame = (ctx: Pick<EmailContext, "db">, game: Omit<KnownGame, "environmentToken">) => upsertGame(ctx.db, game);
export const rememberEnvironment = (ctx: Pick<EmailContext, "db">, environment: { environmentId: string; gameId: string; token: string; at: Date }) =>
  insertEnvironment(ctx.db, environment);
/** A rotated token: links written from now on carry the new one (mails sent before keep the old one, which stops when its overlap ends). */
export const rememberRotatedToken = (ctx: Pick<EmailContext, "db">, environment: { environmentId: string; gameId: string; token: string; at: Date }) =>
  replaceEnvironmentToken(ctx.db, environment);
export const forgetGame = (ctx: Pick<EmailContext, "db">, gameId: string) => markGameDeleted(ctx.db, gameId);
export const knownGame = (ctx: Pick<EmailContext, "db">, gameId: string) => findGame(ctx.db, gameId);

/** The game of a support address's plus part `g-<game id without dashes>`. */
export function gameIdOfAddressTag(tag: string): string | undefined {
  const hex = /^g-([0-9a-f]{32})$/.exec(tag)?.[1];
  return hex && `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A game's support address: the reply address plus-addressed with `g-<game id without dashes>`. */
export function supportAddressOf(replyAddress: string, gameId: string): string | undefined {
  if (replyAddress === "") return undefined;
  const at = replyAddress.lastIndexOf("@");
  return `${replyAddress.slice(0, at)}+g-${gameId.replaceAll("-", "")}${replyAddress.slice(at)}`;
}

/**
 * The link that continues a conversation on the web support page: a session for the player's
 * address in the game's first environment (the page then asks for the code mailed to that
 * address before it shows the conversation). None where the game refuses unverified players
 * or has no environment.
 */
export function continueLink(webSupportUrl: string, game: KnownGame | undefined, player: { email: string; language: string }): string | undefined {
  if (!game || game.blockUnverifiedPlayers || game.environmentToken === undefined) return undefined;
  const base = webSupportUrl.endsWith("/") ? webSupportUrl : `${webSupportUrl}/`;
  return `${base}sessions/redirect?${new URLSearchParams({ token: game.environmentToken, "player.email": player.email, language: player.language })}`;
}
