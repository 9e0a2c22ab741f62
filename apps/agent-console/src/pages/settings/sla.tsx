// Settings → SLA (docs/automation.md, "SLA policies"): the company calendar (its time zone, the
// working hours of each day of the week, the holidays) and the SLA policies in the order they are
// tried (conditions by game, tier and tag; targets in minutes or hours; business hours or around
// the clock; paused while waiting for the player; a warning before). The page edits the whole
// document and saves it at once (PUT /agent-api/settings/sla): the API checks everything and names
// each problem by JSON pointer (/calendar/hours/3, /policies/1/targets/firstResponseMinutes),
// shown at that field; a refused save changes nothing.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, call } from "../../api.ts";
import { Alert, issuesByPart, RefusedAt } from "../../components/form.tsx";
import { Link } from "../../components/layout.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { games, loadDirectory } from "../../directory.ts";
import { formatDateTime } from "../../format.ts";
import { t } from "../../i18n.ts";
import type { MessageKey } from "../../messages/en.ts";

const DAYS = [1, 2, 3, 4, 5, 6, 7] as const;
const METRICS = ["firstResponseMinutes", "nextResponseMinutes", "resolutionMinutes"] as const;
type Metric = (typeof METRICS)[number];
type Unit = "minutes" | "hours";

interface Span {
  day: number;
  start: string;
  end: string;
}

interface Calendar {
  timeZone: string;
  hours: Span[];
  holidays?: string[];
}

interface Policy {
  id: string;
  name: string;
  gameIds?: string[];
  tiers?: number[];
  tags?: string[];
  targets: Partial<Record<Metric, number | null>>;
  businessHours?: boolean;
  pauseWhileWaiting?: boolean;
  warnBeforeMinutes?: number;
}

interface Settings {
  calendar: Calendar | null;
  policies: Policy[];
  updatedAt: string | null;
}

/** An amount of minutes as the form shows it: whole hours as hours, else minutes. */
interface Amount {
  value: string;
  unit: Unit;
}

interface PolicyDraft {
  /** The row's key in the page (a policy's id may be changed or still empty). */
  key: number;
  id: string;
  name: string;
  gameIds: string[];
  tiers: string;
  tags: string;
  targets: Record<Metric, Amount>;
  businessHours: boolean;
  pauseWhileWaiting: boolean;
  warnBefore: Amount;
}

interface Draft {
  useCalendar: boolean;
  timeZone: string;
  hours: Span[];
  holidays: string[];
  policies: PolicyDraft[];
}

let nextKey = 1;

const amountOf = (minutes: number | null | undefined): Amount =>
  minutes === null || minutes === undefined ? { value: "", unit: "minutes" } : minutes > 0 && minutes % 60 === 0 ? { value: String(minutes / 60), unit: "hours" } : { value: String(minutes), unit: "minutes" };

/** The minutes of an amount; an empty field is none (null); text that is no number goes as it is, for the API to refuse at its path. */
function minutesOf(amount: Amount): number | string | null {
  const text = amount.value.trim();
  if (text === "") return null;
  const number = Number(text);
  if (!Number.isFinite(number)) return text;
  return amount.unit === "hours" ? Math.round(number * 60) : number;
}

const list = (text: string) => text.split(",").map((item) => item.trim()).filter((item) => item !== "");

/** The browser's own zone, for a calendar started on this page. */
const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

const WEEKDAYS = (): Span[] => [1, 2, 3, 4, 5].map((day) => ({ day, start: "09:00", end: "17:00" }));

function policyDraft(policy?: Policy): PolicyDraft {
  return {
    key: nextKey++,
    id: policy?.id ?? "",
    name: policy?.name ?? "",
    gameIds: policy?.gameIds ?? [],
    tiers: (policy?.tiers ?? []).join(", "),
    tags: (policy?.tags ?? []).join(", "),
    targets: {
      firstResponseMinutes: amountOf(policy?.targets.firstResponseMinutes),
      nextResponseMinutes: amountOf(policy?.targets.nextResponseMinutes),
      resolutionMinutes: amountOf(policy?.targets.resolutionMinutes),
    },
    businessHours: policy?.businessHours ?? false,
    pauseWhileWaiting: policy?.pauseWhileWaiting ?? true,
    warnBefore: amountOf(policy?.warnBeforeMinutes ?? 0),
  };
}

function draftOf(settings: Settings): Draft {
  return {
    useCalendar: settings.calendar !== null,
    timeZone: settings.calendar?.timeZone ?? localZone(),
    hours: settings.calendar ? settings.calendar.hours.map((span) => ({ ...span })) : WEEKDAYS(),
    holidays: settings.calendar?.holidays ?? [],
    policies: settings.policies.map(policyDraft),
  };
}

/** A policy's key from its name (`VIP players` → `vip-players`), unlike the keys already taken. */
function keyFrom(name: string, taken: Set<string>): string {
  const base =
    name
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 56) || "policy";
  let key = base;
  for (let n = 2; taken.has(key); n += 1) key = `${base}-${n}`;
  return key;
}

/** The document as the API takes it; a policy without a key gets one from its name. */
function bodyOf(draft: Draft): { calendar: Calendar | null; policies: unknown[] } {
  const taken = new Set(draft.policies.map((policy) => policy.id.trim()).filter(Boolean));
  const policies = draft.policies.map((policy) => {
    let id = policy.id.trim();
    if (id === "") {
      id = keyFrom(policy.name, taken);
      taken.add(id);
    }
    const targets: Record<string, unknown> = {};
    for (const metric of METRICS) {
      const minutes = minutesOf(policy.targets[metric]);
      if (minutes !== null) targets[metric] = minutes;
    }
    return {
      id,
      name: policy.name.trim(),
      gameIds: policy.gameIds,
      tiers: list(policy.tiers).map((tier) => (/^\d+$/.test(tier) ? Number(tier) : tier)),
      tags: list(policy.tags),
      targets,
      businessHours: policy.businessHours,
      pauseWhileWaiting: policy.pauseWhileWaiting,
      warnBeforeMinutes: minutesOf(policy.warnBefore) ?? 0,
    };
  });
  const calendar = draft.useCalendar ? { timeZone: draft.timeZone, hours: draft.hours.map((span) => ({ day: span.day, start: span.start.trim(), end: span.end.trim() })), holidays: draft.holidays } : null;
  return { calendar, policies };
}

const POLICY_FIELDS = new Set(["id", "name", "gameIds", "tiers", "tags", "businessHours", "pauseWhileWaiting", "warnBeforeMinutes"]);

/**
 * The field a JSON pointer of a refusal belongs to: `calendar/timeZone`, `calendar/hours/3`,
 * `calendar/holidays/0`, `policies/1/targets/firstResponseMinutes`, `policies/1/tiers`,
 * `policies/1`; anything else is the form's.
 */
export function fieldOf(pointer: string): string {
  const parts = pointer.split("/").filter(Boolean);
  if (parts[0] === "calendar") {
    if (parts[1] === "timeZone") return "calendar/timeZone";
    if ((parts[1] === "hours" || parts[1] === "holidays") && parts[2] !== undefined) return `calendar/${parts[1]}/${parts[2]}`;
    if (parts[1] === "hours" || parts[1] === "holidays") return `calendar/${parts[1]}`;
    return "calendar";
  }
  if (parts[0] === "policies" && parts[1] !== undefined && /^\d+$/.test(parts[1])) {
    const at = `policies/${parts[1]}`;
    if (parts[2] === "targets") return parts[3] !== undefined && (METRICS as readonly string[]).includes(parts[3]) ? `${at}/targets/${parts[3]}` : `${at}/targets`;
    if (parts[2] !== undefined && POLICY_FIELDS.has(parts[2])) return `${at}/${parts[2]}`;
    return at;
  }
  if (parts[0] === "policies") return "policies";
  return "form";
}

type Errors = Record<string, string>;

/** The API names overlapping hours by their index in the list ("overlaps hours 4 of the same day"): the page says which hours those are. */
function messageOf(issue: { message?: string }, draft: Draft): string {
  const text = issue.message ?? "";
  const overlapping = /^overlaps hours (\d+) of the same day$/.exec(text);
  const other = overlapping ? draft.hours[Number(overlapping[1])] : undefined;
  return other ? t("slaSettings.overlaps", { start: other.start, end: other.end }) : text;
}

function errorsOf(issues: { path?: string; message?: string }[], draft: Draft): Errors {
  return issuesByPart(issues, fieldOf, (issue) => messageOf(issue, draft));
}

/** The attributes tying an input to its refusal. */
const invalid = (id: string, error: string | undefined, hint?: string) => ({
  "aria-invalid": error ? ("true" as const) : undefined,
  "aria-describedby": [hint ?? "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined,
});

function AmountField({ id, label, amount, error, onChange }: { id: string; label: string; amount: Amount; error: string | undefined; onChange: (amount: Amount) => void }) {
  return (
    <div class="field sla-amount">
      <label for={id}>{label}</label>
      <div class="sla-amount-inputs">
        <input id={id} type="text" inputMode="numeric" value={amount.value} {...invalid(id, error)} onInput={(event) => onChange({ ...amount, value: (event.currentTarget as HTMLInputElement).value })} />
        <select id={`${id}-unit`} aria-label={t("slaSettings.unitLabel", { field: label })} value={amount.unit} onChange={(event) => onChange({ ...amount, unit: (event.currentTarget as HTMLSelectElement).value as Unit })}>
          <option value="minutes">{t("slaSettings.minutes")}</option>
          <option value="hours">{t("slaSettings.hours")}</option>
        </select>
      </div>
      <RefusedAt id={`${id}-error`} error={error} />
    </div>
  );
}

function PolicyEditor({
  index,
  count,
  draft,
  errors,
  onChange,
  onMove,
  onRemove,
}: {
  index: number;
  count: number;
  draft: PolicyDraft;
  errors: Errors;
  onChange: (changes: Partial<PolicyDraft>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const id = `sla-policy-${draft.key}`;
  const at = `policies/${index}`;
  const number = index + 1;
  const title = draft.name.trim() || t("slaSettings.policyNumber", { number });
  const error = (field: string) => errors[`${at}/${field}`];
  const knownGames = games.value;
  const otherGames = draft.gameIds.filter((gameId) => !knownGames.some((game) => game.id === gameId));
  const text = (field: "id" | "name" | "tiers" | "tags", label: string, hint?: string) => (
    <div class="field">
      <label for={`${id}-${field}`}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-${field}-hint`}>
          {hint}
        </p>
      )}
      <input id={`${id}-${field}`} type="text" value={draft[field]} {...invalid(`${id}-${field}`, error(field), hint ? `${id}-${field}-hint` : undefined)} onInput={(event) => onChange({ [field]: (event.currentTarget as HTMLInputElement).value } as Partial<PolicyDraft>)} />
      <RefusedAt id={`${id}-${field}-error`} error={error(field)} />
    </div>
  );
  return (
    <li class="sla-policy">
      <fieldset class="rule-part" aria-invalid={errors[at] || error("targets") ? "true" : undefined} aria-describedby={errors[at] ? `${id}-error` : undefined}>
        <legend>{t("slaSettings.policyLegend", { number, name: title })}</legend>
        <div class="rule-part-fields">
          {text("name", t("slaSettings.name"))}
          {text("id", t("slaSettings.key"), t("slaSettings.keyHint"))}
        </div>
        <h4>{t("slaSettings.conditions")}</h4>
        <p class="hint">{t("slaSettings.conditionsHint")}</p>
        <fieldset class="sla-games" aria-invalid={error("gameIds") ? "true" : undefined} aria-describedby={error("gameIds") ? `${id}-gameIds-error` : undefined}>
          <legend>{t("slaSettings.games")}</legend>
          {knownGames.length === 0 && otherGames.length === 0 && <p class="hint">{t("slaSettings.noGames")}</p>}
          {[...knownGames.map((game) => ({ id: game.id, name: game.name })), ...otherGames.map((gameId) => ({ id: gameId, name: gameId }))].map((game) => (
            <div class="check" key={game.id}>
              <input
                id={`${id}-game-${game.id}`}
                type="checkbox"
                checked={draft.gameIds.includes(game.id)}
                onChange={(event) => {
                  const checked = (event.currentTarget as HTMLInputElement).checked;
                  onChange({ gameIds: checked ? [...draft.gameIds, game.id] : draft.gameIds.filter((gameId) => gameId !== game.id) });
                }}
              />
              <label for={`${id}-game-${game.id}`}>{game.name}</label>
            </div>
          ))}
          <RefusedAt id={`${id}-gameIds-error`} error={error("gameIds")} />
        </fieldset>
        <div class="rule-part-fields">
          {text("tiers", t("slaSettings.tiers"), t("slaSettings.tiersHint"))}
          {text("tags", t("slaSettings.tags"), t("slaSettings.tagsHint"))}
        </div>
        <h4>{t("slaSettings.targets")}</h4>
        <p class="hint">{t("slaSettings.targetsHint")}</p>
        <div class="rule-part-fields">
          {METRICS.map((metric) => (
            <AmountField key={metric} id={`${id}-${metric}`} label={t(`slaSettings.metric.${metric}` as MessageKey)} amount={draft.targets[metric]} error={error(`targets/${metric}`)} onChange={(amount) => onChange({ targets: { ...draft.targets, [metric]: amount } })} />
          ))}
        </div>
        <RefusedAt id={`${id}-targets-error`} error={error("targets")} />
        <div class="rule-part-fields">
          <div class="field">
            <label for={`${id}-count`}>{t("slaSettings.count")}</label>
            <select id={`${id}-count`} value={draft.businessHours ? "business" : "always"} {...invalid(`${id}-businessHours`, error("businessHours"))} onChange={(event) => onChange({ businessHours: (event.currentTarget as HTMLSelectElement).value === "business" })}>
              <option value="always">{t("slaSettings.aroundTheClock")}</option>
              <option value="business">{t("slaSettings.businessHours")}</option>
            </select>
            <RefusedAt id={`${id}-businessHours-error`} error={error("businessHours")} />
          </div>
          <AmountField id={`${id}-warn`} label={t("slaSettings.warnBefore")} amount={draft.warnBefore} error={error("warnBeforeMinutes")} onChange={(warnBefore) => onChange({ warnBefore })} />
        </div>
        <div class="check">
          <input id={`${id}-pause`} type="checkbox" checked={draft.pauseWhileWaiting} onChange={(event) => onChange({ pauseWhileWaiting: (event.currentTarget as HTMLInputElement).checked })} />
          <label for={`${id}-pause`}>{t("slaSettings.pauseWhileWaiting")}</label>
        </div>
        <RefusedAt id={`${id}-error`} error={errors[at]} />
        <div class="webhook-actions">
          <button type="button" id={`${id}-up`} class="button small" disabled={index === 0} onClick={() => onMove(-1)} aria-label={t("slaSettings.moveUpLabel", { name: title })}>
            {t("slaSettings.moveUp")}
          </button>
          <button type="button" id={`${id}-down`} class="button small" disabled={index === count - 1} onClick={() => onMove(1)} aria-label={t("slaSettings.moveDownLabel", { name: title })}>
            {t("slaSettings.moveDown")}
          </button>
          <button type="button" class="button small" onClick={onRemove} aria-label={t("slaSettings.removeLabel", { name: title })}>
            {t("slaSettings.remove")}
          </button>
        </div>
      </fieldset>
    </li>
  );
}

function CalendarEditor({ draft, errors, set }: { draft: Draft; errors: Errors; set: (changes: Partial<Draft>) => void }) {
  const [holiday, setHoliday] = useState("");
  const zones = (() => {
    const known = Intl.supportedValuesOf("timeZone");
    return known.includes(draft.timeZone) ? known : [draft.timeZone, ...known];
  })();
  const setSpan = (index: number, changes: Partial<Span>) => set({ hours: draft.hours.map((span, at) => (at === index ? { ...span, ...changes } : span)) });
  const addHoliday = () => {
    if (holiday === "" || draft.holidays.includes(holiday)) return;
    set({ holidays: [...draft.holidays, holiday].sort() });
    setHoliday("");
  };
  const zoneError = errors["calendar/timeZone"];
  return (
    <>
      <div class="field">
        <label for="sla-time-zone">{t("slaSettings.timeZone")}</label>
        <select id="sla-time-zone" value={draft.timeZone} {...invalid("sla-time-zone", zoneError)} onChange={(event) => set({ timeZone: (event.currentTarget as HTMLSelectElement).value })}>
          {zones.map((zone) => (
            <option key={zone} value={zone}>
              {zone}
            </option>
          ))}
        </select>
        <RefusedAt id="sla-time-zone-error" error={zoneError} />
      </div>
      <h3 id="sla-hours-title">{t("slaSettings.hoursTitle")}</h3>
      <p class="hint">{t("slaSettings.hoursHint")}</p>
      <RefusedAt id="sla-hours-error" error={errors["calendar/hours"]} />
      <ul class="sla-days" aria-labelledby="sla-hours-title">
        {DAYS.map((day) => {
          const dayName = t(`slaSettings.day.${day}` as MessageKey);
          const spans = draft.hours.map((span, index) => ({ span, index })).filter(({ span }) => span.day === day);
          return (
            <li key={day} class="sla-day">
              <span class="sla-day-name">{dayName}</span>
              <span class="sla-spans">
                {spans.length === 0 && <span class="hint">{t("slaSettings.dayOff")}</span>}
                {spans.map(({ span, index }) => {
                  const id = `sla-hours-${index}`;
                  const error = errors[`calendar/hours/${index}`];
                  return (
                    <span class="sla-span" key={index}>
                      <label class="visually-hidden" for={`${id}-start`}>
                        {t("slaSettings.startLabel", { day: dayName })}
                      </label>
                      <input id={`${id}-start`} type="text" inputMode="numeric" class="sla-time" placeholder="09:00" value={span.start} {...invalid(id, error)} onInput={(event) => setSpan(index, { start: (event.currentTarget as HTMLInputElement).value })} />
                      <span aria-hidden="true">–</span>
                      <label class="visually-hidden" for={`${id}-end`}>
                        {t("slaSettings.endLabel", { day: dayName })}
                      </label>
                      <input id={`${id}-end`} type="text" inputMode="numeric" class="sla-time" placeholder="17:00" value={span.end} {...invalid(id, error)} onInput={(event) => setSpan(index, { end: (event.currentTarget as HTMLInputElement).value })} />
                      <button type="button" class="button small" onClick={() => set({ hours: draft.hours.filter((_, at) => at !== index) })} aria-label={t("slaSettings.removeHoursLabel", { day: dayName, start: span.start, end: span.end })}>
                        {t("slaSettings.remove")}
                      </button>
                      <RefusedAt id={`${id}-error`} error={error} />
                    </span>
                  );
                })}
              </span>
              <button type="button" class="button small" onClick={() => set({ hours: [...draft.hours, { day, start: "09:00", end: "17:00" }] })} aria-label={t("slaSettings.addHoursLabel", { day: dayName })}>
                {t("slaSettings.addHours")}
              </button>
            </li>
          );
        })}
      </ul>
      <h3 id="sla-holidays-title">{t("slaSettings.holidaysTitle")}</h3>
      {draft.holidays.length === 0 ? (
        <p>{t("slaSettings.noHolidays")}</p>
      ) : (
        <ul class="sla-holidays" aria-labelledby="sla-holidays-title">
          {draft.holidays.map((date, index) => (
            <li key={date}>
              <time dateTime={date}>{date}</time>
              <button type="button" class="button small" onClick={() => set({ holidays: draft.holidays.filter((_, at) => at !== index) })} aria-label={t("slaSettings.removeHolidayLabel", { date })}>
                {t("slaSettings.remove")}
              </button>
              <RefusedAt id={`sla-holiday-${index}-error`} error={errors[`calendar/holidays/${index}`]} />
            </li>
          ))}
        </ul>
      )}
      <RefusedAt id="sla-holidays-error" error={errors["calendar/holidays"]} />
      <div class="rule-part-fields">
        <div class="field">
          <label for="sla-holiday">{t("slaSettings.holiday")}</label>
          <input id="sla-holiday" type="date" value={holiday} onInput={(event) => setHoliday((event.currentTarget as HTMLInputElement).value)} />
        </div>
        <button type="button" class="button small" onClick={addHoliday}>
          {t("slaSettings.addHoliday")}
        </button>
      </div>
    </>
  );
}

export function SlaSettingsPage() {
  const [draft, setDraft] = useState<Draft>();
  const [updatedAt, setUpdatedAt] = useState<string | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  /** The id of the control to focus once the page is drawn again (after a move or an added policy). */
  const focusNext = useRef<string | undefined>(undefined);

  useEffect(() => {
    call<Settings>("GET", "/settings/sla").then(
      ({ body }) => {
        setDraft(draftOf(body));
        setUpdatedAt(body.updatedAt);
      },
      () => setFailure(t("app.error")),
    );
    if (games.value.length === 0) void loadDirectory().catch(() => undefined);
  }, []);
  useEffect(() => {
    if (!focusNext.current) return;
    document.getElementById(focusNext.current)?.focus();
    focusNext.current = undefined;
  }, [draft]);

  const set = (changes: Partial<Draft>) => setDraft((current) => current && { ...current, ...changes });
  const setPolicy = (index: number, changes: Partial<PolicyDraft>) => setDraft((current) => current && { ...current, policies: current.policies.map((policy, at) => (at === index ? { ...policy, ...changes } : policy)) });
  const clear = () => {
    // The refusals name places by position: once the list changes they would point at the wrong policy.
    setErrors({});
    setNotice(undefined);
  };

  const addPolicy = () => {
    if (!draft) return;
    clear();
    const policy = policyDraft();
    focusNext.current = `sla-policy-${policy.key}-name`;
    set({ policies: [...draft.policies, policy] });
  };
  const move = (index: number, by: -1 | 1) => {
    if (!draft) return;
    const to = index + by;
    if (to < 0 || to >= draft.policies.length) return;
    clear();
    const policies = [...draft.policies];
    [policies[index], policies[to]] = [policies[to]!, policies[index]!];
    const moved = policies[to]!;
    const edge = to === 0 || to === policies.length - 1;
    // The focus stays with the moved policy; at the top or bottom its button in that direction is off.
    focusNext.current = `sla-policy-${moved.key}-${edge ? (by === -1 ? "down" : "up") : by === -1 ? "up" : "down"}`;
    set({ policies });
  };
  const remove = (index: number) => {
    if (!draft) return;
    clear();
    focusNext.current = "sla-add-policy";
    set({ policies: draft.policies.filter((_, at) => at !== index) });
  };

  async function save(event: Event) {
    event.preventDefault();
    if (!draft || busy) return;
    setFailure(undefined);
    setNotice(undefined);
    setErrors({});
    setBusy(true);
    try {
      const { body } = await call<Settings>("PUT", "/settings/sla", bodyOf(draft));
      setDraft(draftOf(body));
      setUpdatedAt(body.updatedAt);
      setNotice(t("slaSettings.saved", { count: body.policies.length }));
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) {
        const issues = caught.details?.issues ?? [];
        const found = issues.length > 0 ? errorsOf(issues, draft) : { form: caught.message };
        setErrors(found);
        setFailure(t("slaSettings.refusedSummary", { count: issues.length || 1 }));
      } else setFailure(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  return (
    <SettingsLayout title={t("slaSettings.title")}>
      <p class="hint">{t("slaSettings.intro")}</p>
      <p>
        <Link to="/settings/sla-report">{t("slaSettings.reportLink")}</Link>
      </p>
      {draft === undefined ? (
        failure ? <Alert>{failure}</Alert> : <p role="status">{t("app.loading")}</p>
      ) : (
        <form class="sla-form" onSubmit={save} noValidate aria-label={t("slaSettings.title")}>
          {updatedAt && <p class="hint">{t("slaSettings.updatedAt", { date: formatDateTime(updatedAt) })}</p>}
          <section aria-labelledby="sla-calendar-title">
            <h2 id="sla-calendar-title">{t("slaSettings.calendarTitle")}</h2>
            <div class="check">
              <input id="sla-use-calendar" type="checkbox" checked={draft.useCalendar} aria-describedby="sla-use-calendar-hint" onChange={(event) => set({ useCalendar: (event.currentTarget as HTMLInputElement).checked })} />
              <label for="sla-use-calendar">{t("slaSettings.useCalendar")}</label>
            </div>
            <p class="hint" id="sla-use-calendar-hint">
              {t("slaSettings.useCalendarHint")}
            </p>
            <RefusedAt id="sla-calendar-error" error={errors.calendar} />
            {draft.useCalendar && <CalendarEditor draft={draft} errors={errors} set={set} />}
          </section>
          <section aria-labelledby="sla-policies-title">
            <h2 id="sla-policies-title">{t("slaSettings.policiesTitle")}</h2>
            <p class="hint">{t("slaSettings.policiesHint")}</p>
            {draft.policies.length === 0 ? (
              <p>{t("slaSettings.noPolicies")}</p>
            ) : (
              <ol class="sla-policies" aria-labelledby="sla-policies-title">
                {draft.policies.map((policy, index) => (
                  <PolicyEditor
                    key={policy.key}
                    index={index}
                    count={draft.policies.length}
                    draft={policy}
                    errors={errors}
                    onChange={(changes) => setPolicy(index, changes)}
                    onMove={(by) => move(index, by)}
                    onRemove={() => remove(index)}
                  />
                ))}
              </ol>
            )}
            <RefusedAt id="sla-policies-error" error={errors.policies} />
            <button type="button" id="sla-add-policy" class="button small" onClick={addPolicy}>
              {t("slaSettings.addPolicy")}
            </button>
          </section>
          {errors.form && <Alert>{t("form.refused", { reason: errors.form })}</Alert>}
          {failure && <Alert>{failure}</Alert>}
          {notice && <Alert kind="success">{notice}</Alert>}
          <div class="form-actions">
            <button type="submit" class="button primary" disabled={busy}>
              {t("slaSettings.save")}
            </button>
          </div>
        </form>
      )}
    </SettingsLayout>
  );
}
