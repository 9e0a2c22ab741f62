// Business time of a company calendar, without I/O: how much working time lies between two
// instants, and which instant is a given amount of working time after another. Working time is
// the weekly hours in the calendar's time zone (its own daylight saving included), minus whole-day
// holidays. Without a calendar (a policy around the clock) working time is wall time.
import { DateTime } from "luxon";

/** One span of working hours on a day of the week, in the calendar's zone: "HH:MM" to "HH:MM" ("24:00" is midnight at the end of the day). */
export interface WorkingHours {
  /** ISO day of the week: 1 Monday .. 7 Sunday. */
  day: number;
  start: string;
  end: string;
}

export interface SlaCalendar {
  /** An IANA time zone, e.g. "Europe/Berlin". */
  timeZone: string;
  hours: WorkingHours[];
  /** Whole days without working time, as dates "YYYY-MM-DD" in the zone. */
  holidays: string[];
}

/** How far addWorking looks ahead for working hours: a calendar without any in this span never reaches a target. */
const HORIZON_DAYS = 3 * 366;

function minutesOf(time: string): number {
  const [hours, minutes] = time.split(":").map(Number);
  return hours! * 60 + minutes!;
}

/** The working spans of the day that starts at `day` (midnight in the zone), as epoch ms, in order. */
function spansOf(calendar: SlaCalendar, holidays: ReadonlySet<string>, day: DateTime): [number, number][] {
  if (holidays.has(day.toISODate()!)) return [];
  return calendar.hours
    .filter((hours) => hours.day === day.weekday)
    .map((hours): [number, number] => [day.plus({ minutes: minutesOf(hours.start) }).toMillis(), day.plus({ minutes: minutesOf(hours.end) }).toMillis()])
    .sort((a, b) => a[0] - b[0]);
}

function startOfDay(calendar: SlaCalendar, at: number): DateTime {
  return DateTime.fromMillis(at, { zone: calendar.timeZone }).startOf("day");
}

/** Working milliseconds in [from, to); wall time without a calendar. */
export function workingMs(calendar: SlaCalendar | null, from: number, to: number): number {
  if (to <= from) return 0;
  if (calendar === null) return to - from;
  const holidays = new Set(calendar.holidays);
  let total = 0;
  for (let day = startOfDay(calendar, from); day.toMillis() < to; day = day.plus({ days: 1 })) {
    for (const [start, end] of spansOf(calendar, holidays, day)) {
      const overlap = Math.min(end, to) - Math.max(start, from);
      if (overlap > 0) total += overlap;
    }
  }
  return total;
}

/**
 * The instant `ms` of working time after `from` (from itself when ms <= 0); null when the
 * calendar has no working hours within three years.
 */
export function addWorking(calendar: SlaCalendar | null, from: number, ms: number): number | null {
  if (ms <= 0) return from;
  if (calendar === null) return from + ms;
  const holidays = new Set(calendar.holidays);
  let left = ms;
  let day = startOfDay(calendar, from);
  for (let i = 0; i < HORIZON_DAYS; i += 1, day = day.plus({ days: 1 })) {
    for (const [start, end] of spansOf(calendar, holidays, day)) {
      const begin = Math.max(start, from);
      if (begin >= end) continue;
      if (left <= end - begin) return begin + left;
      left -= end - begin;
    }
  }
  return null;
}

const TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;

/** Problems of a calendar as issues (path relative to the calendar); empty: valid. */
export function calendarIssues(calendar: SlaCalendar, path: string): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  if (!DateTime.now().setZone(calendar.timeZone).isValid) issues.push({ path: `${path}/timeZone`, message: "must be an IANA time zone such as Europe/Berlin" });
  calendar.hours.forEach((hours, i) => {
    if (!Number.isInteger(hours.day) || hours.day < 1 || hours.day > 7) issues.push({ path: `${path}/hours/${i}/day`, message: "must be 1 (Monday) to 7 (Sunday)" });
    if (!TIME.test(hours.start) || hours.start === "24:00") issues.push({ path: `${path}/hours/${i}/start`, message: "must be a time HH:MM from 00:00 to 23:59" });
    else if (!TIME.test(hours.end)) issues.push({ path: `${path}/hours/${i}/end`, message: "must be a time HH:MM from 00:01 to 24:00" });
    else if (minutesOf(hours.end) <= minutesOf(hours.start)) issues.push({ path: `${path}/hours/${i}/end`, message: "must be after start" });
    else {
      const overlapping = calendar.hours.findIndex(
        (other, j) => j < i && other.day === hours.day && TIME.test(other.start) && TIME.test(other.end) && minutesOf(other.start) < minutesOf(hours.end) && minutesOf(hours.start) < minutesOf(other.end),
      );
      if (overlapping >= 0) issues.push({ path: `${path}/hours/${i}`, message: `overlaps hours ${overlapping} of the same day` });
    }
  });
  const seen = new Set<string>();
  calendar.holidays.forEach((date, i) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !DateTime.fromISO(date).isValid) issues.push({ path: `${path}/holidays/${i}`, message: "must be a date YYYY-MM-DD" });
    else if (seen.has(date)) issues.push({ path: `${path}/holidays/${i}`, message: "is given twice" });
    seen.add(date);
  });
  return issues;
}
