// The event reference (docs/events.md), generated from the definitions: what each type means,
// its version and every field of its data.
import type { TSchema } from "@sinclair/typebox";
import { versionsOf, type EventDefinition } from "./contract.ts";
import { plainSchema } from "./compatibility.ts";
import { EVENT_DEFINITIONS } from "./registry.ts";

type Node = { [key: string]: unknown };

function describeType(schema: Node): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(" \\| ");
  if (Array.isArray(schema.anyOf)) {
    const options = schema.anyOf as Node[];
    const nonNull = options.filter((option) => option.type !== "null");
    const text = nonNull.map(describeType).join(" or ");
    return nonNull.length < options.length ? `${text} or null` : text;
  }
  if (schema.type === "null") return "null";
  if (schema.type === "array") return `array of ${describeType(schema.items as Node)}`;
  if (schema.type === "object") return schema.properties ? "object" : `object of ${describeType((Object.values(schema.patternProperties ?? {})[0] as Node) ?? {})}`;
  if (schema.type === "string" && typeof schema.format === "string") return `string (${schema.format})`;
  if (typeof schema.type === "string") return schema.type;
  return "any";
}

function constraints(schema: Node): string {
  const notes: string[] = [];
  if (typeof schema.pattern === "string") notes.push(`pattern \`${schema.pattern}\``);
  if (typeof schema.minimum === "number") notes.push(`≥ ${schema.minimum}`);
  if (typeof schema.exclusiveMinimum === "number") notes.push(`> ${schema.exclusiveMinimum}`);
  if (typeof schema.maximum === "number") notes.push(`≤ ${schema.maximum}`);
  if (typeof schema.minItems === "number") notes.push(`at least ${schema.minItems} item(s)`);
  return notes.join(", ");
}

/** One row per field, nested objects (and objects in arrays) as dotted paths. */
function rows(schema: Node, prefix: string): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Node>;
  const required = new Set((schema.required ?? []) as string[]);
  const lines: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const path = `${prefix}${name}`;
    const description = [property.description, constraints(property)].filter(Boolean).join("; ");
    lines.push(`| \`${path}\` | ${describeType(property)} | ${required.has(name) ? "yes" : "no"} | ${String(description ?? "").replaceAll("|", "\\|")} |`);
    const nested = (property.anyOf as Node[] | undefined)?.find((option) => option.type === "object" || option.type === "array") ?? property;
    if (nested.type === "object" && nested.properties) lines.push(...rows(nested, `${path}.`));
    if (nested.type === "array") {
      const items = nested.items as Node;
      // An array of one of several objects: the rows of each form, one after the other.
      for (const form of (items.anyOf as Node[] | undefined) ?? [items]) if (form.type === "object") lines.push(...rows(form, `${path}[].`));
    }
  }
  return lines;
}

function section(definition: EventDefinition): string {
  const schema = plainSchema(definition.schema) as Node;
  const versions = versionsOf(definition).map(({ version }) => `[v${version}](../libs/events/contract/${definition.type}.v${version}.json)`);
  return [
    `### \`${definition.type}\``,
    "",
    definition.description,
    "",
    `Version ${definition.version}. JSON Schema of each version read: ${versions.join(", ")}.`,
    "",
    "| Field | Type | Required | Notes |",
    "|---|---|---|---|",
    ...rows(schema, ""),
    "",
  ].join("\n");
}

export function eventReference(): string {
  const services = [...new Set(EVENT_DEFINITIONS.map((definition) => definition.type.split(".")[0]!))];
  const intro = `# Domain events

<!-- Generated from libs/events (pnpm --filter @support/events contract reference): edit the definitions, not this file. -->

Every service writes its events to its outbox in the transaction of the change they describe;
a relay publishes them to NATS JetStream after commit, at least once, with \`Nats-Msg-Id\` = the
event's id (the stream drops a re-publish within its duplicate window). Each service has one
stream, \`<SERVICE>_EVENTS\` (\`<PREFIX><SERVICE>_EVENTS\` under a \`NATS_PREFIX\`), with the
subjects \`<service>.>\`; an event's subject is its type (after the prefix). Consumers must be
idempotent (key on \`id\`).

Every event is an envelope:

| Field | Type | Notes |
|---|---|---|
| \`id\` | string (uuid) | The event's id |
| \`version\` | integer | The version of \`data\` of this type; absent in events written before versions existed, which are version 1 |
| \`type\` | string | \`service.entity.verb\`, below |
| \`occurredAt\` | string (date-time) | |
| \`companyId\` | string (uuid) | The company the change belongs to |
| \`data\` | object | Below, per type and version |

The definitions in \`libs/events\` are the contract: producers and consumers use their types,
producers refuse data that does not match, and consumers set aside (dead letters) a version
they do not know (\`unknown_version\`) or data that does not match it (\`invalid_data\`), and
ignore types they do not know. Within a version only new optional properties may appear, so a
consumer tolerates properties it does not know; any other change is a new version, which
consumers of the previous release set aside until they are updated. \`pnpm --filter
@support/events test\` holds every version to its snapshot in \`libs/events/contract/\`.

| Type | Version | When |
|---|---|---|
${EVENT_DEFINITIONS.map((definition) => `| [\`${definition.type}\`](#${definition.type.replaceAll(".", "")}) | ${definition.version} | ${definition.description.split(/(?<=\.)\s/)[0]} |`).join("\n")}
`;
  const bodies = services.map((service) => [`## ${service}`, "", ...EVENT_DEFINITIONS.filter((definition) => definition.type.startsWith(`${service}.`)).map((definition) => section(definition as EventDefinition))].join("\n"));
  return `${intro}\n${bodies.join("\n")}`;
}

/** The snapshot file of one version: its JSON Schema as plain JSON. */
export function snapshotText(schema: TSchema): string {
  return `${JSON.stringify(plainSchema(schema), null, 2)}\n`;
}
