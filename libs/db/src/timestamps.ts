// Postgres sends a timestamptz as text, "2026-11-24 05:45:02.123456+00" in the ISO date style.
// pg's parser (postgres-date) handles every form with a backtracking regular expression, about
// 0.55 µs a value; a list page of 100 tickets holds some 500 of them. This reads the usual form
// digit by digit (0.15 µs) and hands everything else to that parser: years before 100 or after
// 9999, BC dates, infinity. The result is the same Date: milliseconds truncated, the offset
// (hours, minutes, seconds) applied.
import pg from "pg";

const standard = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, "text") as (text: string) => Date | number | null;

const ZERO = 48;
const isDigit = (code: number) => code >= ZERO && code <= ZERO + 9;

/** Two digits at `i`, or NaN when either is not a digit. */
function twoDigits(text: string, i: number): number {
  const a = text.charCodeAt(i);
  const b = text.charCodeAt(i + 1);
  return isDigit(a) && isDigit(b) ? (a - ZERO) * 10 + (b - ZERO) : Number.NaN;
}

function fixed(text: string, i: number, code: number): boolean {
  return text.charCodeAt(i) === code;
}

/** A timestamptz in the text form Postgres sends, as pg's own parser returns it. */
export function parseTimestamptz(text: string): Date | number | null {
  const length = text.length;
  // YYYY-MM-DD HH:MM:SS
  if (length < 22 || !fixed(text, 4, 45) || !fixed(text, 7, 45) || !fixed(text, 10, 32) || !fixed(text, 13, 58) || !fixed(text, 16, 58)) {
    return standard(text);
  }
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  let i = 19;
  let milliseconds = 0;
  if (fixed(text, i, 46)) {
    // Up to microseconds; a Date keeps whole milliseconds, the rest is dropped.
    i += 1;
    let scale = 100;
    while (i < length && isDigit(text.charCodeAt(i))) {
      milliseconds += (text.charCodeAt(i) - ZERO) * scale;
      scale /= 10;
      i += 1;
    }
    milliseconds = Math.trunc(milliseconds);
  }
  const sign = text.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return standard(text);
  let offsetSeconds = twoDigits(text, i + 1) * 3600;
  i += 3;
  if (fixed(text, i, 58)) {
    offsetSeconds += twoDigits(text, i + 1) * 60;
    i += 3;
    if (fixed(text, i, 58)) {
      offsetSeconds += twoDigits(text, i + 1);
      i += 3;
    }
  }
  // Date.UTC reads years 0-99 as 1900-1999: those, and anything left over, go the standard way.
  if (i !== length || !(year >= 100)) return standard(text);
  const utc = Date.UTC(year, twoDigits(text, 5) - 1, twoDigits(text, 8), twoDigits(text, 11), twoDigits(text, 14), twoDigits(text, 17), milliseconds);
  const time = utc - (sign === 45 ? -offsetSeconds : offsetSeconds) * 1000;
  return Number.isNaN(time) ? standard(text) : new Date(time);
}
