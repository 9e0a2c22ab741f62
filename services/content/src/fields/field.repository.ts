// Queries on field definitions.
import type { Kysely, Selectable } from "kysely";
import type { ContentDatabase } from "../database.ts";
import type { FieldChange, FieldDefinition, FieldType, NewField } from "./field.ts";
import type { FieldDefinitionTable } from "./field.table.ts";

type Db = Kysely<ContentDatabase>;

function toField(row: Selectable<FieldDefinitionTable>): FieldDefinition {
  return {
    id: row.id,
    companyId: row.company_id,
    gameId: row.game_id,
    key: row.key,
    name: row.name,
    type: row.type as FieldType,
    description: row.description,
    isAiField: row.is_ai_field,
    options: row.options,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    retiredAt: row.retired_at,
  };
}

export async function insertField(db: Db, companyId: string, field: NewField): Promise<FieldDefinition> {
  const row = await db
    .insertInto("field_definitions")
    .values({
      company_id: companyId,
      game_id: field.gameId,
      key: field.key,
      name: field.name,
      type: field.type,
      description: field.description,
      is_ai_field: field.isAiField,
      options: field.options,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toField(row);
}

/** Company-wide fields first, then per-game fields of live games, by game id and key. */
export async function listLiveFields(db: Db, companyId: string): Promise<FieldDefinition[]> {
  const rows = await db
    .selectFrom("field_definitions as f")
    .leftJoin("games as g", "g.id", "f.game_id")
    .selectAll("f")
    .where("f.company_id", "=", companyId)
    .where("f.retired_at", "is", null)
    .where((eb) => eb.or([eb("f.game_id", "is", null), eb("g.deleted_at", "is", null)]))
    .orderBy("f.game_id", (ob) => ob.asc().nullsFirst())
    .orderBy("f.key")
    .execute();
  return rows.map(toField);
}

/** A live field of the company, its row locked for a change. */
export async function findLiveFieldForUpdate(db: Db, companyId: string, fieldId: string): Promise<FieldDefinition | undefined> {
  const row = await db.selectFrom("field_definitions").selectAll().where("company_id", "=", companyId).where("id", "=", fieldId).where("retired_at", "is", null).forUpdate().executeTakeFirst();
  return row && toField(row);
}

export async function updateField(db: Db, fieldId: string, change: FieldChange): Promise<FieldDefinition> {
  const row = await db
    .updateTable("field_definitions")
    .set({ name: change.name, description: change.description, is_ai_field: change.isAiField, options: change.options, updated_at: new Date() })
    .where("id", "=", fieldId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toField(row);
}

export async function markFieldRetired(db: Db, fieldId: string): Promise<FieldDefinition> {
  const now = new Date();
  const row = await db.updateTable("field_definitions").set({ retired_at: now, updated_at: now }).where("id", "=", fieldId).returningAll().executeTakeFirstOrThrow();
  return toField(row);
}
