// Dates and ages as the console shows them, in the interface's language.
import { language } from "./i18n.ts";

const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });
const relative = new Intl.RelativeTimeFormat(language, { numeric: "auto", style: "short" });

export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

/** "45 min", "3 hr", "2 days": the time between now and `iso` (either way), in the largest unit that fits. */
export function formatDuration(iso: string, now = Date.now()): string {
  const minutes = Math.max(1, Math.round(Math.abs(new Date(iso).getTime() - now) / 60_000));
  const [unit, value]: [string, number] = minutes < 60 ? ["minute", minutes] : minutes < 48 * 60 ? ["hour", Math.round(minutes / 60)] : ["day", Math.round(minutes / 1440)];
  return new Intl.NumberFormat(language, { style: "unit", unit, unitDisplay: "short" }).format(value);
}

/** "5 min ago", "3 days ago": how long ago `iso` was, in the largest unit that fits. */
export function formatAge(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ["day", 86_400],
    ["hour", 3_600],
    ["minute", 60],
  ];
  for (const [unit, size] of steps) if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  return relative.format(0, "minute");
}
