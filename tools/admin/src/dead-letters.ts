// `pnpm admin dead-letters ...`: the messages consumers set aside (libs/bus, dead-letter store),
// listed, replayed to their original subject, or deleted. These verbs talk to NATS directly
// (NATS_URL, NATS_PREFIX), not to a service: the store is JetStream's, shared by every consumer,
// and no admin token is needed (reaching NATS is the permission).
import { ConfigError, loadConfig, str } from "@support/config";
import { connectBus, DeadLetterNotFoundError, deleteDeadLetter, listDeadLetters, replayDeadLetter } from "@support/bus";
import { AppError } from "@support/errors";

export const deadLetterConfigSpecs = {
  NATS_URL: str({ default: "nats://127.0.0.1:4222", desc: "NATS servers, comma-separated (the dead-letters verbs)" }),
  NATS_PREFIX: str({ default: "", desc: "The deployment's prefix of subjects and stream names (its services' NATS_PREFIX)" }),
};

export type DeadLetterCommand =
  | { verb: "dead-letters list"; consumer?: string; limit: number; after?: number }
  | { verb: "dead-letters replay"; seq: number; keep: boolean }
  | { verb: "dead-letters delete"; seq: number };

/** A consumer's durable name is one subject token. */
export const CONSUMER_NAME = /^[A-Za-z0-9_-]+$/;

/** A positive integer option or argument; undefined when not a valid one. */
export function positiveInteger(value: string): number | undefined {
  if (!/^[1-9][0-9]{0,15}$/.test(value)) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : undefined;
}

export function loadDeadLetterConfig(env: Record<string, string | undefined>): { natsUrl: string; natsPrefix: string } {
  const config = loadConfig(deadLetterConfigSpecs, env);
  if (config.NATS_URL.trim() === "") throw new ConfigError("Invalid configuration: NATS_URL must not be empty");
  return { natsUrl: config.NATS_URL, natsPrefix: config.NATS_PREFIX };
}

export async function runDeadLetterCommand(command: DeadLetterCommand, env: Record<string, string | undefined>): Promise<object> {
  const { natsUrl, natsPrefix } = loadDeadLetterConfig(env);
  let nc;
  try {
    nc = await connectBus(natsUrl, "admin-dead-letters");
  } catch (error) {
    throw new AppError("unavailable", `NATS at ${natsUrl} cannot be reached: ${(error as Error).message}`);
  }
  try {
    switch (command.verb) {
      case "dead-letters list":
        return await listDeadLetters(nc, natsPrefix, { consumer: command.consumer, limit: command.limit, after: command.after });
      case "dead-letters replay":
        return await replayDeadLetter(nc, natsPrefix, command.seq, { keep: command.keep });
      case "dead-letters delete":
        await deleteDeadLetter(nc, natsPrefix, command.seq);
        return { seq: command.seq, deleted: true };
    }
  } catch (error) {
    if (error instanceof DeadLetterNotFoundError) throw new AppError("not_found", error.message);
    throw error;
  } finally {
    await nc.drain().catch(() => undefined);
  }
}
