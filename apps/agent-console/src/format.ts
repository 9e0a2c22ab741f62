// Dates and ages as the console shows them, in the interface's language.
import { language } from "./i18n.ts";

const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });
const relative = new Intl.RelativeTimeFormat(language, { numeric: "auto", style: "short" });

export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
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
