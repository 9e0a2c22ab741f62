import { readdirSync, readFileSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { breakingChanges, plainSchema, type Json } from "./compatibility.ts";
import { versionsOf, type EventDefinition } from "./contract.ts";
import { contractDirectory, referencePath, snapshotPath } from "./paths.ts";
import { eventReference } from "./reference.ts";
import { EVENT_DEFINITIONS } from "./registry.ts";
import { ticketCreated } from "./schemas/tickets.ts";

const definitions = EVENT_DEFINITIONS as readonly EventDefinition[];
const snapshotOf = (type: string, version: number) => JSON.parse(readFileSync(snapshotPath(type, version), "utf8"));

describe("the event contract against its snapshots", () => {
  it.each(definitions.flatMap((definition) => versionsOf(definition).map(({ version, schema }) => ({ type: definition.type, version, schema }))))(
    "$type v$version still says what its snapshot says",
    ({ type, version, schema }) => {
      // A missing snapshot: a new version or type; `pnpm --filter @support/events contract snapshot` records it.
      expect(breakingChanges(snapshotOf(type, version), plainSchema(schema))).toEqual([]);
    },
  );

  it("has no snapshot of a type that is no longer defined (consumers of the last release may still read it)", () => {
    const defined = new Set(definitions.map((definition) => definition.type));
    const orphans = readdirSync(contractDirectory).map((file) => file.replace(/\.v\d+\.json$/, "")).filter((type) => !defined.has(type));
    expect(orphans).toEqual([]);
  });

  it("has its reference (docs/events.md) generated from the definitions as they are", () => {
    // After a change: `pnpm --filter @support/events contract reference`.
    expect(readFileSync(referencePath, "utf8")).toBe(eventReference());
  });
});

describe("breakingChanges", () => {
  const snapshot = plainSchema(ticketCreated.schema);
  const changed = (edit: (properties: Record<string, unknown>) => void, required?: (names: string[]) => string[]) => {
    const schema = structuredClone(snapshot) as { properties: Record<string, unknown>; required: string[] };
    edit(schema.properties);
    if (required) schema.required = required(schema.required);
    return breakingChanges(snapshot, schema as unknown as Json);
  };

  it("accepts the schema as it was, a new optional property and a reworded description", () => {
    expect(breakingChanges(snapshot, plainSchema(ticketCreated.schema))).toEqual([]);
    expect(changed((p) => (p.priority = plainSchema(Type.String())))).toEqual([]);
    expect(changed((p) => ((p.url as { description: string }).description = "Where agents read it"))).toEqual([]);
  });

  it("refuses a field whose type changed", () => {
    expect(changed((p) => (p.runningId = plainSchema(Type.String())))).toEqual(
      expect.arrayContaining(['/properties/runningId/type: "integer" became "string"', "/properties/runningId/minimum: removed"]),
    );
  });

  it("refuses a removed or renamed field", () => {
    expect(changed((p) => delete p.email, (names) => names.filter((name) => name !== "email"))).toContain("/properties/email: removed");
    expect(
      changed(
        (p) => {
          p.emailAddress = p.email;
          delete p.email;
        },
        (names) => names.map((name) => (name === "email" ? "emailAddress" : name)),
      ),
    ).toEqual(expect.arrayContaining(["/properties/email: removed", "/properties/emailAddress: a new required property"]));
  });

  it("refuses a new required field, a field made optional and a field made required", () => {
    expect(changed((p) => (p.priority = plainSchema(Type.String())), (names) => [...names, "priority"])).toEqual(["/properties/priority: a new required property"]);
    expect(changed(() => {}, (names) => names.filter((name) => name !== "url"))).toEqual(["/properties/url: no longer required"]);
    const optional = structuredClone(snapshot) as { required: string[] };
    optional.required = optional.required.filter((name) => name !== "url");
    expect(breakingChanges(optional as unknown as Json, snapshot)).toEqual(["/properties/url: now required"]);
  });

  it("refuses an enumeration that gained or lost a value, and null newly allowed", () => {
    expect(changed((p) => (p.status as { enum: string[] }).enum.push("escalated"))).toHaveLength(1);
    expect(changed((p) => (p.status as { enum: string[] }).enum.pop())).toHaveLength(1);
    expect(changed((p) => (p.url = plainSchema(Type.Union([Type.String(), Type.Null()]))))).not.toEqual([]);
  });
});
