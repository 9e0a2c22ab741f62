// Player deletion from REST to players.v1. The API key of the request is recorded as who asked
// (the erasure's audit record).
import type { DeletePlayerRequestSchema, SchedulePlayerDeletionRequestSchema } from "@support/proto";
import type { Schemas } from "../openapi/types.ts";
import type { Init } from "./init.ts";

export function toPlayerDeletionRequest(
  state: { companyId: string; apiKeyId: string },
  body: Schemas["PlayerDeletionRequest"],
): Init<typeof SchedulePlayerDeletionRequestSchema> & Init<typeof DeletePlayerRequestSchema> {
  return { companyId: state.companyId, playerId: body.servicePlayerId, apiKeyId: state.apiKeyId || undefined };
}
