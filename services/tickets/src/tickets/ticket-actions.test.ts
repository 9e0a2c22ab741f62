import { isAppError } from "@support/errors";
import { describe, expect, it } from "vitest";
import { checkActions } from "./ticket-actions.ts";

const ALICE = "11111111-1111-4111-8111-111111111111";

function pathsOf(run: () => unknown): string[] | undefined {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return error.details?.issues?.map((issue) => issue.path);
    throw error;
  }
  return undefined;
}

describe("checking actions of a signed-in user's request", () => {
  it("refuses a userId in any action, naming each", () => {
    expect(pathsOf(() => checkActions([{ type: "resolveTicket", userId: ALICE }, { type: "addPrivateNote", message: "x", userId: ALICE }], { actingUserId: ALICE })))
      .toEqual(["/actions/0/userId", "/actions/1/userId"]);
  });

  it("takes the same actions without userId", () => {
    expect(checkActions([{ type: "addPrivateNote", message: "x" }], { actingUserId: ALICE })).toEqual([{ type: "addPrivateNote", message: "x", attachments: [] }]);
  });

  it("still takes a userId when no user is signed in (the API key's requests)", () => {
    expect(checkActions([{ type: "resolveTicket", userId: ALICE }])).toEqual([{ type: "resolveTicket", userId: ALICE }]);
  });
});

describe("attachments of messages and notes", () => {
  it("keeps the ids and bounds them like a player's message", () => {
    expect(checkActions([{ type: "sendMessage", message: "x", attachments: ["a", "b"] }])).toEqual([{ type: "sendMessage", message: "x", attachments: ["a", "b"] }]);
    const many = Array.from({ length: 101 }, (_, index) => `id-${index}`);
    expect(pathsOf(() => checkActions([{ type: "resolveTicket" }, { type: "addPrivateNote", message: "x", attachments: many }]))).toEqual(["/actions/1/attachments"]);
  });
});
