// Whether a schema still describes what a version promised. Consumers of the previous release
// read what this one writes, and this release reads what the previous one wrote (events wait in
// streams and outboxes across a rolling deploy). Both hold only if nothing changed but new
// optional properties, so that is the only change a version allows: compared with the
// snapshot taken when the version was made, a schema may add properties that are not required,
// and reword descriptions; anything else is reported.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keys that document a schema without constraining values. */
const DOCUMENTATION = new Set(["description", "title", "examples"]);

const isObject = (value: Json | undefined): value is { [key: string]: Json } => value !== null && typeof value === "object" && !Array.isArray(value);

/** The schema as plain JSON (TypeBox's symbol keys dropped). */
export function plainSchema(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

/**
 * The differences between a version's snapshot and its schema now that would break a reader or
 * a writer of that version, as `path: what`; empty when the schema is compatible.
 */
export function breakingChanges(snapshot: Json, current: Json, path = ""): string[] {
  const at = path || "/";
  if (isObject(snapshot) && isObject(current)) {
    const problems: string[] = [];
    const required = new Set(Array.isArray(current.required) ? current.required : []);
    const keys = new Set([...Object.keys(snapshot), ...Object.keys(current)]);
    for (const key of keys) {
      if (DOCUMENTATION.has(key)) continue;
      if (key === "properties" && isObject(snapshot.properties) && isObject(current.properties)) {
        for (const name of Object.keys(current.properties)) {
          if (!(name in snapshot.properties) && required.has(name)) problems.push(`${path}/properties/${name}: a new required property`);
        }
        for (const name of Object.keys(snapshot.properties)) {
          if (!(name in current.properties)) problems.push(`${path}/properties/${name}: removed`);
          else problems.push(...breakingChanges(snapshot.properties[name]!, current.properties[name]!, `${path}/properties/${name}`));
        }
        continue;
      }
      if (key === "required" && Array.isArray(snapshot.required) && Array.isArray(current.required)) {
        const before = new Set(snapshot.required);
        const props = isObject(snapshot.properties) ? snapshot.properties : {};
        for (const name of current.required) {
          // A new required property is reported with the properties; one that was optional is a change.
          if (!before.has(name) && typeof name === "string" && name in props) problems.push(`${path}/properties/${name}: now required`);
        }
        for (const name of snapshot.required) if (!required.has(name)) problems.push(`${path}/properties/${String(name)}: no longer required`);
        continue;
      }
      if (!(key in current)) problems.push(`${path}/${key}: removed`);
      else if (!(key in snapshot)) problems.push(`${path}/${key}: added`);
      else problems.push(...breakingChanges(snapshot[key]!, current[key]!, `${path}/${key}`));
    }
    return problems;
  }
  if (Array.isArray(snapshot) && Array.isArray(current)) {
    if (snapshot.length !== current.length) return [`${at}: ${JSON.stringify(snapshot)} became ${JSON.stringify(current)}`];
    return snapshot.flatMap((item, index) => breakingChanges(item, current[index]!, `${path}/${index}`));
  }
  return JSON.stringify(snapshot) === JSON.stringify(current) ? [] : [`${at}: ${JSON.stringify(snapshot)} became ${JSON.stringify(current)}`];
}
