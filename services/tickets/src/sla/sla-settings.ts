// The company's SLA settings as an admin or the API sends them: checked whole, every problem named
// by its JSON pointer, and nothing stored when any is found.
import { validationError, type ValidationIssue } from "@support/errors";
import { calendarIssues, type SlaCalendar } from "./calendar.ts";
import type { SlaPolicy, SlaSettings } from "./sla.ts";

const MAX_POLICIES = 50;
const MAX_HOLIDAYS = 500;
const MAX_HOURS = 50;
const MAX_LIST = 100;
/** A year: longer targets are a typo. */
const MAX_MINUTES = 366 * 24 * 60;
const POLICY_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

/** Checks raw settings (the request body's shape) and answers them normalised; INVALID_ARGUMENT with every issue otherwise. */
export function parseSlaSettings(raw: unknown): SlaSettings {
  const issues: ValidationIssue[] = [];
  const issue = (path: string, message: string) => void issues.push({ path, message });
  if (!isObj(raw)) throw validationError([{ path: "", message: "must be an object with calendar and policies" }]);

  let calendar: SlaCalendar | null = null;
  if (raw.calendar !== null && raw.calendar !== undefined) {
    const c = raw.calendar;
    if (!isObj(c)) issue("/calendar", "must be an object or null");
    else if (typeof c.timeZone !== "string") issue("/calendar/timeZone", "is required");
    else if (!Array.isArray(c.hours) || c.hours.length > MAX_HOURS) issue("/calendar/hours", `must be a list of at most ${MAX_HOURS} spans`);
    else if (c.holidays !== undefined && (!Array.isArray(c.holidays) || c.holidays.length > MAX_HOLIDAYS)) issue("/calendar/holidays", `must be a list of at most ${MAX_HOLIDAYS} dates`);
    else {
      const hours = c.hours.map((h: unknown, i) => {
        if (!isObj(h)) issue(`/calendar/hours/${i}`, "must be an object {day, start, end}");
        const o = isObj(h) ? h : {};
        return { day: typeof o.day === "number" ? o.day : Number.NaN, start: typeof o.start === "string" ? o.start : "", end: typeof o.end === "string" ? o.end : "" };
      });
      const holidays = ((c.holidays ?? []) as unknown[]).map((d) => (typeof d === "string" ? d : ""));
      calendar = { timeZone: c.timeZone, hours, holidays: [...holidays] };
      issues.push(...calendarIssues(calendar, "/calendar"));
      calendar.holidays.sort();
    }
  }

  const policies: SlaPolicy[] = [];
  if (!Array.isArray(raw.policies) || raw.policies.length > MAX_POLICIES) issue("/policies", `must be a list of at most ${MAX_POLICIES} policies`);
  else {
    const ids = new Set<string>();
    raw.policies.forEach((p: unknown, i) => {
      const at = `/policies/${i}`;
      if (!isObj(p)) return issue(at, "must be an object");
      const id = typeof p.id === "string" ? p.id : "";
      if (!POLICY_ID.test(id)) issue(`${at}/id`, "must be 1 to 64 lowercase letters, digits, - or _, starting with a letter or digit");
      else if (ids.has(id)) issue(`${at}/id`, "is used by another policy");
      ids.add(id);
      const name = typeof p.name === "string" ? p.name.trim() : "";
      if (name.length === 0 || name.length > 100) issue(`${at}/name`, "must be 1 to 100 characters");
      const list = <T>(key: string, ok: (v: unknown) => v is T, what: string): T[] => {
        const value = p[key] ?? [];
        if (!Array.isArray(value) || value.length > MAX_LIST) {
          issue(`${at}/${key}`, `must be a list of at most ${MAX_LIST} ${what}`);
          return [];
        }
        value.forEach((v, j) => void (ok(v) ? undefined : issue(`${at}/${key}/${j}`, `must be ${what}`)));
        return [...new Set(value.filter(ok))];
      };
      const gameIds = list("gameIds", (v): v is string => typeof v === "string" && /^[0-9a-f-]{36}$/i.test(v), "game ids").map((g) => g.toLowerCase());
      const tiers = list("tiers", (v): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 100, "tiers (1 to 100)");
      const tags = list("tags", (v): v is string => typeof v === "string" && v.length > 0 && v.length <= 100, "tag names");
      const targets = isObj(p.targets) ? p.targets : {};
      if (!isObj(p.targets)) issue(`${at}/targets`, "is required");
      const minutes = (key: string): number | null => {
        const value = targets[key];
        if (value === undefined || value === null) return null;
        if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_MINUTES) issue(`${at}/targets/${key}`, `must be whole minutes from 1 to ${MAX_MINUTES}, or null`);
        return value as number;
      };
      const firstResponseMinutes = minutes("firstResponseMinutes");
      const nextResponseMinutes = minutes("nextResponseMinutes");
      const resolutionMinutes = minutes("resolutionMinutes");
      if (isObj(p.targets) && firstResponseMinutes === null && nextResponseMinutes === null && resolutionMinutes === null) issue(`${at}/targets`, "needs at least one target");
      const businessHours = p.businessHours === undefined ? false : p.businessHours;
      if (typeof businessHours !== "boolean") issue(`${at}/businessHours`, "must be true or false");
      else if (businessHours && calendar === null && issues.every((x) => !x.path.startsWith("/calendar"))) issue(`${at}/businessHours`, "needs the company calendar (calendar is null)");
      const pauseWhileWaiting = p.pauseWhileWaiting === undefined ? true : p.pauseWhileWaiting;
      if (typeof pauseWhileWaiting !== "boolean") issue(`${at}/pauseWhileWaiting`, "must be true or false");
      const warnBeforeMinutes = p.warnBeforeMinutes === undefined ? 0 : p.warnBeforeMinutes;
      if (!Number.isInteger(warnBeforeMinutes) || (warnBeforeMinutes as number) < 0 || (warnBeforeMinutes as number) > MAX_MINUTES) issue(`${at}/warnBeforeMinutes`, `must be whole minutes from 0 to ${MAX_MINUTES}`);
      policies.push({
        id, name, gameIds, tiers, tags,
        targets: { firstResponseMinutes, nextResponseMinutes, resolutionMinutes },
        businessHours: businessHours === true, pauseWhileWaiting: pauseWhileWaiting === true, warnBeforeMinutes: Number(warnBeforeMinutes),
      });
    });
  }
  if (issues.length > 0) throw validationError(issues, "The SLA settings are not valid; nothing was changed");
  return { calendar, policies };
}
