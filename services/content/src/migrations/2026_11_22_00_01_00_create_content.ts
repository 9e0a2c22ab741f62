// The content schema: tenants, API keys, games with environments and resources, users with
// game access, tag and field definitions, announcements, and the outbox.
// Tenant-owned rows carry company_id and reference their game by (company_id, game_id), so a
// row can never point at another company's game. Every lookup path has an index.
import { createOutboxTable } from "@support/bus";
import { sql, type Kysely } from "@support/db";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

// clock_timestamp(), not now(): rows created in one transaction (a tenant file) keep their order.
const now = sql`clock_timestamp()`;
const newId = sql`gen_random_uuid()`;

export async function up(db: AnyDb): Promise<void> {
  await createOutboxTable(db);

  await db.schema
    .createTable("companies")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(newId))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("primary_language", "text", (c) => c.notNull().defaultTo("en"))
    .addColumn("allow_immediate_deletion", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("auto_close_waiting_after_hours", "double precision", (c) =>
      c.notNull().defaultTo(168).check(sql`auto_close_waiting_after_hours > 0`),
    )
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(newId))
    .addColumn("company_id", "uuid", (c) => c.notNull().references("companies.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("key_prefix", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("revoked_at", "timestamptz")
    .execute();
  await db.schema.createIndex("api_keys_key_hash_key").on("api_keys").column("key_hash").unique().execute();
  await db.schema.createIndex("api_keys_company_id_idx").on("api_keys").column("company_id").execute();

  await db.schema
    .createTable("games")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(newId))
    .addColumn("company_id", "uuid", (c) => c.notNull().references("companies.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("languages", sql`text[]`, (c) => c.notNull().check(sql`cardinality(languages) > 0`))
    .addColumn("metadata_jwks", "jsonb")
    .addColumn("block_unverified_players", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("deleted_at", "timestamptz")
    .addUniqueConstraint("games_company_id_id_key", ["company_id", "id"])
    .execute();
  // Slugs are unique among a company's live games; a deleted game frees its slug.
  await db.schema
    .createIndex("games_company_id_slug_live_key")
    .on("games")
    .columns(["company_id", "slug"])
    .unique()
    .where(sql.ref("deleted_at"), "is", null)
    .execute();
  await db.schema.createIndex("games_company_id_deleted_at_idx").on("games").columns(["company_id", "deleted_at"]).execute();

  await db.schema
    .createTable("game_environments")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(newId))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("token", "uuid", (c) => c.notNull().defaultTo(newId))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addForeignKeyConstraint("game_environments_game_fk", ["company_id", "game_id"], "games", ["company_id", "id"])
    .addUniqueConstraint("game_environments_company_id_id_key", ["company_id", "id"])
    .execute();
  await db.schema.createIndex("game_environments_token_key").on("game_environments").column("token").unique().execute();
  await db.schema
    .createIndex("game_environments_game_id_name_key")
    .on("game_environments")
    .columns(["game_id", "name"])
    .unique()
    .execute();

  await db.schema
    .createTable("game_resources")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(newId))
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addForeignKeyConstraint("game_resources_game_fk", ["company_id", "game_id"], "games", ["company_id", "id"])
    .execute();
  await db.schema.createIndex("game_resources_game_id_key_key").on("game_resources").columns(["game_id", "key"]).unique().execute();

  await db.schema
    .createTable("users")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(newId))
    .addColumn("company_id", "uuid", (c) => c.notNull().references("companies.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addUniqueConstraint("users_company_id_id_key", ["company_id", "id"])
    .execute();
  await sql`create unique index users_company_id_email_key on users (company_id, lower(email))`.execute(db);

  await db.schema
    .createTable("user_game_access")
    .addColumn("company_id", "uuid", (c) => c.notNull())
    .addColumn("user_id", "uuid", (c) => c.notNull())
    .addColumn("game_id", "uuid", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addPrimaryKeyConstraint("user_game_access_pkey", ["user_id", "game_id"])
    .addForeignKeyConstraint("user_game_access_user_fk", ["company_id", "user_id"], "users", ["company_id", "id"])
    .addForeignKeyConstraint("user_game_access_game_fk", ["company_id", "game_id"], "games", ["company_id", "id"])
    .execute();
  await db.schema.createIndex("user_game_access_game_id_idx").on("user_game_access").column("game_id").execute();

  await db.schema
    .createTable("tags")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(newId))
    .addColumn("company_id", "uuid", (c) => c.notNull().references("companies.id"))
    .addColumn("game_id", "uuid")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("is_ai_tag", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("is_skill", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addForeignKeyConstraint("tags_game_fk", ["company_id", "game_id"], "games", ["company_id", "id"])
    .execute();
  // One name per (company, game), the company-wide scope (game_id null) included.
  await db.schema
    .createIndex("tags_company_id_game_id_name_key")
    .on("tags")
    .columns(["company_id", "game_id", "name"])
    .unique()
    .nullsNotDistinct()
    .execute();

  await db.schema
    .createTable("field_definitions")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(newId))
    .addColumn("company_id", "uuid", (c) => c.notNull().references("companies.id"))
    .addColumn("game_id", "uuid")
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull().check(sql`type in ('text', 'number', 'date', 'boolean', 'dropdown')`))
    .addColumn("description", "text")
    .addColumn("is_ai_field", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("options", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addForeignKeyConstraint("field_definitions_game_fk", ["company_id", "game_id"], "games", ["company_id", "id"])
    .addCheckConstraint("field_definitions_options_check", sql`(type = 'dropdown') = (cardinality(options) > 0)`)
    .execute();
  await db.schema
    .createIndex("field_definitions_company_id_game_id_key_key")
    .on("field_definitions")
    .columns(["company_id", "game_id", "key"])
    .unique()
    .nullsNotDistinct()
    .execute();

  await db.schema
    .createTable("announcements")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(newId))
    .addColumn("company_id", "uuid", (c) => c.notNull().references("companies.id"))
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("game_id", "uuid")
    .addColumn("environment_id", "uuid")
    .addColumn("short_content", "jsonb", (c) => c.notNull())
    .addColumn("long_content", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
    .addForeignKeyConstraint("announcements_game_fk", ["company_id", "game_id"], "games", ["company_id", "id"])
    .addForeignKeyConstraint("announcements_environment_fk", ["company_id", "environment_id"], "game_environments", ["company_id", "id"])
    .addCheckConstraint(
      "announcements_scope_check",
      sql`(scope = 'shared' and game_id is null and environment_id is null)
        or (scope = 'game' and game_id is not null and environment_id is null)
        or (scope = 'environment' and game_id is not null and environment_id is not null)`,
    )
    .execute();
  // One announcement per scope: shared (null, null), game (g, null), environment (g, e).
  await db.schema
    .createIndex("announcements_scope_key")
    .on("announcements")
    .columns(["company_id", "game_id", "environment_id"])
    .unique()
    .nullsNotDistinct()
    .execute();
  await db.schema.createIndex("announcements_environment_id_idx").on("announcements").column("environment_id").execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of [
    "announcements",
    "field_definitions",
    "tags",
    "user_game_access",
    "users",
    "game_resources",
    "game_environments",
    "games",
    "api_keys",
    "companies",
    "outbox",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
