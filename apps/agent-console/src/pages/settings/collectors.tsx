// The company's collectors (the forms players fill in on the web support page), by game: create
// one with a form builder (fields of eight types added, removed, reordered, labelled, required,
// with options), change it, retire it (a second click confirms; results players submitted stay
// on their tickets) and choose the game's contact form. Beside the builder, a live preview drawn
// with the web support page's own component and stylesheet (@support/collector-form).
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import { CollectorFieldset, CollectorLabel, type CollectorFieldValue, type CollectorFormField } from "@support/collector-form";
import { ApiError, call } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { games, loadDirectory } from "../../directory.ts";
import { t } from "../../i18n.ts";
import type { MessageKey } from "../../messages/en.ts";

type FieldType = CollectorFormField["type"];
const FIELD_TYPES: FieldType[] = ["TEXT", "EMAIL", "DATE", "DROPDOWN", "SELECT_GROUP", "CHECKBOX", "PLATFORM_SELECTOR", "FILE"];
const WITH_OPTIONS: ReadonlySet<FieldType> = new Set(["SELECT_GROUP", "DROPDOWN", "PLATFORM_SELECTOR"]);
const NEEDS_OPTIONS: ReadonlySet<FieldType> = new Set(["SELECT_GROUP", "DROPDOWN"]);
const KEY = /^[A-Za-z0-9_-]{1,64}$/;

interface SettingsCollectorField {
  key: string;
  label: string;
  type: FieldType;
  options: string[];
  required: boolean;
}

interface SettingsCollector {
  id: string;
  gameId: string;
  ref: string;
  title: string;
  contactForm: boolean;
  fields: SettingsCollectorField[];
}

/** A field in the builder: options as typed (one a line); `keyEdited` stops deriving the key from the label. */
interface DraftField {
  id: number;
  key: string;
  keyEdited: boolean;
  label: string;
  type: FieldType;
  options: string;
  required: boolean;
}

interface FieldErrors {
  key?: string;
  label?: string;
  options?: string;
}

let nextDraftId = 1;

function keyOf(label: string): string {
  return (
    label
      .normalize("NFKD")
      .replace(/[^A-Za-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .toLowerCase()
      .slice(0, 64) || ""
  );
}

function draftOf(field?: SettingsCollectorField): DraftField {
  return {
    id: nextDraftId++,
    key: field?.key ?? "",
    keyEdited: field !== undefined,
    label: field?.label ?? "",
    type: field?.type ?? "TEXT",
    options: field?.options.join("\n") ?? "",
    required: field?.required ?? false,
  };
}

const optionList = (draft: DraftField) => (WITH_OPTIONS.has(draft.type) ? draft.options.split("\n").map((option) => option.trim()).filter(Boolean) : []);

function fieldOf(draft: DraftField): SettingsCollectorField {
  return { key: draft.key, label: draft.label.trim(), type: draft.type, options: optionList(draft), required: draft.required };
}

function checkDrafts(drafts: DraftField[]): FieldErrors[] {
  const seen = new Set<string>();
  return drafts.map((draft) => {
    const errors: FieldErrors = {};
    if (draft.label.trim() === "") errors.label = t("collectors.labelMissing");
    if (!KEY.test(draft.key)) errors.key = t("collectors.keyInvalid");
    else if (seen.has(draft.key)) errors.key = t("collectors.keyTaken");
    seen.add(draft.key);
    const options = optionList(draft);
    if (NEEDS_OPTIONS.has(draft.type) && options.length === 0) errors.options = t("collectors.optionsMissing");
    else if (new Set(options).size !== options.length) errors.options = t("collectors.optionsTwice");
    return errors;
  });
}

const hasErrors = (errors: FieldErrors) => Boolean(errors.key || errors.label || errors.options);

/** The markup of the web page's file picker, without uploading (the preview sends nothing). */
function PreviewFile({ field, id }: { field: CollectorFormField; id: string }) {
  return (
    <div class="field">
      <label for={id}>
        <CollectorLabel field={field} optional={t("collectors.previewOptional")} />
      </label>
      <p id={`${id}-limits`} class="hint">
        {t("collectors.previewFileLimits")}
      </p>
      <input id={id} type="file" multiple aria-describedby={`${id}-limits`} />
    </div>
  );
}

/** The collector as the player will see it, with the web support page's component. */
function Preview({ title, drafts }: { title: string; drafts: DraftField[] }) {
  const [values, setValues] = useState<Record<string, CollectorFieldValue>>({});
  // Keys may be empty or repeated while being typed: the preview needs distinct ones.
  const used = new Set<string>();
  const fields: CollectorFormField[] = drafts.map((draft, index) => {
    let key = draft.key && KEY.test(draft.key) && !used.has(draft.key) ? draft.key : `field${index + 1}`;
    while (used.has(key)) key = `${key}_`;
    used.add(key);
    return { ...fieldOf(draft), key, label: draft.label.trim() || t("collectors.untitledField") };
  });
  return (
    <section class="player-preview" aria-labelledby="preview-title">
      <h3 id="preview-title">{t("collectors.previewTitle")}</h3>
      <p class="hint">{t("collectors.previewHint")}</p>
      <div class="player-preview-page">
        <CollectorFieldset
          collector={{ title: title.trim() || t("collectors.untitled"), fields }}
          values={values}
          errors={{}}
          texts={{ optional: t("collectors.previewOptional") }}
          onChange={(key, value) => setValues((current) => ({ ...current, [key]: value }))}
          renderFile={(field, id) => <PreviewFile field={field} id={id} />}
          idPrefix="preview-"
        />
      </div>
    </section>
  );
}

function FieldEditor(props: {
  draft: DraftField;
  index: number;
  count: number;
  errors: FieldErrors;
  onChange: (draft: DraftField) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
}) {
  const { draft, index, count, errors } = props;
  const id = `cf-${draft.id}`;
  const name = draft.label.trim() || t("collectors.fieldNumber", { number: index + 1 });
  const set = (change: Partial<DraftField>) => props.onChange({ ...draft, ...change });
  return (
    <li class="collector-field">
      <fieldset>
        <legend>{t("collectors.fieldLegend", { number: index + 1, name })}</legend>
        <div class="collector-field-grid">
          <Field
            id={`${id}-label`}
            label={t("collectors.label")}
            value={draft.label}
            error={errors.label}
            onInput={(label) => set(draft.keyEdited ? { label } : { label, key: keyOf(label) })}
          />
          <div class="field">
            <label for={`${id}-type`}>{t("collectors.type")}</label>
            <select id={`${id}-type`} value={draft.type} onChange={(event) => set({ type: (event.currentTarget as HTMLSelectElement).value as FieldType })}>
              {FIELD_TYPES.map((type) => (
                <option key={type} value={type}>
                  {t(`collectors.type.${type}` as MessageKey)}
                </option>
              ))}
            </select>
          </div>
          <Field id={`${id}-key`} label={t("collectors.key")} hint={t("collectors.keyHint")} value={draft.key} error={errors.key} onInput={(key) => set({ key, keyEdited: true })} />
          <div class="check">
            <input id={`${id}-required`} type="checkbox" checked={draft.required} onChange={(event) => set({ required: (event.currentTarget as HTMLInputElement).checked })} />
            <label for={`${id}-required`}>{t("collectors.required")}</label>
          </div>
        </div>
        {WITH_OPTIONS.has(draft.type) && (
          <div class="field">
            <label for={`${id}-options`}>{t(draft.type === "PLATFORM_SELECTOR" ? "collectors.platformOptions" : "collectors.options")}</label>
            <p class="hint" id={`${id}-options-hint`}>
              {t(draft.type === "PLATFORM_SELECTOR" ? "collectors.platformOptionsHint" : "collectors.optionsHint")}
            </p>
            <textarea
              id={`${id}-options`}
              rows={3}
              value={draft.options}
              aria-invalid={errors.options ? "true" : undefined}
              aria-describedby={errors.options ? `${id}-options-hint ${id}-options-error` : `${id}-options-hint`}
              onInput={(event) => set({ options: (event.currentTarget as HTMLTextAreaElement).value })}
            />
            {errors.options && (
              <p class="field-error" id={`${id}-options-error`}>
                {errors.options}
              </p>
            )}
          </div>
        )}
        <div class="row-actions">
          <button id={`${id}-up`} type="button" class="button small" disabled={index === 0} onClick={() => props.onMove(-1)} aria-label={t("collectors.moveUpLabel", { name })}>
            {t("collectors.moveUp")}
          </button>
          <button id={`${id}-down`} type="button" class="button small" disabled={index === count - 1} onClick={() => props.onMove(1)} aria-label={t("collectors.moveDownLabel", { name })}>
            {t("collectors.moveDown")}
          </button>
          <button type="button" class="button small" disabled={count === 1} onClick={props.onRemove} aria-label={t("collectors.removeFieldLabel", { name })}>
            {t("collectors.removeField")}
          </button>
        </div>
      </fieldset>
    </li>
  );
}

/** The form builder: a new collector (with its game) or a change of one; the preview beside it. */
function Builder({ editing, gameId: initialGame, onDone, onCancel }: { editing?: SettingsCollector; gameId: string; onDone: (text: string) => void; onCancel: () => void }) {
  const [title, setTitle] = useState(editing?.title ?? "");
  const [gameId, setGameId] = useState(editing?.gameId ?? initialGame);
  const [drafts, setDrafts] = useState<DraftField[]>(() => (editing ? editing.fields.map(draftOf) : [draftOf()]));
  const [errors, setErrors] = useState<FieldErrors[]>([]);
  const [titleError, setTitleError] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [saving, setSaving] = useState(false);
  // A request to move the focus (a new object each time, so that the same element can be asked for twice).
  const [focusRequest, setFocusRequest] = useState<{ id: string }>();
  const setFocusField = (id: string) => setFocusRequest({ id });

  useLayoutEffect(() => {
    document.getElementById("collector-title")?.focus();
  }, []);
  useLayoutEffect(() => {
    if (focusRequest) document.getElementById(focusRequest.id)?.focus();
  }, [focusRequest]);

  const update = (index: number, draft: DraftField) => setDrafts((current) => current.map((item, at) => (at === index ? draft : item)));
  function move(index: number, by: number) {
    const target = index + by;
    const moved = drafts[index]!;
    setDrafts((current) => {
      const next = [...current];
      next.splice(index, 1);
      next.splice(target, 0, moved);
      return next;
    });
    // Keyboard users keep their place: the focus follows the moved field's button (or its other one at an end).
    const edge = (by < 0 && target === 0) || (by > 0 && target === drafts.length - 1);
    setFocusField(`cf-${moved.id}-${by < 0 ? (edge ? "down" : "up") : edge ? "up" : "down"}`);
  }
  function remove(index: number) {
    const neighbour = drafts[index + 1] ?? drafts[index - 1];
    setDrafts((current) => current.filter((_, at) => at !== index));
    setErrors([]);
    if (neighbour) setFocusField(`cf-${neighbour.id}-label`);
  }
  function add() {
    const draft = draftOf();
    setDrafts((current) => [...current, draft]);
    setFocusField(`cf-${draft.id}-label`);
  }

  async function save(event: Event) {
    event.preventDefault();
    setFailure(undefined);
    const found = checkDrafts(drafts);
    const missingTitle = title.trim() === "" ? t("collectors.titleMissing") : undefined;
    setErrors(found);
    setTitleError(missingTitle);
    const firstBad = found.findIndex(hasErrors);
    if (missingTitle) {
      document.getElementById("collector-title")?.focus();
      return;
    }
    if (firstBad >= 0) {
      const bad = found[firstBad]!;
      const draft = drafts[firstBad]!;
      document.getElementById(`cf-${draft.id}-${bad.label ? "label" : bad.key ? "key" : "options"}`)?.focus();
      return;
    }
    setSaving(true);
    const fields = drafts.map(fieldOf);
    try {
      if (editing) {
        await call("PUT", `/settings/collectors/${editing.id}`, { title: title.trim(), fields });
        onDone(t("collectors.saved", { title: title.trim() }));
      } else {
        await call("POST", "/settings/collectors", { gameId, title: title.trim(), fields });
        onDone(t("collectors.created", { title: title.trim() }));
      }
    } catch (caught) {
      setSaving(false);
      if (caught instanceof ApiError && caught.status === 400) {
        // The API's rules are the builder's; a path names the field and what is wrong with it.
        const fromApi: FieldErrors[] = drafts.map(() => ({}));
        for (const path of caught.paths) {
          const match = /^\/fields\/(\d+)\/(key|label|options)/.exec(path);
          if (match) fromApi[Number(match[1])]![match[2] as keyof FieldErrors] = t("collectors.invalid");
          if (path === "/title") setTitleError(t("collectors.titleMissing"));
        }
        setErrors(fromApi);
        setFailure(t("collectors.invalidSummary"));
      } else if (caught instanceof ApiError && caught.status === 404) setFailure(t("collectors.gone"));
      else setFailure(t("app.error"));
    }
  }

  const game = games.value.find((item) => item.id === gameId);
  return (
    <div class="collector-builder">
      <form class="inline-form collector-form-builder" onSubmit={(event) => void save(event)} noValidate aria-labelledby="builder-title">
        <h2 id="builder-title">{editing ? t("collectors.editTitle", { title: editing.title }) : t("collectors.newTitle")}</h2>
        {failure && <Alert>{failure}</Alert>}
        {editing ? (
          <p class="hint page-intro">{t("collectors.fixed", { game: game?.name ?? "—", ref: editing.ref })}</p>
        ) : (
          <div class="field">
            <label for="collector-game">{t("collectors.game")}</label>
            <select id="collector-game" value={gameId} onChange={(event) => setGameId((event.currentTarget as HTMLSelectElement).value)}>
              {games.value.map((item) => (
                <option key={item.id} value={item.id}>
                  {item.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <Field id="collector-title" label={t("collectors.titleLabel")} hint={t("collectors.titleHint")} value={title} onInput={setTitle} error={titleError} />
        <h3 id="fields-title">{t("collectors.fields")}</h3>
        <ol class="collector-fields" aria-labelledby="fields-title">
          {drafts.map((draft, index) => (
            <FieldEditor
              key={draft.id}
              draft={draft}
              index={index}
              count={drafts.length}
              errors={errors[index] ?? {}}
              onChange={(changed) => update(index, changed)}
              onMove={(by) => move(index, by)}
              onRemove={() => remove(index)}
            />
          ))}
        </ol>
        <p>
          <button type="button" class="button" onClick={add} disabled={drafts.length >= 50}>
            {t("collectors.addField")}
          </button>
        </p>
        <div class="form-buttons">
          <button type="submit" class="button primary" disabled={saving}>
            {editing ? t("collectors.save") : t("collectors.create")}
          </button>
          <button type="button" class="button" onClick={onCancel}>
            {t("collectors.cancel")}
          </button>
        </div>
      </form>
      <Preview title={title} drafts={drafts} />
    </div>
  );
}

export function CollectorsPage() {
  const [collectors, setCollectors] = useState<SettingsCollector[]>();
  const [builder, setBuilder] = useState<{ editing?: SettingsCollector; gameId: string }>();
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string }>();
  const [confirming, setConfirming] = useState<string>();

  const load = () =>
    call<{ collectors: SettingsCollector[] }>("GET", "/settings/collectors").then(
      ({ body }) => setCollectors(body.collectors),
      () => setMessage({ kind: "error", text: t("app.error") }),
    );
  useEffect(() => {
    void load();
    if (games.value.length === 0) void loadDirectory().catch(() => undefined);
  }, []);

  function open(state: { editing?: SettingsCollector; gameId: string }) {
    setMessage(undefined);
    setConfirming(undefined);
    setBuilder(state);
  }

  function close(text?: string) {
    const editing = builder?.editing;
    setBuilder(undefined);
    if (text) setMessage({ kind: "success", text });
    void load().then(() => {
      // Back at the list: the focus goes where the admin was (the collector's row, or the new-collector button).
      const target = editing ? document.getElementById(`edit-${editing.id}`) : document.getElementById("new-collector");
      (target ?? document.getElementById("collectors-title"))?.focus();
    });
  }

  async function retire(collector: SettingsCollector) {
    setMessage(undefined);
    try {
      await call("DELETE", `/settings/collectors/${collector.id}`);
      setConfirming(undefined);
      setMessage({ kind: "success", text: t("collectors.retired", { title: collector.title }) });
      await load();
      document.getElementById("collectors-title")?.focus();
    } catch {
      setMessage({ kind: "error", text: t("app.error") });
    }
  }

  async function setContactForm(gameId: string, collector: SettingsCollector | null) {
    setMessage(undefined);
    try {
      await call("PUT", `/settings/games/${gameId}/contact-form`, { collectorId: collector?.id ?? null });
      const game = games.value.find((item) => item.id === gameId)?.name ?? "—";
      setMessage({ kind: "success", text: collector ? t("collectors.contactFormSet", { title: collector.title, game }) : t("collectors.contactFormCleared", { game }) });
      await load();
    } catch {
      setMessage({ kind: "error", text: t("app.error") });
    }
  }

  if (builder) {
    return (
      <SettingsLayout title={t("settings.collectors")}>
        <Builder
          key={builder.editing?.id ?? "new"}
          {...(builder.editing ? { editing: builder.editing } : {})}
          gameId={builder.gameId}
          onDone={(text) => close(text)}
          onCancel={() => close()}
        />
      </SettingsLayout>
    );
  }

  return (
    <SettingsLayout title={t("settings.collectors")}>
      <p class="hint page-intro">{t("collectors.intro")}</p>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      <p>
        <button id="new-collector" type="button" class="button primary" disabled={games.value.length === 0} onClick={() => open({ gameId: games.value[0]?.id ?? "" })}>
          {t("collectors.new")}
        </button>
      </p>
      <h2 id="collectors-title" tabIndex={-1} class="visually-hidden">
        {t("collectors.listTitle")}
      </h2>
      {collectors === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : (
        games.value.map((game) => {
          const own = collectors.filter((collector) => collector.gameId === game.id);
          const headingId = `game-${game.id}`;
          return (
            <section key={game.id} aria-labelledby={headingId} class="collector-game">
              <h3 id={headingId}>{game.name}</h3>
              {own.length === 0 ? (
                <p class="muted">{t("collectors.none")}</p>
              ) : (
                <table class="settings-table" aria-labelledby={headingId}>
                  <thead>
                    <tr>
                      <th scope="col">{t("collectors.titleLabel")}</th>
                      <th scope="col">{t("collectors.fields")}</th>
                      <th scope="col">{t("collectors.contactForm")}</th>
                      <th scope="col">
                        <span class="visually-hidden">{t("collectors.actions")}</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {own.map((collector) => (
                      <tr key={collector.id}>
                        <th scope="row">{collector.title}</th>
                        <td>{collector.fields.map((field) => field.label).join(", ")}</td>
                        <td>
                          {collector.contactForm ? (
                            <>
                              <span class="badge">{t("collectors.isContactForm")}</span>{" "}
                              <button type="button" class="button small" onClick={() => void setContactForm(game.id, null)} aria-label={t("collectors.unsetContactFormLabel", { title: collector.title })}>
                                {t("collectors.unsetContactForm")}
                              </button>
                            </>
                          ) : (
                            <button type="button" class="button small" onClick={() => void setContactForm(game.id, collector)} aria-label={t("collectors.setContactFormLabel", { title: collector.title })}>
                              {t("collectors.setContactForm")}
                            </button>
                          )}
                        </td>
                        <td>
                          <div class="row-actions">
                            <button id={`edit-${collector.id}`} type="button" class="button small" onClick={() => open({ editing: collector, gameId: game.id })} aria-label={t("collectors.editLabel", { title: collector.title })}>
                              {t("collectors.edit")}
                            </button>
                            {confirming === collector.id ? (
                              <span class="confirm">
                                <button type="button" class="button small danger" onClick={() => void retire(collector)} aria-label={t("collectors.retireConfirmLabel", { title: collector.title })}>
                                  {t("collectors.retireConfirm")}
                                </button>
                                <button type="button" class="button small" onClick={() => setConfirming(undefined)}>
                                  {t("collectors.cancel")}
                                </button>
                              </span>
                            ) : (
                              <button type="button" class="button small" onClick={() => setConfirming(collector.id)} aria-label={t("collectors.retireLabel", { title: collector.title })}>
                                {t("collectors.retire")}
                              </button>
                            )}
                          </div>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          );
        })
      )}
    </SettingsLayout>
  );
}
