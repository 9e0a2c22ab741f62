// The database roles of deploy/postgres/provision-service.sql, created with psql exactly as the
// README tells an administrator to, under a per-run prefix (roles are cluster-wide).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";

export function psqlPath(): string {
  const found = spawnSync("sh", ["-c", "command -v psql"], { encoding: "utf8" });
  if (found.status === 0) return found.stdout.trim();
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const path = join(base, version, "bin", "psql");
    if (existsSync(path)) return path;
  }
  throw new Error("psql not found (Debian's postgresql-client provides it)");
}

export interface ServiceRoles {
  owner: string;
  app: string;
  /** The schema owner's URL: Secret key MIGRATION_DATABASE_URL. */
  migrationUrl: string;
  /** The service's URL: Secret key DATABASE_URL. */
  appUrl: string;
}

function withUser(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  return parsed.toString();
}

export function provisionServiceRoles(root: string, adminUrl: string, schema: string, prefix: string): ServiceRoles {
  const ownerPassword = `owner-${prefix}${schema}`;
  const appPassword = `app-${prefix}${schema}`;
  execFileSync(
    psqlPath(),
    [
      adminUrl,
      "-X",
      "-q",
      "-v", "ON_ERROR_STOP=1",
      "-v", `schema=${schema}`,
      "-v", `role_prefix=${prefix}`,
      "-v", `owner_password=${ownerPassword}`,
      "-v", `app_password=${appPassword}`,
      "-f", join(root, "deploy", "postgres", "provision-service.sql"),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const owner = `${prefix}${schema}_owner`;
  const app = `${prefix}${schema}_app`;
  return { owner, app, migrationUrl: withUser(adminUrl, owner, ownerPassword), appUrl: withUser(adminUrl, app, appPassword) };
}

/** Drops the run's roles (after its database is gone, so they own nothing). */
export async function dropRoles(adminUrl: string, roles: string[]): Promise<void> {
  if (roles.length === 0) return;
  const url = new URL(adminUrl);
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    for (const role of roles) await client.query(`drop role if exists "${role.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}
