// The migrations' backward-compatibility rule (deploy/README.md, "Independent releases"), as a
// comparison of a schema before and after the new release's migrations: the previous release's
// code must keep working on the new schema while a rollout runs both.
import pg from "pg";

export interface Column {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
  hasDefault: boolean;
}

/** Every column of every table of a schema. */
export async function snapshotSchema(url: string, schema: string): Promise<Column[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string; column_name: string; type: string; is_nullable: string; has_default: boolean }>(
      `select c.table_name, c.column_name,
              format_type(a.atttypid, a.atttypmod) as type,
              c.is_nullable,
              (c.column_default is not null or c.is_identity = 'YES' or c.is_generated = 'ALWAYS') as has_default
         from information_schema.columns c
         join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
         join pg_attribute a on a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass and a.attname = c.column_name
        where c.table_schema = $1 and t.table_type = 'BASE TABLE'
        order by 1, 2`,
      [schema],
    );
    return rows.map((row) => ({ table: row.table_name, column: row.column_name, type: row.type, nullable: row.is_nullable === "YES", hasDefault: row.has_default }));
  } finally {
    await client.end();
  }
}

/**
 * What would break the previous release's code: a table or column it uses disappearing
 * (dropped or renamed), a column changing type, a column it may leave empty becoming required
 * (NOT NULL without a default, including a new such column on an existing table).
 */
export function compatibilityViolations(before: Column[], after: Column[]): string[] {
  const key = (c: Column) => `${c.table}.${c.column}`;
  const previous = new Map(before.map((c) => [key(c), c]));
  const next = new Map(after.map((c) => [key(c), c]));
  const oldTables = new Set(before.map((c) => c.table));
  const newTables = new Set(after.map((c) => c.table));
  const violations: string[] = [];
  for (const table of oldTables) if (!newTables.has(table)) violations.push(`table ${table} was dropped or renamed`);
  for (const [name, old] of previous) {
    if (!newTables.has(old.table)) continue;
    const now = next.get(name);
    if (!now) {
      violations.push(`column ${name} was dropped or renamed`);
      continue;
    }
    if (now.type !== old.type) violations.push(`column ${name} changed type from ${old.type} to ${now.type}`);
    if (old.nullable && !now.nullable) violations.push(`column ${name} became NOT NULL`);
    if (old.hasDefault && !now.hasDefault && !now.nullable) violations.push(`column ${name} lost its default and is NOT NULL`);
  }
  for (const [name, now] of next) {
    if (previous.has(name) || !oldTables.has(now.table)) continue;
    if (!now.nullable && !now.hasDefault) violations.push(`new column ${name} is NOT NULL without a default`);
  }
  return violations;
}
