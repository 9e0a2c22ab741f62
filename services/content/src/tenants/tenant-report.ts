// What applying a tenant file does to a company, object by object: created, changed, unchanged,
// refused as a conflict, or kept although the file does not name it. Pure types and rules only.
import type { TenantFile } from "@support/tenant-file";

export type TenantItemKind = "company" | "apiKey" | "game" | "environment" | "announcement" | "resource" | "collector" | "user" | "tag" | "field";

export interface TenantItem {
  kind: TenantItemKind;
  /** Its identity in the company ("galaxy-raiders/production"). */
  name: string;
  /** Its path in the file; "" for what the file does not name. */
  path: string;
  /** "" when a dry run would create it (nothing is written, so nothing has an id). */
  id: string;
  /** Changed attributes (changed) or the attributes the file cannot change (conflicts). */
  attributes: string[];
  /** Why it is a conflict. */
  message: string;
}

export interface TenantReport {
  created: TenantItem[];
  changed: TenantItem[];
  unchanged: TenantItem[];
  /** When there is any, nothing is written. */
  conflicts: TenantItem[];
  /** Kept: a file never deletes what it does not name. */
  notInFile: TenantItem[];
}

export function emptyReport(): TenantReport {
  return { created: [], changed: [], unchanged: [], conflicts: [], notInFile: [] };
}

export function item(kind: TenantItemKind, name: string, path: string, id: string, extra: Partial<Pick<TenantItem, "attributes" | "message">> = {}): TenantItem {
  return { kind, name, path, id, attributes: extra.attributes ?? [], message: extra.message ?? "" };
}

/** Sorted copies are equal: lists whose order means nothing (a user's games). */
export const sameSet = (a: readonly string[], b: readonly string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/** Equal as JSON with keys sorted at every level (stored jsonb comes back with its own key order). */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/**
 * The names of the attributes the file gives that differ from what the company has. An
 * attribute the file leaves out (undefined) keeps the company's value: a file changes only what
 * it says.
 */
export function differingAttributes(wanted: Record<string, unknown>, current: Record<string, unknown>, same: (a: unknown, b: unknown) => boolean = sameJson): string[] {
  return Object.keys(wanted).filter((key) => wanted[key] !== undefined && !same(wanted[key], current[key]));
}

/** The tenant.applied audit entry's account of a converge: names and attributes, never an id's secret. */
export function auditedReport(report: TenantReport): Record<string, unknown> {
  const named = (items: TenantItem[]) => items.map(({ kind, name }) => ({ kind, name }));
  return {
    created: named(report.created),
    changed: report.changed.map(({ kind, name, attributes }) => ({ kind, name, attributes })),
    notInFile: named(report.notInFile),
  };
}

/** True when the report holds a change: created or changed anything. */
export const changesSomething = (report: TenantReport) => report.created.length > 0 || report.changed.length > 0;

/** A tag's or field's name in a report: "bug" company-wide, "bug (galaxy-raiders)" of a game. */
export function scopedName(name: string, gameRef: string | null, file: TenantFile): string {
  if (gameRef === null) return name;
  return `${name} (${(file.games ?? []).find((game) => game.ref === gameRef)?.slug ?? gameRef})`;
}
