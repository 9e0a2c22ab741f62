// The content service's configuration, from environment variables only.
import { loadConfig } from "@support/config";
import { adminTokenSpec, portSpec, serviceConfigSpecs } from "@support/runtime";
import { idempotencyConfigSpecs } from "@support/idempotency";

export const configSpecs = { ...serviceConfigSpecs, ...idempotencyConfigSpecs, PORT: portSpec(50051), ADMIN_TOKEN: adminTokenSpec };

export type ContentConfig = ReturnType<typeof loadContentConfig>;

export function loadContentConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(configSpecs, env);
}
