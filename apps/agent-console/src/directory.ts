// The company's people, the user's games and the tags and fields of those games, read once per
// session: the names the console shows for assignees and games, who a ticket can be assigned to,
// the tags it can get and the custom fields it can have.
import { signal } from "@preact/signals";
import { call } from "./api.ts";

export interface Colleague {
  id: string;
  name: string;
  displayName: string;
  role: "admin" | "agent";
  gameIds: string[];
  skills: string[];
}

export interface TagDefinition {
  name: string;
  gameId: string | null;
  description: string | null;
  isSkill: boolean;
  isAiTag: boolean;
}

export interface FieldDefinition {
  key: string;
  name: string;
  description: string | null;
  type: "text" | "number" | "date" | "boolean" | "dropdown";
  gameId: string | null;
  isAiField: boolean;
  /** A dropdown's values; empty for the other types. */
  options: string[];
}

export interface GameInfo {
  id: string;
  name: string;
  slug: string;
  languages: string[];
  /** Routing assigns the game's tickets: the ticket view offers "unassign for automatic assignment". */
  routingEnabled: boolean;
}

export const colleagues = signal<ReadonlyMap<string, Colleague>>(new Map());
/** The user's games (an admin: every game of the company), by name. */
export const games = signal<readonly GameInfo[]>([]);
export const tagDefinitions = signal<readonly TagDefinition[]>([]);
export const fieldDefinitions = signal<readonly FieldDefinition[]>([]);

export async function loadDirectory(): Promise<void> {
  const [users, gameList, tags, fields] = await Promise.all([
    call<{ users: Colleague[] }>("GET", "/users"),
    call<{ games: GameInfo[] }>("GET", "/games"),
    call<{ tags: TagDefinition[] }>("GET", "/tags"),
    call<{ fields: FieldDefinition[] }>("GET", "/fields"),
  ]);
  colleagues.value = new Map(users.body.users.map((user) => [user.id, user]));
  games.value = gameList.body.games;
  tagDefinitions.value = tags.body.tags;
  fieldDefinitions.value = fields.body.fields;
}

/** Who can take a ticket of this game: its agents and the admins. */
export function assignable(gameId: string): Colleague[] {
  return [...colleagues.value.values()].filter((user) => user.role === "admin" || user.gameIds.includes(gameId));
}

/** The tags a ticket of this game can get: the company-wide ones and the game's. */
export function tagsFor(gameId: string): TagDefinition[] {
  return tagDefinitions.value.filter((tag) => tag.gameId === null || tag.gameId === gameId);
}

/** The fields a ticket of this game can have: the company-wide ones and the game's, by name. */
export function fieldsFor(gameId: string): FieldDefinition[] {
  return fieldDefinitions.value.filter((field) => field.gameId === null || field.gameId === gameId).sort((a, b) => a.name.localeCompare(b.name));
}

/** A game's name, or its id while the games are not read yet. */
export function gameName(gameId: string): string {
  return games.value.find((game) => game.id === gameId)?.name ?? gameId;
}
