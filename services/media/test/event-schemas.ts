// The JSON Schemas of docs/events.md, compiled: tests check every published event against them,
// so the document cannot drift from what the service sends.
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { EventEnvelope } from "@support/bus";

const markdown = readFileSync(new URL("../docs/events.md", import.meta.url), "utf8");
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats.default(ajv);

/** The first json block: the envelope. */
const envelope = ajv.compile(JSON.parse(/```json\n([\s\S]*?)```/.exec(markdown)![1]!));

/** `### <type>` headings, each followed by a json block: the data schemas. */
export const dataSchemas = new Map<string, ValidateFunction>(
  [...markdown.matchAll(/^### (media\.[a-z_]+\.[a-z_]+)\s*\n[\s\S]*?```json\n([\s\S]*?)```/gm)].map((m) => [m[1]!, ajv.compile(JSON.parse(m[2]!))]),
);

/** The problems of an event against the document; empty when it conforms. */
export function schemaProblems(event: EventEnvelope): string[] {
  const problems: string[] = [];
  if (!envelope(event)) problems.push(`envelope: ${ajv.errorsText(envelope.errors)}`);
  const data = dataSchemas.get(event.type);
  if (!data) problems.push(`${event.type} is not documented`);
  else if (!data(event.data)) problems.push(`${event.type}: ${ajv.errorsText(data.errors)}`);
  return problems;
}
