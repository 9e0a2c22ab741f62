// The company's automation rules (docs/automation.md, "Rules"): the list in the order they run,
// each with its on/off switch, moved up or down; a rule made or changed in a form (its trigger,
// its conditions and its actions, the common ones as fields (a canned response picked from the
// company's, a webhook call's URL), any other action as its JSON; the signing secret of the
// webhook calls below the form);
// deleted with a second click; and each rule's run history (the ticket, the outcome, the
// actions, the reason of a failure). The tickets service checks every rule: a refusal names its
// path (/trigger/hours, /conditions/1/matches, /actions/0/tagNames/2), shown at that part of the form.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, call } from "../../api.ts";
import { Alert, ConfirmDelete, Field, issuesByPart, RefusedAt } from "../../components/form.tsx";
import { Link } from "../../components/layout.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { games, loadDirectory } from "../../directory.ts";
import { formatDateTime } from "../../format.ts";
import { t } from "../../i18n.ts";
import type { MessageKey } from "../../messages/en.ts";
import { RuleSigningSecret } from "./rule-signing-secret.tsx";

const TRIGGERS = ["ticket_created", "player_message", "status_changed", "ticket_closed", "sla_warning", "sla_breached", "outbreak", "time"] as const;
type TriggerType = (typeof TRIGGERS)[number];
const STATUSES = ["new", "assigned", "unassigned", "waiting", "on_hold", "closed"] as const;
const OPEN_STATUSES = STATUSES.filter((status) => status !== "closed");
const CONDITIONS = ["game", "language", "tier", "channel", "status", "tags", "field", "metadata", "contains", "matches"] as const;
type ConditionKind = (typeof CONDITIONS)[number];
/** The actions the form has fields for; any other (setFields, setPlayerInfo, assignTicket) is edited as its JSON. */
const ACTIONS = [
  "addTags", "removeTags", "setStatus", "setOnHold", "sendMessage", "sendCannedResponse", "addPrivateNote", "resolveTicket", "rejectTicket", "unassignTicket", "callWebhook", "json",
] as const;
type ActionKind = (typeof ACTIONS)[number];


export interface Rule {
  id: string;
  name: string;
  enabled: boolean;
  position: number;
  trigger: { type: TriggerType; to?: string; status?: string; hours?: number };
  conditions: Record<string, unknown>[];
  actions: Record<string, unknown>[];
  /** `tenant_file`: a tenant file keeps the rule (its next apply sets it back to the file's version). */
  source: "console" | "tenant_file";
}

export interface RuleRun {
  id: string;
  ruleId: string;
  ruleName: string;
  ticketId: string;
  trigger: string;
  outcome: "applied" | "failed" | "loop_refused" | "depth_limit";
  depth: number;
  actions: { type: string }[];
  error: string | null;
  createdAt: string;
}

export const outcomeText = (outcome: string) => t(`rules.outcome.${outcome}` as MessageKey);
export const triggerText = (type: string) => t(`rules.trigger.${type}` as MessageKey);
export const actionText = (type: string) => t(`rules.action.${type}` as MessageKey);

interface ConditionDraft {
  kind: ConditionKind;
  not: boolean;
  key: string;
  /** The values, separated by commas (the text or pattern for contains and matches). */
  values: string;
}

interface ActionDraft {
  kind: ActionKind;
  /** Tag names separated by commas; the message; the status; the canned response's id; the URL; the JSON of another action. */
  value: string;
}

/** A canned response of the company, to pick for a sendCannedResponse action. */
interface CannedResponseChoice {
  id: string;
  name: string;
  gameId: string | null;
}

interface Draft {
  name: string;
  enabled: boolean;
  trigger: TriggerType;
  to: string;
  status: string;
  hours: string;
  conditions: ConditionDraft[];
  actions: ActionDraft[];
}

const list = (text: string) => text.split(",").map((item) => item.trim()).filter((item) => item !== "");

function conditionDraft(condition: Record<string, unknown>): ConditionDraft {
  const not = condition.not === true;
  const type = String(condition.type);
  if (type === "text") {
    return typeof condition.matches === "string" ? { kind: "matches", not, key: "", values: condition.matches } : { kind: "contains", not, key: "", values: String(condition.contains ?? "") };
  }
  const values = (type === "tags" ? (condition.any as unknown[]) : (condition.in as unknown[])) ?? [];
  const shown = type === "game" ? values.map((id) => games.value.find((game) => game.id === id)?.name ?? String(id)) : values.map(String);
  return { kind: type as ConditionKind, not, key: String(condition.key ?? ""), values: shown.join(", ") };
}

function actionDraft(stored: Record<string, unknown>): ActionDraft {
  // The service keeps a message's empty list of attachments (a rule's may have none).
  const { attachments, ...rest } = stored;
  const action = Array.isArray(attachments) && attachments.length === 0 ? rest : stored;
  const type = String(action.type);
  if (type === "addTags" || type === "removeTags") return { kind: type, value: (action.tagNames as string[]).join(", ") };
  if (type === "sendMessage" || type === "addPrivateNote") {
    if (Object.keys(action).every((key) => key === "type" || key === "message")) return { kind: type, value: String(action.message ?? "") };
  }
  if (type === "setStatus") return { kind: type, value: String(action.status ?? "waiting") };
  if (type === "sendCannedResponse") return { kind: type, value: String(action.cannedResponseId ?? "") };
  if (type === "callWebhook") return { kind: type, value: String(action.url ?? "") };
  if (type === "setOnHold" && action.onHold === true) return { kind: type, value: "" };
  if ((type === "resolveTicket" || type === "rejectTicket" || type === "unassignTicket") && Object.keys(action).length === 1) return { kind: type, value: "" };
  return { kind: "json", value: JSON.stringify(action) };
}

function draftOf(rule: Rule | undefined): Draft {
  if (!rule) return { name: "", enabled: true, trigger: "ticket_created", to: "", status: "waiting", hours: "48", conditions: [], actions: [{ kind: "addTags", value: "" }] };
  return {
    name: rule.name,
    enabled: rule.enabled,
    trigger: rule.trigger.type,
    to: rule.trigger.to ?? "",
    status: rule.trigger.status ?? "waiting",
    hours: String(rule.trigger.hours ?? 48),
    conditions: rule.conditions.map(conditionDraft),
    actions: rule.actions.map(actionDraft),
  };
}

/** The condition as the API takes it; a game is named by its name or its id. */
function conditionBody(draft: ConditionDraft): Record<string, unknown> {
  const not = draft.not ? { not: true } : {};
  if (draft.kind === "contains") return { type: "text", contains: draft.values, ...not };
  if (draft.kind === "matches") return { type: "text", matches: draft.values, ...not };
  const values = list(draft.values);
  if (draft.kind === "tags") return { type: "tags", any: values, ...not };
  if (draft.kind === "tier") return { type: "tier", in: values.map((value) => (/^\d+$/.test(value) ? Number(value) : value)), ...not };
  if (draft.kind === "game") {
    const ids = values.map((value) => games.value.find((game) => game.name.toLowerCase() === value.toLowerCase())?.id ?? value);
    return { type: "game", in: ids, ...not };
  }
  if (draft.kind === "field" || draft.kind === "metadata") return { type: draft.kind, key: draft.key.trim(), in: values, ...not };
  return { type: draft.kind, in: values, ...not };
}

/** The action as the API takes it, or undefined for JSON that does not read as an object. */
function actionBody(draft: ActionDraft): Record<string, unknown> | undefined {
  switch (draft.kind) {
    case "addTags":
    case "removeTags":
      return { type: draft.kind, tagNames: list(draft.value) };
    case "sendMessage":
    case "addPrivateNote":
      return { type: draft.kind, message: draft.value };
    case "setStatus":
      return { type: "setStatus", status: draft.value || "waiting" };
    case "setOnHold":
      return { type: "setOnHold", onHold: true };
    case "sendCannedResponse":
      return { type: "sendCannedResponse", cannedResponseId: draft.value };
    case "callWebhook":
      return { type: "callWebhook", url: draft.value.trim() };
    case "resolveTicket":
    case "rejectTicket":
    case "unassignTicket":
      return { type: draft.kind };
    case "json":
      try {
        const parsed: unknown = JSON.parse(draft.value);
        return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
  }
}

function triggerBody(draft: Draft): Rule["trigger"] {
  if (draft.trigger === "status_changed") return draft.to ? { type: "status_changed", to: draft.to } : { type: "status_changed" };
  if (draft.trigger === "time") return { type: "time", status: draft.status, hours: Number(draft.hours) };
  return { type: draft.trigger };
}

/** The errors of a refused rule, by the part of the form they belong to ("name", "trigger", "conditions/1", "actions/0"). */
type DraftErrors = Record<string, string>;

function errorsOf(issues: { path?: string; message?: string }[]): DraftErrors {
  return issuesByPart(issues, (path) => {
    const parts = path.split("/").filter(Boolean);
    if (parts[0] === "conditions" || parts[0] === "actions") return parts[1] === undefined ? parts[0] : `${parts[0]}/${parts[1]}`;
    return parts[0] === "trigger" || parts[0] === "name" ? parts[0] : "form";
  });
}

function ConditionRow({ index, draft, error, onChange, onRemove }: { index: number; draft: ConditionDraft; error: string | undefined; onChange: (changes: Partial<ConditionDraft>) => void; onRemove: () => void }) {
  const id = `rule-condition-${index}`;
  const keyed = draft.kind === "field" || draft.kind === "metadata";
  const number = index + 1;
  return (
    <fieldset class="rule-part" aria-invalid={error ? "true" : undefined} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{t("rules.conditionNumber", { number })}</legend>
      <div class="rule-part-fields">
        <div class="field">
          <label for={`${id}-type`}>{t("rules.conditionType")}</label>
          <select id={`${id}-type`} value={draft.kind} onChange={(event) => onChange({ kind: (event.currentTarget as HTMLSelectElement).value as ConditionKind })}>
            {CONDITIONS.map((kind) => (
              <option key={kind} value={kind}>
                {t(`rules.condition.${kind}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
        {keyed && (
          <div class="field">
            <label for={`${id}-key`}>{t("rules.conditionKey")}</label>
            <input id={`${id}-key`} type="text" value={draft.key} onInput={(event) => onChange({ key: (event.currentTarget as HTMLInputElement).value })} />
          </div>
        )}
        <div class="field">
          <label for={`${id}-values`}>{draft.kind === "contains" ? t("rules.conditionText") : draft.kind === "matches" ? t("rules.conditionPattern") : t("rules.conditionValues")}</label>
          <p class="hint" id={`${id}-hint`}>
            {t(`rules.conditionHint.${draft.kind}` as MessageKey)}
          </p>
          <input id={`${id}-values`} type="text" value={draft.values} aria-describedby={`${id}-hint`} onInput={(event) => onChange({ values: (event.currentTarget as HTMLInputElement).value })} />
        </div>
        <div class="check">
          <input id={`${id}-not`} type="checkbox" checked={draft.not} onChange={(event) => onChange({ not: (event.currentTarget as HTMLInputElement).checked })} />
          <label for={`${id}-not`}>{t("rules.conditionNot")}</label>
        </div>
        <button type="button" class="button small" onClick={onRemove} aria-label={t("rules.removeConditionLabel", { number })}>
          {t("rules.remove")}
        </button>
      </div>
      <RefusedAt id={`${id}-error`} error={error} />
    </fieldset>
  );
}

function ActionRow({ index, draft, error, canned, onChange, onRemove }: {
  index: number;
  draft: ActionDraft;
  error: string | undefined;
  /** The company's canned responses; undefined while they load. */
  canned: CannedResponseChoice[] | undefined;
  onChange: (changes: Partial<ActionDraft>) => void;
  onRemove: () => void;
}) {
  const id = `rule-action-${index}`;
  const number = index + 1;
  const valueField = () => {
    if (draft.kind === "sendCannedResponse") {
      const gameName = (gameId: string | null) => (gameId === null ? t("rules.cannedEveryGame") : (games.value.find((game) => game.id === gameId)?.name ?? gameId));
      // A response deleted since the rule was saved stays selected, as what it is.
      const known = draft.value === "" || (canned?.some((response) => response.id === draft.value) ?? true);
      return (
        <div class="field">
          <label for={`${id}-value`}>{t("rules.actionCanned")}</label>
          <p class="hint" id={`${id}-hint`}>
            {t("rules.actionCannedHint")}
          </p>
          <select id={`${id}-value`} value={draft.value} aria-describedby={`${id}-hint`} onChange={(event) => onChange({ value: (event.currentTarget as HTMLSelectElement).value })}>
            <option value="">{canned === undefined ? t("app.loading") : t("rules.cannedPick")}</option>
            {!known && <option value={draft.value}>{t("rules.cannedGone")}</option>}
            {(canned ?? []).map((response) => (
              <option key={response.id} value={response.id}>
                {t("rules.cannedOption", { name: response.name, game: gameName(response.gameId) })}
              </option>
            ))}
          </select>
        </div>
      );
    }
    if (draft.kind === "callWebhook") {
      return (
        <div class="field">
          <label for={`${id}-value`}>{t("rules.actionUrl")}</label>
          <p class="hint" id={`${id}-hint`}>
            {t("rules.actionUrlHint")}
          </p>
          <input id={`${id}-value`} type="url" inputMode="url" value={draft.value} aria-describedby={`${id}-hint`} onInput={(event) => onChange({ value: (event.currentTarget as HTMLInputElement).value })} />
        </div>
      );
    }
    if (draft.kind === "addTags" || draft.kind === "removeTags") {
      return (
        <div class="field">
          <label for={`${id}-value`}>{t("rules.actionTags")}</label>
          <p class="hint" id={`${id}-hint`}>
            {t("rules.actionTagsHint")}
          </p>
          <input id={`${id}-value`} type="text" value={draft.value} aria-describedby={`${id}-hint`} onInput={(event) => onChange({ value: (event.currentTarget as HTMLInputElement).value })} />
        </div>
      );
    }
    if (draft.kind === "sendMessage" || draft.kind === "addPrivateNote" || draft.kind === "json") {
      return (
        <div class="field">
          <label for={`${id}-value`}>{draft.kind === "json" ? t("rules.actionJson") : t("rules.actionMessage")}</label>
          {draft.kind === "json" && (
            <p class="hint" id={`${id}-hint`}>
              {t("rules.actionJsonHint")}
            </p>
          )}
          <textarea
            id={`${id}-value`}
            rows={2}
            value={draft.value}
            aria-describedby={draft.kind === "json" ? `${id}-hint` : undefined}
            onInput={(event) => onChange({ value: (event.currentTarget as HTMLTextAreaElement).value })}
          />
        </div>
      );
    }
    if (draft.kind === "setStatus") {
      return (
        <div class="field">
          <label for={`${id}-value`}>{t("rules.actionStatus")}</label>
          <select id={`${id}-value`} value={draft.value || "waiting"} onChange={(event) => onChange({ value: (event.currentTarget as HTMLSelectElement).value })}>
            <option value="waiting">{t("status.waiting")}</option>
            <option value="assigned">{t("status.assigned")}</option>
          </select>
        </div>
      );
    }
    return null;
  };
  return (
    <fieldset class="rule-part" aria-invalid={error ? "true" : undefined} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{t("rules.actionNumber", { number })}</legend>
      <div class="rule-part-fields">
        <div class="field">
          <label for={`${id}-type`}>{t("rules.actionType")}</label>
          <select
            id={`${id}-type`}
            value={draft.kind}
            onChange={(event) => {
              const kind = (event.currentTarget as HTMLSelectElement).value as ActionKind;
              onChange({ kind, value: kind === "setStatus" ? "waiting" : kind === draft.kind ? draft.value : "" });
            }}
          >
            {ACTIONS.map((kind) => (
              <option key={kind} value={kind}>
                {actionText(kind)}
              </option>
            ))}
          </select>
        </div>
        {valueField()}
        <button type="button" class="button small" onClick={onRemove} aria-label={t("rules.removeActionLabel", { number })}>
          {t("rules.remove")}
        </button>
      </div>
      <RefusedAt id={`${id}-error`} error={error} />
    </fieldset>
  );
}

function RuleForm({ editing, onSaved, onCancel }: { editing: Rule | undefined; onSaved: (rule: Rule) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(editing));
  const [errors, setErrors] = useState<DraftErrors>({});
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const set = (changes: Partial<Draft>) => setDraft((current) => ({ ...current, ...changes }));
  const setCondition = (index: number, changes: Partial<ConditionDraft>) => set({ conditions: draft.conditions.map((item, at) => (at === index ? { ...item, ...changes } : item)) });
  const setAction = (index: number, changes: Partial<ActionDraft>) => set({ actions: draft.actions.map((item, at) => (at === index ? { ...item, ...changes } : item)) });
  const [canned, setCanned] = useState<CannedResponseChoice[]>();
  useEffect(() => {
    let current = true;
    call<{ responses: CannedResponseChoice[] }>("GET", "/canned-responses").then(
      ({ body }) => current && setCanned(body.responses),
      () => current && setCanned([]),
    );
    return () => {
      current = false;
    };
  }, []);

  async function submit(event: Event) {
    event.preventDefault();
    setFailure(undefined);
    const found: DraftErrors = {};
    if (draft.name.trim() === "") found.name = t("rules.nameMissing");
    if (draft.actions.length === 0) found.actions = t("rules.actionsMissing");
    const actions = draft.actions.map(actionBody);
    actions.forEach((action, index) => {
      if (action === undefined) found[`actions/${index}`] = t("rules.jsonInvalid");
    });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    const body = { name: draft.name.trim(), enabled: draft.enabled, trigger: triggerBody(draft), conditions: draft.conditions.map(conditionBody), actions };
    try {
      const { body: rule } = editing ? await call<Rule>("PATCH", `/settings/rules/${editing.id}`, body) : await call<Rule>("POST", "/settings/rules", body);
      onSaved(rule);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) {
        const issues = caught.details?.issues ?? [];
        setErrors(issues.length > 0 ? errorsOf(issues) : { form: caught.message });
      } else if (caught instanceof ApiError && caught.status === 404) setFailure(t("rules.gone"));
      else setFailure(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="rule-form" onSubmit={submit} noValidate aria-labelledby="rule-form-title">
      <h2 id="rule-form-title">{editing ? t("rules.editTitle", { name: editing.name }) : t("rules.newTitle")}</h2>
      {editing?.source === "tenant_file" && <p class="hint">{t("rules.fromTenantFileNote")}</p>}
      {failure && <Alert>{failure}</Alert>}
      {errors.form && <Alert>{t("form.refused", { reason: errors.form })}</Alert>}
      <Field id="rule-name" label={t("rules.name")} value={draft.name} onInput={(name) => set({ name })} autoFocus={editing !== undefined} error={errors.name && (errors.name === t("rules.nameMissing") ? errors.name : t("form.refused", { reason: errors.name }))} />
      <div class="check">
        <input id="rule-enabled" type="checkbox" checked={draft.enabled} onChange={(event) => set({ enabled: (event.currentTarget as HTMLInputElement).checked })} />
        <label for="rule-enabled">{t("rules.enabled")}</label>
      </div>
      <fieldset class="rule-trigger" aria-invalid={errors.trigger ? "true" : undefined} aria-describedby={errors.trigger ? "rule-trigger-error" : undefined}>
        <legend>{t("rules.when")}</legend>
        <div class="rule-part-fields">
          <div class="field">
            <label for="rule-trigger">{t("rules.trigger")}</label>
            <select id="rule-trigger" value={draft.trigger} onChange={(event) => set({ trigger: (event.currentTarget as HTMLSelectElement).value as TriggerType })}>
              {TRIGGERS.map((type) => (
                <option key={type} value={type}>
                  {triggerText(type)}
                </option>
              ))}
            </select>
          </div>
          {draft.trigger === "status_changed" && (
            <div class="field">
              <label for="rule-trigger-to">{t("rules.triggerTo")}</label>
              <select id="rule-trigger-to" value={draft.to} onChange={(event) => set({ to: (event.currentTarget as HTMLSelectElement).value })}>
                <option value="">{t("rules.anyStatus")}</option>
                {STATUSES.map((status) => (
                  <option key={status} value={status}>
                    {t(`status.${status}` as MessageKey)}
                  </option>
                ))}
              </select>
            </div>
          )}
          {draft.trigger === "time" && (
            <>
              <div class="field">
                <label for="rule-trigger-status">{t("rules.triggerStatus")}</label>
                <select id="rule-trigger-status" value={draft.status} onChange={(event) => set({ status: (event.currentTarget as HTMLSelectElement).value })}>
                  {OPEN_STATUSES.map((status) => (
                    <option key={status} value={status}>
                      {t(`status.${status}` as MessageKey)}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field">
                <label for="rule-trigger-hours">{t("rules.triggerHours")}</label>
                <input id="rule-trigger-hours" type="number" min="0" step="any" inputMode="numeric" value={draft.hours} onInput={(event) => set({ hours: (event.currentTarget as HTMLInputElement).value })} />
              </div>
            </>
          )}
        </div>
        <p class="hint">{t(`rules.triggerHint.${draft.trigger}` as MessageKey)}</p>
        <RefusedAt id="rule-trigger-error" error={errors.trigger} />
      </fieldset>
      <h3>{t("rules.ifTitle")}</h3>
      {draft.conditions.length === 0 && <p class="hint">{t("rules.conditionsHint")}</p>}
      {draft.conditions.map((condition, index) => (
        <ConditionRow
          key={index}
          index={index}
          draft={condition}
          error={errors[`conditions/${index}`]}
          onChange={(changes) => setCondition(index, changes)}
          onRemove={() => set({ conditions: draft.conditions.filter((_, at) => at !== index) })}
        />
      ))}
      {errors.conditions && <p class="field-error">{t("form.refused", { reason: errors.conditions })}</p>}
      <button type="button" class="button small" onClick={() => set({ conditions: [...draft.conditions, { kind: "contains", not: false, key: "", values: "" }] })}>
        {t("rules.addCondition")}
      </button>
      <h3>{t("rules.thenTitle")}</h3>
      {draft.actions.map((action, index) => (
        <ActionRow
          key={index}
          index={index}
          draft={action}
          error={errors[`actions/${index}`]}
          canned={canned}
          onChange={(changes) => setAction(index, changes)}
          onRemove={() => set({ actions: draft.actions.filter((_, at) => at !== index) })}
        />
      ))}
      {errors.actions && <p class="field-error">{errors.actions === t("rules.actionsMissing") ? errors.actions : t("form.refused", { reason: errors.actions })}</p>}
      <button type="button" class="button small" onClick={() => set({ actions: [...draft.actions, { kind: "addPrivateNote", value: "" }] })}>
        {t("rules.addAction")}
      </button>
      <div class="form-actions">
        <button type="submit" class="button primary" disabled={busy}>
          {editing ? t("rules.save") : t("rules.create")}
        </button>
        {editing && (
          <button type="button" class="button" onClick={onCancel}>
            {t("rules.cancel")}
          </button>
        )}
      </div>
    </form>
  );
}

/** A rule's runs, newest first (the last 50). */
function RunHistory({ rule }: { rule: Rule }) {
  const [runs, setRuns] = useState<RuleRun[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let current = true;
    setRuns(undefined);
    call<{ runs: RuleRun[] }>("GET", `/settings/rule-runs?ruleId=${rule.id}&limit=50`).then(
      ({ body }) => current && setRuns(body.runs),
      () => current && setError(t("app.error")),
    );
    return () => {
      current = false;
    };
  }, [rule.id]);
  return (
    <section class="rule-runs" aria-labelledby="rule-runs-title">
      <h2 id="rule-runs-title">{t("rules.runsTitle", { name: rule.name })}</h2>
      {error && <Alert>{error}</Alert>}
      {runs === undefined ? (
        !error && <p role="status">{t("app.loading")}</p>
      ) : runs.length === 0 ? (
        <p>{t("rules.noRuns")}</p>
      ) : (
        <table class="settings-table rule-runs-table" aria-labelledby="rule-runs-title">
          <thead>
            <tr>
              <th scope="col">{t("rules.runTime")}</th>
              <th scope="col">{t("rules.runTicket")}</th>
              <th scope="col">{t("rules.trigger")}</th>
              <th scope="col">{t("rules.runOutcome")}</th>
              <th scope="col">{t("rules.runActions")}</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.id}>
                <th scope="row">
                  <time dateTime={run.createdAt}>{formatDateTime(run.createdAt)}</time>
                </th>
                <td>
                  <Link to={`/tickets/${run.ticketId}`}>{t("rules.runTicketLink", { id: run.ticketId.slice(0, 8) })}</Link>
                </td>
                <td>{triggerText(run.trigger)}</td>
                <td>
                  <span class={`rule-outcome rule-outcome-${run.outcome}`}>{outcomeText(run.outcome)}</span>
                  {run.depth > 0 && <span class="hint"> {t("rules.runDepth", { depth: run.depth })}</span>}
                  {run.error && <span class="rule-run-error">{run.error}</span>}
                </td>
                <td>{run.actions.map((action) => actionText(action.type)).join(", ") || "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** One line of what a rule does, for the list: "When a ticket is created · 2 conditions · Add tags, Add a private note". */
function summary(rule: Rule): string {
  const when = rule.trigger.type === "time" ? t("rules.summaryTime", { status: t(`status.${rule.trigger.status}` as MessageKey), hours: rule.trigger.hours ?? 0 }) : triggerText(rule.trigger.type);
  const to = rule.trigger.type === "status_changed" && rule.trigger.to ? ` → ${t(`status.${rule.trigger.to}` as MessageKey)}` : "";
  return [when + to, t("rules.summaryConditions", { count: rule.conditions.length }), rule.actions.map((action) => actionText(String(action.type))).join(", ")].join(" · ");
}

export function RulesPage() {
  const [rules, setRules] = useState<Rule[]>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [editing, setEditing] = useState<Rule>();
  const [confirming, setConfirming] = useState<string>();
  const [historyOf, setHistoryOf] = useState<string>();
  const [formKey, setFormKey] = useState(0);
  const moved = useRef<string | undefined>(undefined);

  const load = () =>
    call<{ rules: Rule[] }>("GET", "/settings/rules").then(
      ({ body }) => setRules(body.rules),
      () => setError(t("app.error")),
    );
  useEffect(() => {
    void load();
    if (games.value.length === 0) void loadDirectory().catch(() => undefined);
  }, []);
  // After a move, the focus stays on the moved rule's button (its row was drawn anew).
  useEffect(() => {
    if (!moved.current) return;
    document.getElementById(moved.current)?.focus();
    moved.current = undefined;
  }, [rules]);

  const act = async (work: () => Promise<void>) => {
    setError(undefined);
    setNotice(undefined);
    try {
      await work();
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 404 ? t("rules.gone") : t("app.error"));
      await load();
    }
  };

  const saved = async (rule: Rule) => {
    setEditing(undefined);
    setFormKey((key) => key + 1);
    setNotice(t("rules.savedNotice", { name: rule.name }));
    await load();
  };

  const toggle = (rule: Rule, enabled: boolean) =>
    act(async () => {
      // The switch shows the new state at once; a failure reads the list again.
      setRules((shown) => shown?.map((item) => (item.id === rule.id ? { ...item, enabled } : item)));
      await call("PATCH", `/settings/rules/${rule.id}`, { enabled });
      setNotice(t(enabled ? "rules.enabledNotice" : "rules.disabledNotice", { name: rule.name }));
      await load();
    });

  const move = (rule: Rule, by: -1 | 1) =>
    act(async () => {
      const ids = (rules ?? []).map((item) => item.id);
      const from = ids.indexOf(rule.id);
      const to = from + by;
      if (to < 0 || to >= ids.length) return;
      [ids[from], ids[to]] = [ids[to]!, ids[from]!];
      const { body } = await call<{ rules: Rule[] }>("PUT", "/settings/rule-order", { ruleIds: ids });
      const edge = (by === -1 && to === 0) || (by === 1 && to === ids.length - 1);
      moved.current = `rule-${rule.id}-${edge ? (by === -1 ? "down" : "up") : by === -1 ? "up" : "down"}`;
      setNotice(t("rules.movedNotice", { name: rule.name, position: to + 1 }));
      setRules(body.rules);
    });

  const remove = (rule: Rule) =>
    act(async () => {
      await call("DELETE", `/settings/rules/${rule.id}`);
      setConfirming(undefined);
      if (historyOf === rule.id) setHistoryOf(undefined);
      if (editing?.id === rule.id) setEditing(undefined);
      setNotice(t("rules.deletedNotice", { name: rule.name }));
      await load();
    });

  const shownHistory = rules?.find((rule) => rule.id === historyOf);
  return (
    <SettingsLayout title={t("settings.rules")}>
      <p class="hint">{t("rules.intro")}</p>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      <h2 id="rules-title">{t("rules.listTitle")}</h2>
      {rules === undefined ? (
        !error && <p role="status">{t("app.loading")}</p>
      ) : rules.length === 0 ? (
        <p>{t("rules.none")}</p>
      ) : (
        <ol class="rules-list" aria-labelledby="rules-title">
          {rules.map((rule, index) => (
            <li key={rule.id} class={`rule-item${rule.enabled ? "" : " revoked"}`}>
              <div class="rule-head">
                <span class="rule-position">{rule.position}.</span>
                <strong class="rule-name">{rule.name}</strong>
                {rule.source === "tenant_file" && <span class="badge">{t("rules.fromTenantFile")}</span>}
                <label class="switch">
                  <input type="checkbox" role="switch" checked={rule.enabled} onChange={(event) => void toggle(rule, (event.currentTarget as HTMLInputElement).checked)} aria-label={t("rules.enabledLabel", { name: rule.name })} />
                  <span>{rule.enabled ? t("rules.on") : t("rules.off")}</span>
                </label>
              </div>
              <p class="rule-summary">{summary(rule)}</p>
              <div class="webhook-actions">
                <button type="button" id={`rule-${rule.id}-up`} class="button small" disabled={index === 0} onClick={() => void move(rule, -1)} aria-label={t("rules.moveUpLabel", { name: rule.name })}>
                  {t("rules.moveUp")}
                </button>
                <button type="button" id={`rule-${rule.id}-down`} class="button small" disabled={index === rules.length - 1} onClick={() => void move(rule, 1)} aria-label={t("rules.moveDownLabel", { name: rule.name })}>
                  {t("rules.moveDown")}
                </button>
                <button type="button" class="button small" onClick={() => setEditing(rule)} aria-label={t("rules.editLabel", { name: rule.name })}>
                  {t("rules.edit")}
                </button>
                <button type="button" class="button small" aria-pressed={historyOf === rule.id} onClick={() => setHistoryOf(historyOf === rule.id ? undefined : rule.id)} aria-label={t("rules.historyLabel", { name: rule.name })}>
                  {t("rules.history")}
                </button>
                {confirming === rule.id ? (
                  <ConfirmDelete label={t("rules.deleteConfirmLabel", { name: rule.name })} confirmText={t("rules.deleteConfirm")} cancelText={t("rules.cancel")} onConfirm={() => void remove(rule)} onCancel={() => setConfirming(undefined)} />
                ) : (
                  <button type="button" class="button small" onClick={() => setConfirming(rule.id)} aria-label={t("rules.deleteLabel", { name: rule.name })}>
                    {t("rules.delete")}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ol>
      )}
      {shownHistory && <RunHistory rule={shownHistory} />}
      <RuleForm key={editing?.id ?? `new-${formKey}`} editing={editing} onSaved={(rule) => void saved(rule)} onCancel={() => setEditing(undefined)} />
      <RuleSigningSecret />
    </SettingsLayout>
  );
}
