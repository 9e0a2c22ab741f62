// Where the contract's files live in the repository.
import { fileURLToPath } from "node:url";

export const contractDirectory = fileURLToPath(new URL("../contract/", import.meta.url));
export const referencePath = fileURLToPath(new URL("../../../docs/events.md", import.meta.url));
export const snapshotPath = (type: string, version: number) => `${contractDirectory}${type}.v${version}.json`;
