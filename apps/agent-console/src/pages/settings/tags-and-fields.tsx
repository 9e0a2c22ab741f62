// The company's tags and custom fields: create them (company-wide or for one game), change what
// may change (a tag's description and flags; a field's name, description, flag and a dropdown's
// options), and retire them (a second click confirms). A tag's name and a field's key, type and
// game never change: tickets carry them. Retiring keeps what tickets already have.
import { useEffect, useLayoutEffect, useState } from "preact/hooks";
import { ApiError, call } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { gameName, games, loadDirectory } from "../../directory.ts";
import { t } from "../../i18n.ts";
import type { MessageKey } from "../../messages/en.ts";

interface SettingsTag {
  id: string;
  gameId: string | null;
  name: string;
  description: string | null;
  isAiTag: boolean;
  isSkill: boolean;
}

type FieldType = "text" | "number" | "date" | "boolean" | "dropdown";
const FIELD_TYPES: FieldType[] = ["text", "number", "date", "boolean", "dropdown"];

interface SettingsField {
  id: string;
  gameId: string | null;
  key: string;
  name: string;
  type: FieldType;
  description: string | null;
  isAiField: boolean;
  options: string[];
}

/** The directory the ticket pages use follows the change (their tag and field lists). */
const refreshDirectory = () => void loadDirectory().catch(() => undefined);

function scopeName(gameId: string | null): string {
  return gameId === null ? t("vocabulary.allGames") : gameName(gameId);
}

function Checkbox({ id, label, checked, onChange }: { id: string; label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <div class="check">
      <input id={id} type="checkbox" checked={checked} onChange={(event) => onChange((event.currentTarget as HTMLInputElement).checked)} />
      <label for={id}>{label}</label>
    </div>
  );
}

function GameSelect({ id, value, disabled, onChange }: { id: string; value: string; disabled: boolean; onChange: (value: string) => void }) {
  return (
    <div class="field">
      <label for={id}>{t("vocabulary.game")}</label>
      <select id={id} value={value} disabled={disabled} onChange={(event) => onChange((event.currentTarget as HTMLSelectElement).value)}>
        <option value="">{t("vocabulary.allGames")}</option>
        {games.value.map((game) => (
          <option key={game.id} value={game.id}>
            {game.name}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Retire, then "Retire now" to confirm. */
function RetireButton({ name, confirming, onAsk, onCancel, onRetire }: { name: string; confirming: boolean; onAsk: () => void; onCancel: () => void; onRetire: () => void }) {
  if (!confirming) {
    return (
      <button type="button" class="button small" onClick={onAsk} aria-label={t("vocabulary.retireLabel", { name })}>
        {t("vocabulary.retire")}
      </button>
    );
  }
  return (
    <span class="confirm">
      <button type="button" class="button small danger" onClick={onRetire} aria-label={t("vocabulary.retireConfirmLabel", { name })}>
        {t("vocabulary.retireConfirm")}
      </button>
      <button type="button" class="button small" onClick={onCancel}>
        {t("vocabulary.cancel")}
      </button>
    </span>
  );
}

function issuesAt(caught: unknown, paths: string[]): boolean {
  return caught instanceof ApiError && caught.status === 400 && caught.paths.some((path) => paths.includes(path));
}

function TagsSection() {
  const [tags, setTags] = useState<SettingsTag[]>();
  const [editing, setEditing] = useState<SettingsTag>();
  const [name, setName] = useState("");
  const [gameId, setGameId] = useState("");
  const [description, setDescription] = useState("");
  const [isSkill, setIsSkill] = useState(false);
  const [isAiTag, setIsAiTag] = useState(false);
  const [nameError, setNameError] = useState<string>();
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string }>();
  const [confirming, setConfirming] = useState<string>();

  const load = () => call<{ tags: SettingsTag[] }>("GET", "/settings/tags").then(({ body }) => setTags(body.tags), () => setMessage({ kind: "error", text: t("app.error") }));
  useEffect(() => void load(), []);
  // Editing starts at the form, above the list: its first input takes the focus.
  useLayoutEffect(() => {
    if (editing) document.getElementById("tag-description")?.focus();
  }, [editing?.id]);

  function reset(tag?: SettingsTag) {
    setEditing(tag);
    setName(tag?.name ?? "");
    setGameId(tag?.gameId ?? "");
    setDescription(tag?.description ?? "");
    setIsSkill(tag?.isSkill ?? false);
    setIsAiTag(tag?.isAiTag ?? false);
    setNameError(undefined);
  }

  async function save(event: Event) {
    event.preventDefault();
    setMessage(undefined);
    const text = description.trim() === "" ? null : description.trim();
    try {
      if (editing) {
        await call("PUT", `/settings/tags/${editing.id}`, { description: text, isSkill, isAiTag });
        setMessage({ kind: "success", text: t("vocabulary.tagSaved", { name: editing.name }) });
      } else {
        if (name.trim() === "" || name.includes(",")) {
          setNameError(t("vocabulary.tagNameInvalid"));
          return;
        }
        await call("POST", "/settings/tags", { name: name.trim(), gameId: gameId || null, description: text, isSkill, isAiTag });
        setMessage({ kind: "success", text: t("vocabulary.tagCreated", { name: name.trim() }) });
      }
      reset();
      await load();
      refreshDirectory();
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 409) setNameError(t("vocabulary.tagNameTaken"));
      else if (issuesAt(caught, ["/name"])) setNameError(t("vocabulary.tagNameInvalid"));
      else setMessage({ kind: "error", text: t("app.error") });
    }
  }

  async function retire(tag: SettingsTag) {
    setMessage(undefined);
    try {
      await call("DELETE", `/settings/tags/${tag.id}`);
      setConfirming(undefined);
      if (editing?.id === tag.id) reset();
      setMessage({ kind: "success", text: t("vocabulary.tagRetired", { name: tag.name }) });
      await load();
      refreshDirectory();
    } catch {
      setMessage({ kind: "error", text: t("app.error") });
    }
  }

  return (
    <section aria-labelledby="tags-title">
      <h2 id="tags-title">{t("vocabulary.tagsTitle")}</h2>
      <p class="hint">{t("vocabulary.tagsIntro")}</p>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      <form class="inline-form" onSubmit={save} noValidate aria-labelledby="tag-form-title">
        <h3 id="tag-form-title">{editing ? t("vocabulary.editTag", { name: editing.name }) : t("vocabulary.newTag")}</h3>
        {editing ? (
          <p class="hint">{t("vocabulary.tagFixed", { name: editing.name, game: scopeName(editing.gameId) })}</p>
        ) : (
          <>
            <Field id="tag-name" label={t("vocabulary.tagName")} hint={t("vocabulary.tagNameHint")} value={name} onInput={setName} error={nameError} />
            <GameSelect id="tag-game" value={gameId} disabled={false} onChange={setGameId} />
          </>
        )}
        <Field id="tag-description" label={t("vocabulary.description")} value={description} onInput={setDescription} required={false} />
        <Checkbox id="tag-skill" label={t("vocabulary.isSkill")} checked={isSkill} onChange={setIsSkill} />
        <Checkbox id="tag-ai" label={t("vocabulary.isAiTag")} checked={isAiTag} onChange={setIsAiTag} />
        <div class="form-buttons">
          <button type="submit" class="button primary">
            {editing ? t("vocabulary.saveTag") : t("vocabulary.createTag")}
          </button>
          {editing && (
            <button type="button" class="button" onClick={() => reset()}>
              {t("vocabulary.cancel")}
            </button>
          )}
        </div>
      </form>
      {tags === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : tags.length === 0 ? (
        <p>{t("vocabulary.noTags")}</p>
      ) : (
        <table class="settings-table" aria-labelledby="tags-title">
          <thead>
            <tr>
              <th scope="col">{t("vocabulary.tagName")}</th>
              <th scope="col">{t("vocabulary.game")}</th>
              <th scope="col">{t("vocabulary.descriptionColumn")}</th>
              <th scope="col">{t("vocabulary.kind")}</th>
              <th scope="col">
                <span class="visually-hidden">{t("vocabulary.actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tags.map((tag) => (
              <tr key={tag.id}>
                <th scope="row">{tag.name}</th>
                <td>{scopeName(tag.gameId)}</td>
                <td>{tag.description ?? "—"}</td>
                <td>{[tag.isSkill ? t("vocabulary.skill") : "", tag.isAiTag ? t("vocabulary.ai") : ""].filter(Boolean).join(", ") || "—"}</td>
                <td class="row-actions">
                  <button type="button" class="button small" onClick={() => reset(tag)} aria-label={t("vocabulary.editLabel", { name: tag.name })}>
                    {t("vocabulary.edit")}
                  </button>
                  <RetireButton name={tag.name} confirming={confirming === tag.id} onAsk={() => setConfirming(tag.id)} onCancel={() => setConfirming(undefined)} onRetire={() => void retire(tag)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function FieldsSection() {
  const [fields, setFields] = useState<SettingsField[]>();
  const [editing, setEditing] = useState<SettingsField>();
  const [key, setKey] = useState("");
  const [name, setName] = useState("");
  const [type, setType] = useState<FieldType>("text");
  const [gameId, setGameId] = useState("");
  const [description, setDescription] = useState("");
  const [options, setOptions] = useState("");
  const [isAiField, setIsAiField] = useState(false);
  const [errors, setErrors] = useState<{ key?: string; name?: string; options?: string }>({});
  const [message, setMessage] = useState<{ kind: "success" | "error"; text: string }>();
  const [confirming, setConfirming] = useState<string>();

  const load = () => call<{ fields: SettingsField[] }>("GET", "/settings/fields").then(({ body }) => setFields(body.fields), () => setMessage({ kind: "error", text: t("app.error") }));
  useEffect(() => void load(), []);
  // As the edit form is drawn (a layout effect): a later effect would take the focus from the
  // field the user already went on to.
  useLayoutEffect(() => {
    if (editing) document.getElementById("field-name")?.focus();
  }, [editing?.id]);

  function reset(field?: SettingsField) {
    setEditing(field);
    setKey(field?.key ?? "");
    setName(field?.name ?? "");
    setType(field?.type ?? "text");
    setGameId(field?.gameId ?? "");
    setDescription(field?.description ?? "");
    setOptions(field?.options.join("\n") ?? "");
    setIsAiField(field?.isAiField ?? false);
    setErrors({});
  }

  async function save(event: Event) {
    event.preventDefault();
    setMessage(undefined);
    const optionList = type === "dropdown" ? options.split("\n").map((option) => option.trim()).filter(Boolean) : [];
    const found: typeof errors = {};
    if (!editing && !/^[A-Za-z0-9_-]{1,64}$/.test(key)) found.key = t("vocabulary.fieldKeyInvalid");
    if (name.trim() === "") found.name = t("vocabulary.fieldNameMissing");
    if (type === "dropdown" && optionList.length === 0) found.options = t("vocabulary.optionsMissing");
    setErrors(found);
    if (found.key || found.name || found.options) return;
    const text = description.trim() === "" ? null : description.trim();
    try {
      if (editing) {
        await call("PUT", `/settings/fields/${editing.id}`, { name: name.trim(), description: text, isAiField, options: optionList });
        setMessage({ kind: "success", text: t("vocabulary.fieldSaved", { name: name.trim() }) });
      } else {
        await call("POST", "/settings/fields", { key, name: name.trim(), type, gameId: gameId || null, description: text, isAiField, options: optionList });
        setMessage({ kind: "success", text: t("vocabulary.fieldCreated", { name: name.trim() }) });
      }
      reset();
      await load();
      refreshDirectory();
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 409) setErrors({ key: t("vocabulary.fieldKeyTaken") });
      else if (issuesAt(caught, ["/options"]) || (caught instanceof ApiError && caught.paths.some((path) => path.startsWith("/options/")))) setErrors({ options: t("vocabulary.optionsInvalid") });
      else if (issuesAt(caught, ["/key"])) setErrors({ key: t("vocabulary.fieldKeyInvalid") });
      else setMessage({ kind: "error", text: t("app.error") });
    }
  }

  async function retire(field: SettingsField) {
    setMessage(undefined);
    try {
      await call("DELETE", `/settings/fields/${field.id}`);
      setConfirming(undefined);
      if (editing?.id === field.id) reset();
      setMessage({ kind: "success", text: t("vocabulary.fieldRetired", { name: field.name }) });
      await load();
      refreshDirectory();
    } catch {
      setMessage({ kind: "error", text: t("app.error") });
    }
  }

  return (
    <section aria-labelledby="fields-title">
      <h2 id="fields-title">{t("vocabulary.fieldsTitle")}</h2>
      <p class="hint">{t("vocabulary.fieldsIntro")}</p>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      <form class="inline-form" onSubmit={save} noValidate aria-labelledby="field-form-title">
        <h3 id="field-form-title">{editing ? t("vocabulary.editField", { name: editing.name }) : t("vocabulary.newField")}</h3>
        {editing ? (
          <p class="hint">{t("vocabulary.fieldFixed", { key: editing.key, type: t(`vocabulary.type.${editing.type}` as MessageKey), game: scopeName(editing.gameId) })}</p>
        ) : (
          <>
            <Field id="field-key" label={t("vocabulary.fieldKey")} hint={t("vocabulary.fieldKeyHint")} value={key} onInput={setKey} error={errors.key} />
            <div class="field">
              <label for="field-type">{t("vocabulary.fieldType")}</label>
              <select id="field-type" value={type} onChange={(event) => setType((event.currentTarget as HTMLSelectElement).value as FieldType)}>
                {FIELD_TYPES.map((value) => (
                  <option key={value} value={value}>
                    {t(`vocabulary.type.${value}` as MessageKey)}
                  </option>
                ))}
              </select>
            </div>
            <GameSelect id="field-game" value={gameId} disabled={false} onChange={setGameId} />
          </>
        )}
        <Field id="field-name" label={t("vocabulary.fieldName")} value={name} onInput={setName} error={errors.name} />
        <Field id="field-description" label={t("vocabulary.description")} value={description} onInput={setDescription} required={false} />
        {type === "dropdown" && (
          <div class="field">
            <label for="field-options">{t("vocabulary.options")}</label>
            <p class="hint" id="field-options-hint">
              {t("vocabulary.optionsHint")}
            </p>
            <textarea
              id="field-options"
              rows={4}
              value={options}
              aria-invalid={errors.options ? "true" : undefined}
              aria-describedby={errors.options ? "field-options-hint field-options-error" : "field-options-hint"}
              onInput={(event) => setOptions((event.currentTarget as HTMLTextAreaElement).value)}
            />
            {errors.options && (
              <p class="field-error" id="field-options-error">
                {errors.options}
              </p>
            )}
          </div>
        )}
        <Checkbox id="field-ai" label={t("vocabulary.isAiField")} checked={isAiField} onChange={setIsAiField} />
        <div class="form-buttons">
          <button type="submit" class="button primary">
            {editing ? t("vocabulary.saveField") : t("vocabulary.createField")}
          </button>
          {editing && (
            <button type="button" class="button" onClick={() => reset()}>
              {t("vocabulary.cancel")}
            </button>
          )}
        </div>
      </form>
      {fields === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : fields.length === 0 ? (
        <p>{t("vocabulary.noFields")}</p>
      ) : (
        <table class="settings-table" aria-labelledby="fields-title">
          <thead>
            <tr>
              <th scope="col">{t("vocabulary.fieldName")}</th>
              <th scope="col">{t("vocabulary.fieldKey")}</th>
              <th scope="col">{t("vocabulary.fieldType")}</th>
              <th scope="col">{t("vocabulary.game")}</th>
              <th scope="col">{t("vocabulary.options")}</th>
              <th scope="col">
                <span class="visually-hidden">{t("vocabulary.actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {fields.map((field) => (
              <tr key={field.id}>
                <th scope="row">
                  {field.name}
                  {field.isAiField && <span class="muted"> ({t("vocabulary.ai")})</span>}
                </th>
                <td>
                  <code>{field.key}</code>
                </td>
                <td>{t(`vocabulary.type.${field.type}` as MessageKey)}</td>
                <td>{scopeName(field.gameId)}</td>
                <td>{field.options.length > 0 ? field.options.join(", ") : "—"}</td>
                <td class="row-actions">
                  <button type="button" class="button small" onClick={() => reset(field)} aria-label={t("vocabulary.editLabel", { name: field.name })}>
                    {t("vocabulary.edit")}
                  </button>
                  <RetireButton name={field.name} confirming={confirming === field.id} onAsk={() => setConfirming(field.id)} onCancel={() => setConfirming(undefined)} onRetire={() => void retire(field)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function TagsAndFieldsPage() {
  return (
    <SettingsLayout title={t("settings.tagsAndFields")}>
      <TagsSection />
      <FieldsSection />
    </SettingsLayout>
  );
}
