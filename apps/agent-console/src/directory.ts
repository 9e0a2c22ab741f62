// The company's people and the tags of the user's games, read once per session: the names the
// console shows for assignees, who a ticket can be assigned to, and the tags it can get.
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

export const colleagues = signal<ReadonlyMap<string, Colleague>>(new Map());
export const tagDefinitions = signal<readonly TagDefinition[]>([]);

export async function loadDirectory(): Promise<void> {
  const [users, tags] = await Promise.all([call<{ users: Colleague[] }>("GET", "/users"), call<{ tags: TagDefinition[] }>("GET", "/tags")]);
  colleagues.value = new Map(users.body.users.map((user) => [user.id, user]));
  tagDefinitions.value = tags.body.tags;
}

/** Who can take a ticket of this game: its agents and the admins. */
export function assignable(gameId: string): Colleague[] {
  return [...colleagues.value.values()].filter((user) => user.role === "admin" || user.gameIds.includes(gameId));
}

/** The tags a ticket of this game can get: the company-wide ones and the game's. */
export function tagsFor(gameId: string): TagDefinition[] {
  return tagDefinitions.value.filter((tag) => tag.gameId === null || tag.gameId === gameId);
}
