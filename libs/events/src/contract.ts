// How an event type is defined: its name, what it means, the version producers write now and
// the schema of its `data`, plus the earlier versions consumers still read (each with the
// function that lifts its data to the current shape). A consumer therefore always handles the
// current shape, whichever release wrote the event.
//
// The rule for changing a schema: adding an optional property keeps the version; any other
// change (a property removed, renamed, retyped, made optional or required, an enum value added
// or removed) is a new version. The compatibility test holds every version to the snapshot in
// `contract/`, taken when the version was made (see README.md).
import type { Static, TSchema } from "@sinclair/typebox";

export interface EarlierVersion<S extends TSchema> {
  schema: TSchema;
  /** The data of this version as the current version has it. */
  upcast(data: unknown): Static<S>;
}

export interface EventDefinition<T extends string = string, S extends TSchema = TSchema> {
  type: T;
  /** When the event is published and what a consumer can rely on (the reference shows it). */
  description: string;
  /** The version producers write now. */
  version: number;
  /** The schema of `data` at `version`. */
  schema: S;
  /** Versions older than `version` that may still be in streams and outboxes. */
  earlier?: Readonly<Record<number, EarlierVersion<S>>>;
}

export function defineEvent<const T extends string, S extends TSchema>(definition: EventDefinition<T, S>): EventDefinition<T, S> {
  if (!/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){2}$/.test(definition.type)) throw new Error(`event type must look like service.entity.verb: ${definition.type}`);
  if (!Number.isInteger(definition.version) || definition.version < 1) throw new Error(`${definition.type}: version must be a positive integer`);
  for (const earlier of Object.keys(definition.earlier ?? {})) {
    if (Number(earlier) >= definition.version) throw new Error(`${definition.type}: an earlier version must be below ${definition.version}`);
  }
  return definition;
}

/** Every version of a definition with its schema, oldest first. */
export function versionsOf(definition: EventDefinition): { version: number; schema: TSchema }[] {
  const earlier = Object.entries(definition.earlier ?? {}).map(([version, { schema }]) => ({ version: Number(version), schema }));
  return [...earlier.sort((a, b) => a.version - b.version), { version: definition.version, schema: definition.schema }];
}
