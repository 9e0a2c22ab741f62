// The companies' OpenID client secrets: one file per key in SSO_CLIENTS_DIR (the Secret
// content-sso mounted read-only), read at each use, so that a secret added or rotated in the
// Secret takes effect without a restart (the kubelet refreshes a mounted Secret). Nothing of it
// goes to the database, a log or an event.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { isClientSecretKey } from "./single-sign-on.ts";

export interface ClientSecrets {
  /** The secret of this key; undefined when there is none (no directory, no such file, empty). */
  get(key: string): Promise<string | undefined>;
}

export function createClientSecrets(directory: string): ClientSecrets {
  return {
    async get(key) {
      // The key is checked when a tenant file is applied; checked again, it can never be a path.
      if (directory === "" || !isClientSecretKey(key)) return undefined;
      try {
        // A Secret created from a file often ends with a newline the provider does not expect.
        const secret = (await readFile(join(directory, key), "utf8")).replace(/\r?\n$/, "");
        return secret === "" ? undefined : secret;
      } catch {
        return undefined;
      }
    },
  };
}
