// The company's API keys: create one (its secret shown once, with a copy button), see who
// created each, when it was last used and the limit it is held to, and revoke one (a second
// click confirms; the key stops working at once).
import { useEffect, useState } from "preact/hooks";
import { ApiError, call, type ApiKeyInfo } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { SecretOnce } from "../../components/secret-once.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { language, t } from "../../i18n.ts";

const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });

export function actorName(actor: ApiKeyInfo["createdBy"]): string {
  if (actor.type === "operator") return t("settings.operator");
  if (actor.type === "anonymous") return t("settings.anonymous");
  return actor.name ?? t("settings.formerUser");
}

export function ApiKeysPage() {
  const [keys, setKeys] = useState<ApiKeyInfo[]>();
  const [error, setError] = useState<string>();
  const [name, setName] = useState("");
  const [limit, setLimit] = useState("");
  const [fieldErrors, setFieldErrors] = useState<{ name?: string; limit?: string }>({});
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ apiKey: ApiKeyInfo; secret: string }>();
  const [confirming, setConfirming] = useState<string>();
  const [notice, setNotice] = useState<string>();

  const load = () =>
    call<{ apiKeys: ApiKeyInfo[] }>("GET", "/settings/api-keys").then(
      ({ body }) => setKeys(body.apiKeys),
      () => setError(t("app.error")),
    );
  useEffect(() => void load(), []);

  async function create(event: Event) {
    event.preventDefault();
    setError(undefined);
    setNotice(undefined);
    const errors: typeof fieldErrors = {};
    if (name.trim() === "") errors.name = t("apiKeys.nameMissing");
    const perMinute = limit.trim() === "" ? null : Number(limit);
    if (perMinute !== null && (!Number.isInteger(perMinute) || perMinute < 1 || perMinute > 1_000_000)) errors.limit = t("apiKeys.limitInvalid");
    setFieldErrors(errors);
    if (errors.name || errors.limit) return;
    setBusy(true);
    try {
      const { body } = await call<{ apiKey: ApiKeyInfo; secret: string }>("POST", "/settings/api-keys", { name: name.trim(), rateLimitPerMinute: perMinute });
      setCreated(body);
      setName("");
      setLimit("");
      await load();
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) setFieldErrors({ name: caught.paths.includes("/name") ? t("apiKeys.nameMissing") : undefined, limit: caught.paths.includes("/rateLimitPerMinute") ? t("apiKeys.limitInvalid") : undefined });
      else setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  async function revoke(key: ApiKeyInfo) {
    setError(undefined);
    try {
      await call("DELETE", `/settings/api-keys/${key.id}`);
      setConfirming(undefined);
      setNotice(t("apiKeys.revokedNotice", { name: key.name }));
      await load();
    } catch {
      setError(t("app.error"));
    }
  }

  return (
    <SettingsLayout title={t("settings.apiKeys")}>
      <p class="hint">{t("apiKeys.intro")}</p>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {created ? (
        <SecretOnce
          id="new-secret"
          secret={created.secret}
          texts={{ title: t("apiKeys.createdTitle", { name: created.apiKey.name }), text: t("apiKeys.createdText"), label: t("apiKeys.secret"), stored: t("apiKeys.stored") }}
          onDone={() => setCreated(undefined)}
        />
      ) : (
        <form class="inline-form" onSubmit={create} noValidate aria-labelledby="new-key-title">
          <h2 id="new-key-title">{t("apiKeys.newTitle")}</h2>
          <Field id="key-name" label={t("apiKeys.name")} hint={t("apiKeys.nameHint")} value={name} onInput={setName} error={fieldErrors.name} />
          <Field id="key-limit" label={t("apiKeys.limit")} hint={t("apiKeys.limitHint")} value={limit} onInput={setLimit} inputMode="numeric" required={false} error={fieldErrors.limit} />
          <button type="submit" class="button primary" disabled={busy}>
            {t("apiKeys.create")}
          </button>
        </form>
      )}
      <h2 id="keys-title">{t("apiKeys.listTitle")}</h2>
      {keys === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : keys.length === 0 ? (
        <p>{t("apiKeys.none")}</p>
      ) : (
        <table class="settings-table" aria-labelledby="keys-title">
          <thead>
            <tr>
              <th scope="col">{t("apiKeys.name")}</th>
              <th scope="col">{t("apiKeys.key")}</th>
              <th scope="col">{t("apiKeys.created")}</th>
              <th scope="col">{t("apiKeys.lastUsed")}</th>
              <th scope="col">{t("apiKeys.rate")}</th>
              <th scope="col">{t("apiKeys.state")}</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id} class={key.revokedAt ? "revoked" : undefined}>
                <th scope="row">{key.name}</th>
                <td>
                  <code>{key.keyPrefix}…</code>
                </td>
                <td>{t("apiKeys.createdBy", { date: dateTime.format(new Date(key.createdAt)), who: actorName(key.createdBy) })}</td>
                <td>{key.lastUsedAt ? dateTime.format(new Date(key.lastUsedAt)) : t("apiKeys.never")}</td>
                <td>
                  {t("apiKeys.perMinute", { count: key.effectiveRateLimitPerMinute })}
                  {key.rateLimitPerMinute === null && <span class="muted"> {t("apiKeys.companyLimit")}</span>}
                </td>
                <td>
                  {key.revokedAt ? (
                    t("apiKeys.revokedAt", { date: dateTime.format(new Date(key.revokedAt)) })
                  ) : confirming === key.id ? (
                    <span class="confirm">
                      <button type="button" class="button small danger" onClick={() => void revoke(key)} aria-label={t("apiKeys.revokeConfirmLabel", { name: key.name })}>
                        {t("apiKeys.revokeConfirm")}
                      </button>
                      <button type="button" class="button small" onClick={() => setConfirming(undefined)}>
                        {t("apiKeys.cancel")}
                      </button>
                    </span>
                  ) : (
                    <button type="button" class="button small" onClick={() => setConfirming(key.id)} aria-label={t("apiKeys.revokeLabel", { name: key.name })}>
                      {t("apiKeys.revoke")}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </SettingsLayout>
  );
}
