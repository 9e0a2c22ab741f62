// pnpm --filter @support/events contract snapshot   writes the snapshot of every version that has none
// pnpm --filter @support/events contract reference  writes docs/events.md
// A snapshot is never overwritten: it is what consumers of that version rely on.
import { existsSync, writeFileSync } from "node:fs";
import { versionsOf, type EventDefinition } from "./contract.ts";
import { eventReference, snapshotText } from "./reference.ts";
import { contractDirectory, referencePath, snapshotPath } from "./paths.ts";
import { EVENT_DEFINITIONS } from "./registry.ts";

const command = process.argv[2];
if (command === "snapshot") {
  for (const definition of EVENT_DEFINITIONS as readonly EventDefinition[]) {
    for (const { version, schema } of versionsOf(definition)) {
      const path = snapshotPath(definition.type, version);
      if (existsSync(path)) continue;
      writeFileSync(path, snapshotText(schema));
      console.log(`wrote ${path}`);
    }
  }
  console.log(`snapshots in ${contractDirectory}`);
} else if (command === "reference") {
  writeFileSync(referencePath, eventReference());
  console.log(`wrote ${referencePath}`);
} else {
  console.error("usage: contract snapshot|reference");
  process.exitCode = 2;
}
