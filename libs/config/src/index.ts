// Typed, frozen configuration read only from environment variables (envalid does the parsing).
// A missing required value or a malformed one throws, naming every bad variable at once,
// instead of envalid's default of exiting the process: callers decide how to fail.
import { bool, cleanEnv, makeValidator, num, port, str, url, type ValidatorSpec } from "envalid";

export { bool, num, port, str, url };

/** A port to listen on: like `port`, but 0 (any free port, used by tests) is allowed. */
export const listenPort = makeValidator<number>((input) => {
  const value = Number(input);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`Invalid port: "${input}"`);
  return value;
});

/** A retry schedule: comma-separated non-negative seconds, one per retry. Throws when malformed. */
export function parseRetrySchedule(text: string): number[] {
  const parts = text.split(",").map((part) => part.trim());
  const values = parts.map(Number);
  if (parts.length === 0 || parts.some((part) => part === "") || values.some((v) => !Number.isFinite(v) || v < 0)) {
    throw new Error("must be comma-separated non-negative numbers of seconds");
  }
  return values;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Specs<T> = { [K in keyof T]: ValidatorSpec<T[K]> };

export function loadConfig<T extends object>(
  specs: Specs<T>,
  env: Record<string, string | undefined> = process.env,
): Readonly<T> {
  const cleaned = cleanEnv(env, specs, {
    reporter: ({ errors }) => {
      const names = Object.keys(errors);
      if (names.length === 0) return;
      const reasons = names.map((name) => `${name}: ${(errors as Record<string, Error>)[name]?.message ?? "invalid"}`);
      throw new ConfigError(`Invalid configuration: ${reasons.join("; ")}`);
    },
  });
  // Copy into a plain frozen object: envalid's proxy is awkward to spread or log.
  const plain = {} as T;
  for (const key of Object.keys(specs) as (keyof T)[]) plain[key] = (cleaned as T)[key];
  return Object.freeze(plain);
}
