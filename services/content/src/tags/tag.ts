// Tag definitions: company-wide (gameId null) or per game; names unique within that scope.
import { optionalBoolean, optionalText, requiredText, throwIfInvalid, type ValidationIssue } from "../common/validation.ts";

export interface Tag {
  id: string;
  companyId: string;
  gameId: string | null;
  name: string;
  description: string | null;
  isAiTag: boolean;
  isSkill: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** Null: live. A retired tag is neither listed nor given to tickets; tickets that have it keep it. */
  retiredAt: Date | null;
}

export interface NewTagInput {
  gameId: string | null;
  name: string;
  description?: string | null | undefined;
  isAiTag?: boolean | undefined;
  isSkill?: boolean | undefined;
}

export type NewTag = Pick<Tag, "gameId" | "name" | "description" | "isAiTag" | "isSkill">;

/** Tag names travel comma-separated in the public web support session query, so they hold no comma. */
export function checkTagName(value: unknown, path: string, issues: ValidationIssue[]): string {
  const name = requiredText(value, path, issues, 100);
  if (name.includes(",")) issues.push({ path, message: "must not contain a comma" });
  return name;
}

export function parseNewTag(input: NewTagInput): NewTag {
  const issues: ValidationIssue[] = [];
  const name = checkTagName(input.name, "/name", issues);
  const description = optionalText(input.description, "/description", issues);
  const isAiTag = optionalBoolean(input.isAiTag, "/isAiTag", issues);
  const isSkill = optionalBoolean(input.isSkill, "/isSkill", issues);
  throwIfInvalid(issues);
  return { gameId: input.gameId, name, description, isAiTag, isSkill };
}

/** What an admin may change of a tag: its name and game name it on tickets, so they stay. */
export interface TagChangeInput {
  description?: string | null | undefined;
  isAiTag?: boolean | undefined;
  isSkill?: boolean | undefined;
}

export type TagChange = Pick<Tag, "description" | "isAiTag" | "isSkill">;

export function parseTagChange(input: TagChangeInput): TagChange {
  const issues: ValidationIssue[] = [];
  const description = optionalText(input.description, "/description", issues);
  const isAiTag = optionalBoolean(input.isAiTag, "/isAiTag", issues);
  const isSkill = optionalBoolean(input.isSkill, "/isSkill", issues);
  throwIfInvalid(issues);
  return { description, isAiTag, isSkill };
}

/** The tag's settings as the audit log keeps them before and after a change. */
export function auditedTag(tag: Tag): Record<string, unknown> {
  return { name: tag.name, gameId: tag.gameId, description: tag.description, isAiTag: tag.isAiTag, isSkill: tag.isSkill, retiredAt: tag.retiredAt?.toISOString() ?? null };
}

export function tagEventData(tag: Tag) {
  return {
    id: tag.id,
    gameId: tag.gameId,
    name: tag.name,
    description: tag.description,
    isAiTag: tag.isAiTag,
    isSkill: tag.isSkill,
    createdAt: tag.createdAt.toISOString(),
    updatedAt: tag.updatedAt.toISOString(),
  };
}
