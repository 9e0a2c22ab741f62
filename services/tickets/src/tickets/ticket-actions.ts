// The twelve ticket actions and the checks that need nothing but the request itself: shapes,
// ids, and at most one status action (setStatus or setOnHold) per request. What needs the ticket (its state,
// its game's tags and fields, user access) is checked while applying, in ticket.service.ts.
import { isUuid, validationError, type ValidationIssue } from "@support/errors";
import { fieldShapeIssues } from "./field-values.ts";
import { PLAYER_TIERS, pointerToken, type FieldValues } from "./ticket.ts";

type Attributed = { userId?: string | undefined };

export type TicketActionInput =
  | ({ type: "addTags"; tagNames: string[] } & Attributed)
  | ({ type: "removeTags"; tagNames: string[] } & Attributed)
  | ({ type: "setFields"; fields: Record<string, unknown> } & Attributed)
  | ({ type: "setOnHold"; onHold: boolean } & Attributed)
  | ({ type: "setStatus"; status: string } & Attributed)
  | { type: "setPlayerInfo"; player: { name?: string | undefined; tier?: number | undefined } }
  | ({ type: "sendMessage"; message: string; attachments?: string[] | undefined } & Attributed)
  | ({ type: "addPrivateNote"; message: string; attachments?: string[] | undefined } & Attributed)
  | ({ type: "resolveTicket" } & Attributed)
  | ({ type: "rejectTicket" } & Attributed)
  | ({ type: "assignTicket"; assigneeId: string } & Attributed)
  | ({ type: "unassignTicket" } & Attributed)
  /** An action whose type this version does not know (an empty oneof on the wire). */
  | { type: "unknown" };

export type TicketAction =
  | ({ type: "addTags"; tagNames: string[] } & Attributed)
  | ({ type: "removeTags"; tagNames: string[] } & Attributed)
  | ({ type: "setFields"; fields: FieldValues } & Attributed)
  | ({ type: "setOnHold"; onHold: boolean } & Attributed)
  | ({ type: "setStatus"; status: "waiting" | "assigned" } & Attributed)
  | { type: "setPlayerInfo"; player: { name?: string | undefined; tier?: number | undefined } }
  | ({ type: "sendMessage"; message: string; attachments: string[] } & Attributed)
  | ({ type: "addPrivateNote"; message: string; attachments: string[] } & Attributed)
  | ({ type: "resolveTicket" } & Attributed)
  | ({ type: "rejectTicket" } & Attributed)
  | ({ type: "assignTicket"; assigneeId: string } & Attributed)
  | ({ type: "unassignTicket" } & Attributed);

export const STATUS_ACTIONS: ReadonlySet<string> = new Set(["setOnHold", "setStatus"]);

/** Most actions one request may carry: a generous bound that keeps one transaction short. */
export const MAX_ACTIONS = 100;
const MAX_MESSAGE_LENGTH = 100_000;
/** Most attachments one message or note may carry: the bound of a player's message. */
export const MAX_MESSAGE_ATTACHMENTS = 100;

/** The users an action names (the actor and, for assignTicket, the assignee), with the path of each. */
export function referencedUsers(action: TicketAction, index: number): { userId: string; path: string }[] {
  const users: { userId: string; path: string }[] = [];
  if ("userId" in action && action.userId !== undefined) users.push({ userId: action.userId, path: `/actions/${index}/userId` });
  if (action.type === "assignTicket") users.push({ userId: action.assigneeId, path: `/actions/${index}/assigneeId` });
  return users;
}

function checkMessage(message: string, path: string, issues: ValidationIssue[]): void {
  if (message.trim() === "") issues.push({ path, message: "must not be blank" });
  else if (message.length > MAX_MESSAGE_LENGTH) issues.push({ path, message: `must be at most ${MAX_MESSAGE_LENGTH} characters` });
}

function checkTagNames(tagNames: string[], path: string, issues: ValidationIssue[]): void {
  if (tagNames.length === 0) issues.push({ path, message: "must have at least 1 item" });
  tagNames.forEach((name, index) => {
    if (name.trim() === "") issues.push({ path: `${path}/${index}`, message: "must not be blank" });
  });
}

/**
 * Checks every action's shape; throws one VALIDATION_ERROR naming every problem. A request
 * made by a signed-in user (`actingUserId`) is attributed to that user alone, so an action
 * naming another userId is refused rather than silently re-attributed.
 */
export function checkActions(inputs: readonly TicketActionInput[], options: { actingUserId?: string | null } = {}): TicketAction[] {
  const issues: ValidationIssue[] = [];
  const actingUserId = options.actingUserId ?? null;
  if (actingUserId !== null && !isUuid(actingUserId)) issues.push({ path: "/actingUserId", message: "must be a uuid" });
  if (inputs.length === 0) issues.push({ path: "/actions", message: "must have at least 1 item" });
  if (inputs.length > MAX_ACTIONS) issues.push({ path: "/actions", message: `must have at most ${MAX_ACTIONS} items` });

  let statusActionAt: number | undefined;
  inputs.forEach((input, index) => {
    const at = `/actions/${index}`;
    if (input.type === "unknown") {
      issues.push({ path: `${at}/type`, message: "is not a known action type" });
      return;
    }
    if (STATUS_ACTIONS.has(input.type)) {
      if (statusActionAt === undefined) statusActionAt = index;
      else issues.push({ path: `${at}/type`, message: `only one status action (setOnHold or setStatus) is allowed per request; /actions/${statusActionAt} is one` });
    }
    if ("userId" in input && input.userId !== undefined) {
      if (actingUserId !== null) issues.push({ path: `${at}/userId`, message: "is not accepted: the action is attributed to the signed-in user" });
      else if (!isUuid(input.userId)) issues.push({ path: `${at}/userId`, message: "must be a uuid" });
    }
    switch (input.type) {
      case "addTags":
      case "removeTags":
        checkTagNames(input.tagNames, `${at}/tagNames`, issues);
        break;
      case "setFields":
        issues.push(...fieldShapeIssues(input.fields, `${at}/fields`));
        break;
      case "setStatus":
        if (input.status !== "waiting" && input.status !== "assigned") issues.push({ path: `${at}/status`, message: "must be waiting or assigned" });
        break;
      case "setPlayerInfo":
        if (input.player.tier !== undefined && !(PLAYER_TIERS as readonly number[]).includes(input.player.tier)) {
          issues.push({ path: `${at}/player/tier`, message: "must be 1, 2 or 3" });
        }
        if (input.player.name !== undefined && input.player.name.length > 200) {
          issues.push({ path: `${at}/player/name`, message: "must be at most 200 characters" });
        }
        break;
      case "sendMessage":
      case "addPrivateNote":
        checkMessage(input.message, `${at}/message`, issues);
        if ((input.attachments?.length ?? 0) > MAX_MESSAGE_ATTACHMENTS) {
          issues.push({ path: `${at}/attachments`, message: `must have at most ${MAX_MESSAGE_ATTACHMENTS} items` });
        }
        break;
      case "assignTicket":
        if (!isUuid(input.assigneeId)) issues.push({ path: `${at}/assigneeId`, message: "must be a uuid" });
        break;
      default:
        break;
    }
  });
  if (issues.length > 0) throw validationError(issues);
  return inputs.map((input) => normalize(input as Exclude<TicketActionInput, { type: "unknown" }>));
}

function normalize(input: Exclude<TicketActionInput, { type: "unknown" }>): TicketAction {
  const userId = "userId" in input && input.userId !== undefined ? { userId: input.userId.toLowerCase() } : {};
  switch (input.type) {
    case "setStatus":
      return { type: "setStatus", status: input.status as "waiting" | "assigned", ...userId };
    case "setFields":
      return { type: "setFields", fields: input.fields as FieldValues, ...userId };
    case "assignTicket":
      return { type: "assignTicket", assigneeId: input.assigneeId.toLowerCase(), ...userId };
    case "setPlayerInfo":
      return input;
    case "sendMessage":
    case "addPrivateNote":
      return { type: input.type, message: input.message, attachments: input.attachments ?? [], ...userId };
    default:
      return { ...input, ...userId } as TicketAction;
  }
}

/** The path of a tag name or field key inside an action, for the strict checks. */
export function actionPath(index: number, ...tokens: (string | number)[]): string {
  return [`/actions/${index}`, ...tokens.map(pointerToken)].join("/");
}
