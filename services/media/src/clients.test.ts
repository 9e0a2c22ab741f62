import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import type { AppError } from "@support/errors";
import { ContentService } from "@support/proto";
import { createGameDirectory } from "./clients.ts";

const COMPANY = "0b6f5a3e-6d0c-4a57-9a53-2f0a8f7a1c11";
const GAME = "6d1f8a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b";

function directory(getGame: () => never | object) {
  const transport = createRouterTransport((router) => router.service(ContentService, { getGame: getGame as never }));
  return createGameDirectory(createClient(ContentService, transport));
}

async function failure(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (error) {
    return error as AppError;
  }
  throw new Error("expected a failure");
}

describe("games through content.GetGame", () => {
  it("accepts a game content returns", async () => {
    await expect(directory(() => ({ game: { id: GAME, companyId: COMPANY } })).requireGame(COMPANY, GAME)).resolves.toBeUndefined();
  });

  it("answers NOT_FOUND 'game not found' for a game content does not find (unknown, deleted, another company's)", async () => {
    const error = await failure(directory(() => { throw new ConnectError("no such game", Code.NotFound); }).requireGame(COMPANY, GAME));
    expect({ code: error.code, message: error.message }).toEqual({ code: "not_found", message: "game not found" });
  });

  it("reports content being down as unavailable, without its details", async () => {
    const error = await failure(directory(() => { throw new ConnectError("connect ECONNREFUSED 10.0.0.7:50051", Code.Unavailable); }).requireGame(COMPANY, GAME));
    expect(error.code).toBe("unavailable");
    expect(error.message).not.toContain("10.0.0.7");
  });
});
