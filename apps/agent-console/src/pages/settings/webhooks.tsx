// The company's webhook subscriptions: subscribe a URL to event types (each with what it means)
// and games, with its signing secret shown once (with a copy button); change, pause or delete one
// (a second click confirms), give it a new secret (shown once), send it a test event, and enable
// again one the service disabled (its reason shown). Each subscription's delivery log: status,
// attempts, the receiver's last answer (its status and the first bytes of its body) or why none
// came, filtered by status, with "send again" on a delivery. The same subscriptions as the REST
// API's (/webhooks): the webhooks service answers both, and records every change made here in the
// audit log.
import { useEffect, useState } from "preact/hooks";
import { ApiError, call } from "../../api.ts";
import { Alert, ConfirmDelete, Field } from "../../components/form.tsx";
import { SecretOnce } from "../../components/secret-once.tsx";
import { SettingsLayout } from "../../components/settings-layout.tsx";
import { games, loadDirectory } from "../../directory.ts";
import { language, t } from "../../i18n.ts";
import type { MessageKey } from "../../messages/en.ts";

/** The event types a subscription can ask for, in the order shown (webhook.test is only sent on request). */
const EVENT_TYPES = [
  "ticket.created",
  "ticket.message_added",
  "ticket.private_note_added",
  "ticket.status_changed",
  "ticket.resolved",
  "ticket.closed",
  "ticket.assigned",
  "ticket.rated",
  "ticket.tags_changed",
  "ticket.fields_changed",
  "ticket.collector_result_added",
  "ticket.sla_warning",
  "ticket.sla_breached",
  "ticket.deleted",
  "incident.opened",
  "player.deleted",
  "audit.recorded",
  "webhook.disabled",
] as const;

const STATUSES = ["pending", "succeeded", "failed"] as const;
type DeliveryStatus = (typeof STATUSES)[number];

interface Webhook {
  id: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  gameIds: string[];
  enabled: boolean;
  disabledReason: string | null;
  source: "api" | "tenant_file";
  createdAt: string;
  updatedAt: string;
  previousSecretExpiresAt: string | null;
}

interface Delivery {
  id: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastResponseBody: string | null;
  lastError: string | null;
}

const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "medium" });
/** How much of a receiver's answer the log shows (the service keeps 2,048 bytes). */
const BODY_PREVIEW = 200;

const eventLabel = (type: (typeof EVENT_TYPES)[number]) => t(`webhooks.event.${type}`);

interface Draft {
  url: string;
  description: string;
  eventTypes: string[];
  gameIds: string[];
  enabled: boolean;
}

const emptyDraft: Draft = { url: "", description: "", eventTypes: [], gameIds: [], enabled: true };
type DraftErrors = Partial<Record<"url" | "description" | "eventTypes" | "gameIds", string>>;

/** The form of a new subscription or of one being changed. */
function WebhookForm({ editing, onSaved, onCancel }: { editing: Webhook | undefined; onSaved: (result: { webhook: Webhook; secret?: string }) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState<Draft>(
    editing ? { url: editing.url, description: editing.description ?? "", eventTypes: editing.eventTypes, gameIds: editing.gameIds, enabled: editing.enabled } : emptyDraft,
  );
  const [errors, setErrors] = useState<DraftErrors>({});
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const set = (changes: Partial<Draft>) => setDraft((current) => ({ ...current, ...changes }));
  const toggle = (list: string[], value: string, on: boolean) => (on ? [...list.filter((item) => item !== value), value] : list.filter((item) => item !== value));

  async function submit(event: Event) {
    event.preventDefault();
    setFailure(undefined);
    const found: DraftErrors = {};
    if (draft.url.trim() === "") found.url = t("webhooks.urlMissing");
    if (draft.eventTypes.length === 0) found.eventTypes = t("webhooks.eventTypesMissing");
    if (draft.description.length > 500) found.description = t("webhooks.descriptionTooLong");
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    const body = { url: draft.url.trim(), description: draft.description.trim(), eventTypes: draft.eventTypes, gameIds: draft.gameIds, enabled: draft.enabled };
    try {
      if (editing) {
        const { body: webhook } = await call<Webhook>("PATCH", `/settings/webhooks/${editing.id}`, body);
        onSaved({ webhook });
      } else {
        const { body: created } = await call<{ webhook: Webhook; secret: string }>("POST", "/settings/webhooks", body);
        onSaved(created);
      }
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) {
        const issues = (caught.details?.issues ?? []) as { path?: string; message?: string }[];
        const messageAt = (path: string) => issues.find((issue) => issue.path === path || issue.path?.startsWith(`${path}/`))?.message;
        const urlProblem = messageAt("/url");
        setErrors({
          url: urlProblem === undefined ? undefined : t("webhooks.urlRefused", { reason: urlProblem }),
          eventTypes: messageAt("/eventTypes") === undefined ? undefined : t("webhooks.eventTypesMissing"),
          gameIds: messageAt("/gameIds") === undefined ? undefined : t("webhooks.gamesRefused"),
          description: messageAt("/description") === undefined ? undefined : t("webhooks.descriptionTooLong"),
        });
      } else if (caught instanceof ApiError && caught.status === 404) {
        setFailure(t("webhooks.gone"));
      } else {
        setFailure(t("app.error"));
      }
    } finally {
      setBusy(false);
    }
  }

  const described = (id: string, error: string | undefined, hint = true) => [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <form class="webhook-form" onSubmit={submit} noValidate aria-labelledby="webhook-form-title">
      <h2 id="webhook-form-title">{editing ? t("webhooks.editTitle", { url: editing.url }) : t("webhooks.newTitle")}</h2>
      {failure && <Alert>{failure}</Alert>}
      <Field id="webhook-url" label={t("webhooks.url")} hint={t("webhooks.urlHint")} value={draft.url} onInput={(url) => set({ url })} error={errors.url} inputMode="text" />
      <div class="field">
        <label for="webhook-description">{t("webhooks.description")}</label>
        <p class="hint" id="webhook-description-hint">
          {t("webhooks.descriptionHint")}
        </p>
        <textarea
          id="webhook-description"
          rows={2}
          value={draft.description}
          aria-invalid={errors.description ? "true" : undefined}
          aria-describedby={described("webhook-description", errors.description)}
          onInput={(event) => set({ description: (event.currentTarget as HTMLTextAreaElement).value })}
        />
        {errors.description && (
          <p class="field-error" id="webhook-description-error">
            {errors.description}
          </p>
        )}
      </div>
      <fieldset class="webhook-events" aria-describedby={described("webhook-events", errors.eventTypes)} aria-invalid={errors.eventTypes ? "true" : undefined}>
        <legend>{t("webhooks.eventTypes")}</legend>
        <p class="hint" id="webhook-events-hint">
          {t("webhooks.eventTypesHint")}
        </p>
        {EVENT_TYPES.map((type) => {
          const id = `webhook-event-${type.replace(/[._]/g, "-")}`;
          return (
            <div class="webhook-event" key={type}>
              <input id={id} type="checkbox" checked={draft.eventTypes.includes(type)} aria-describedby={`${id}-text`} onChange={(event) => set({ eventTypes: toggle(draft.eventTypes, type, (event.currentTarget as HTMLInputElement).checked) })} />
              <label for={id}>
                <code>{type}</code>
              </label>
              <p class="hint" id={`${id}-text`}>
                {eventLabel(type)}
              </p>
            </div>
          );
        })}
        {errors.eventTypes && (
          <p class="field-error" id="webhook-events-error">
            {errors.eventTypes}
          </p>
        )}
      </fieldset>
      <fieldset class="choices" aria-describedby={described("webhook-games", errors.gameIds)} aria-invalid={errors.gameIds ? "true" : undefined}>
        <legend>{t("webhooks.games")}</legend>
        <p class="hint" id="webhook-games-hint">
          {t("webhooks.gamesHint")}
        </p>
        {games.value.map((game) => (
          <label key={game.id} class="choice">
            <input type="checkbox" checked={draft.gameIds.includes(game.id)} onChange={(event) => set({ gameIds: toggle(draft.gameIds, game.id, (event.currentTarget as HTMLInputElement).checked) })} />
            {game.name}
          </label>
        ))}
        {errors.gameIds && (
          <p class="field-error" id="webhook-games-error">
            {errors.gameIds}
          </p>
        )}
      </fieldset>
      <div class="check">
        <input id="webhook-enabled" type="checkbox" checked={draft.enabled} onChange={(event) => set({ enabled: (event.currentTarget as HTMLInputElement).checked })} />
        <label for="webhook-enabled">{t("webhooks.enabled")}</label>
      </div>
      <div class="form-actions">
        <button type="submit" class="button primary" disabled={busy}>
          {editing ? t("webhooks.save") : t("webhooks.create")}
        </button>
        {editing && (
          <button type="button" class="button" onClick={onCancel}>
            {t("webhooks.cancel")}
          </button>
        )}
      </div>
    </form>
  );
}

function StatusBadge({ status }: { status: DeliveryStatus }) {
  return <span class={`delivery-status delivery-${status}`}>{t(`webhooks.status.${status}` as MessageKey)}</span>;
}

/** The receiver's last answer: its status and the start of its body, or why no answer came. */
function Answer({ delivery }: { delivery: Delivery }) {
  if (delivery.lastResponseStatus === null && delivery.lastError === null) return <span class="muted">{t("webhooks.noAttemptYet")}</span>;
  if (delivery.lastResponseStatus === null) return <span>{t("webhooks.noAnswer", { reason: delivery.lastError ?? "" })}</span>;
  const body = delivery.lastResponseBody ?? "";
  return (
    <span class="delivery-answer">
      <span>{t("webhooks.answerStatus", { status: delivery.lastResponseStatus })}</span>
      {body === "" ? (
        <span class="muted"> {t("webhooks.emptyBody")}</span>
      ) : (
        <code class="answer-body">{body.length > BODY_PREVIEW ? `${body.slice(0, BODY_PREVIEW)}…` : body}</code>
      )}
    </span>
  );
}

/** A subscription's delivery log, newest first, a page at a time, filtered by status. */
function DeliveryLog({ webhook, refresh }: { webhook: Webhook; refresh: number }) {
  const [status, setStatus] = useState<"" | DeliveryStatus>("");
  const [deliveries, setDeliveries] = useState<Delivery[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [reloads, setReloads] = useState(0);
  const path = (after: string | null) => `/settings/webhooks/${webhook.id}/deliveries?limit=20${status ? `&status=${status}` : ""}${after ? `&cursor=${encodeURIComponent(after)}` : ""}`;

  useEffect(() => {
    let current = true;
    setError(undefined);
    call<{ deliveries: Delivery[]; pagination: { cursor: string | null } }>("GET", path(null)).then(
      ({ body }) => {
        if (!current) return;
        setDeliveries(body.deliveries);
        setCursor(body.pagination.cursor);
      },
      () => current && setError(t("app.error")),
    );
    return () => {
      current = false;
    };
  }, [webhook.id, status, refresh, reloads]);

  async function more() {
    try {
      const { body } = await call<{ deliveries: Delivery[]; pagination: { cursor: string | null } }>("GET", path(cursor));
      setDeliveries((shown) => [...(shown ?? []), ...body.deliveries]);
      setCursor(body.pagination.cursor);
    } catch {
      setError(t("app.error"));
    }
  }

  async function retry(delivery: Delivery) {
    setError(undefined);
    try {
      await call("POST", `/settings/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`);
      setNotice(t("webhooks.retried", { event: delivery.eventType }));
      setReloads((count) => count + 1);
    } catch {
      setError(t("app.error"));
    }
  }

  return (
    <section class="delivery-log" aria-labelledby="delivery-log-title">
      <h2 id="delivery-log-title">{t("webhooks.logTitle", { url: webhook.url })}</h2>
      <div class="filters">
        <div class="field">
          <label for="delivery-status">{t("webhooks.statusFilter")}</label>
          <select id="delivery-status" value={status} onChange={(event) => setStatus((event.currentTarget as HTMLSelectElement).value as "" | DeliveryStatus)}>
            <option value="">{t("webhooks.status.any")}</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {t(`webhooks.status.${value}` as MessageKey)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <button type="button" class="button" onClick={() => setReloads((count) => count + 1)}>
            {t("webhooks.reload")}
          </button>
        </div>
      </div>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {deliveries === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : deliveries.length === 0 ? (
        <p>{status ? t("webhooks.noDeliveriesOfStatus") : t("webhooks.noDeliveries")}</p>
      ) : (
        <table class="settings-table delivery-table" aria-labelledby="delivery-log-title">
          <thead>
            <tr>
              <th scope="col">{t("webhooks.event")}</th>
              <th scope="col">{t("webhooks.deliveryStatus")}</th>
              <th scope="col">{t("webhooks.attempts")}</th>
              <th scope="col">{t("webhooks.answer")}</th>
              <th scope="col">{t("webhooks.time")}</th>
              <th scope="col">
                <span class="visually-hidden">{t("webhooks.actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <th scope="row">
                  <code>{delivery.eventType}</code>
                </th>
                <td>
                  <StatusBadge status={delivery.status} />
                </td>
                <td>{delivery.attempts}</td>
                <td>
                  <Answer delivery={delivery} />
                </td>
                <td>
                  <span class="delivery-time">{t("webhooks.createdAt", { date: dateTime.format(new Date(delivery.createdAt)) })}</span>
                  {delivery.lastAttemptAt && <span class="delivery-time">{t("webhooks.lastAttemptAt", { date: dateTime.format(new Date(delivery.lastAttemptAt)) })}</span>}
                  {delivery.status === "pending" && delivery.nextAttemptAt && <span class="delivery-time">{t("webhooks.nextAttemptAt", { date: dateTime.format(new Date(delivery.nextAttemptAt)) })}</span>}
                </td>
                <td>
                  <button type="button" class="button small" onClick={() => void retry(delivery)} aria-label={t("webhooks.retryLabel", { event: delivery.eventType, date: dateTime.format(new Date(delivery.createdAt)) })}>
                    {t("webhooks.retry")}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" class="button" onClick={() => void more()}>
          {t("webhooks.more")}
        </button>
      )}
    </section>
  );
}

/** The second click of a deletion; it takes the focus, so that a keyboard user confirms with Enter again. */
function gameNames(webhook: Webhook): string {
  if (webhook.gameIds.length === 0) return t("webhooks.allGames");
  return webhook.gameIds.map((id) => games.value.find((game) => game.id === id)?.name ?? id).join(", ");
}

export function WebhooksPage() {
  const [webhooks, setWebhooks] = useState<Webhook[]>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [secret, setSecret] = useState<{ title: string; secret: string }>();
  const [editing, setEditing] = useState<Webhook>();
  const [confirming, setConfirming] = useState<string>();
  const [logOf, setLogOf] = useState<string>();
  const [logRefresh, setLogRefresh] = useState(0);
  const [formKey, setFormKey] = useState(0);

  const load = () =>
    call<{ webhooks: Webhook[] }>("GET", "/settings/webhooks").then(
      ({ body }) => setWebhooks(body.webhooks),
      () => setError(t("app.error")),
    );
  useEffect(() => {
    void load();
    if (games.value.length === 0) void loadDirectory().catch(() => undefined);
  }, []);

  const act = async (work: () => Promise<void>) => {
    setError(undefined);
    setNotice(undefined);
    try {
      await work();
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 404 ? t("webhooks.gone") : t("app.error"));
      await load();
    }
  };

  const saved = async ({ webhook, secret: shown }: { webhook: Webhook; secret?: string }) => {
    setEditing(undefined);
    setFormKey((key) => key + 1);
    if (shown) setSecret({ title: t("webhooks.createdTitle", { url: webhook.url }), secret: shown });
    else setNotice(t("webhooks.savedNotice", { url: webhook.url }));
    await load();
  };

  const rotate = (webhook: Webhook) =>
    act(async () => {
      const { body } = await call<{ webhook: Webhook; secret: string }>("POST", `/settings/webhooks/${webhook.id}/rotate-secret`);
      setSecret({ title: t("webhooks.rotatedTitle", { url: webhook.url }), secret: body.secret });
      await load();
    });

  const test = (webhook: Webhook) =>
    act(async () => {
      await call("POST", `/settings/webhooks/${webhook.id}/test`);
      setNotice(t("webhooks.testSent", { url: webhook.url }));
      setLogOf(webhook.id);
      setLogRefresh((count) => count + 1);
    });

  const enable = (webhook: Webhook) =>
    act(async () => {
      await call("PATCH", `/settings/webhooks/${webhook.id}`, { enabled: true });
      setNotice(t("webhooks.enabledNotice", { url: webhook.url }));
      await load();
    });

  const remove = (webhook: Webhook) =>
    act(async () => {
      await call("DELETE", `/settings/webhooks/${webhook.id}`);
      setConfirming(undefined);
      if (logOf === webhook.id) setLogOf(undefined);
      if (editing?.id === webhook.id) setEditing(undefined);
      setNotice(t("webhooks.deletedNotice", { url: webhook.url }));
      await load();
    });

  const shownLog = webhooks?.find((webhook) => webhook.id === logOf);
  return (
    <SettingsLayout title={t("settings.webhooks")}>
      <p class="hint webhooks-intro">{t("webhooks.intro")}</p>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {secret ? (
        <SecretOnce
          id="webhook-secret"
          secret={secret.secret}
          texts={{ title: secret.title, text: t("webhooks.secretText"), label: t("webhooks.secret"), stored: t("webhooks.stored") }}
          onDone={() => setSecret(undefined)}
        />
      ) : (
        <WebhookForm key={editing?.id ?? `new-${formKey}`} editing={editing} onSaved={(result) => void saved(result)} onCancel={() => setEditing(undefined)} />
      )}
      <h2 id="webhooks-title">{t("webhooks.listTitle")}</h2>
      {webhooks === undefined ? (
        <p role="status">{t("app.loading")}</p>
      ) : webhooks.length === 0 ? (
        <p>{t("webhooks.none")}</p>
      ) : (
        <table class="settings-table webhooks-table" aria-labelledby="webhooks-title">
          <thead>
            <tr>
              <th scope="col">{t("webhooks.url")}</th>
              <th scope="col">{t("webhooks.eventTypes")}</th>
              <th scope="col">{t("webhooks.games")}</th>
              <th scope="col">{t("webhooks.state")}</th>
              <th scope="col">
                <span class="visually-hidden">{t("webhooks.actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {webhooks.map((webhook) => (
              <tr key={webhook.id} class={webhook.enabled ? undefined : "revoked"}>
                <th scope="row">
                  <span class="webhook-url">{webhook.url}</span>
                  {webhook.description && <span class="webhook-description">{webhook.description}</span>}
                  {webhook.source === "tenant_file" && <span class="muted webhook-description">{t("webhooks.fromTenantFile")}</span>}
                </th>
                <td>
                  <ul class="plain-list">
                    {webhook.eventTypes.map((type) => (
                      <li key={type}>
                        <code>{type}</code>
                      </li>
                    ))}
                  </ul>
                </td>
                <td>{gameNames(webhook)}</td>
                <td>
                  {webhook.enabled ? (
                    t("webhooks.stateEnabled")
                  ) : webhook.disabledReason ? (
                    <span class="webhook-disabled">
                      <strong>{t("webhooks.stateAutoDisabled")}</strong> {t("webhooks.disabledBecause", { reason: webhook.disabledReason })}
                      <button type="button" class="button small" onClick={() => void enable(webhook)} aria-label={t("webhooks.enableLabel", { url: webhook.url })}>
                        {t("webhooks.enable")}
                      </button>
                    </span>
                  ) : (
                    t("webhooks.statePaused")
                  )}
                  {webhook.previousSecretExpiresAt && (
                    <span class="hint webhook-description">{t("webhooks.previousSecretUntil", { date: dateTime.format(new Date(webhook.previousSecretExpiresAt)) })}</span>
                  )}
                </td>
                <td>
                  <div class="webhook-actions">
                    <button type="button" class="button small" onClick={() => setEditing(webhook)} aria-label={t("webhooks.editLabel", { url: webhook.url })}>
                      {t("webhooks.edit")}
                    </button>
                    <button type="button" class="button small" onClick={() => void test(webhook)} aria-label={t("webhooks.testLabel", { url: webhook.url })}>
                      {t("webhooks.test")}
                    </button>
                    <button
                      type="button"
                      class="button small"
                      aria-pressed={logOf === webhook.id}
                      onClick={() => setLogOf(logOf === webhook.id ? undefined : webhook.id)}
                      aria-label={t("webhooks.logLabel", { url: webhook.url })}
                    >
                      {t("webhooks.log")}
                    </button>
                    <button type="button" class="button small" onClick={() => void rotate(webhook)} aria-label={t("webhooks.rotateLabel", { url: webhook.url })}>
                      {t("webhooks.rotate")}
                    </button>
                    {confirming === webhook.id ? (
                      <ConfirmDelete label={t("webhooks.deleteConfirmLabel", { url: webhook.url })} confirmText={t("webhooks.deleteConfirm")} cancelText={t("webhooks.cancel")} onConfirm={() => void remove(webhook)} onCancel={() => setConfirming(undefined)} />
                    ) : (
                      <button type="button" class="button small" onClick={() => setConfirming(webhook.id)} aria-label={t("webhooks.deleteLabel", { url: webhook.url })}>
                        {t("webhooks.delete")}
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {shownLog && <DeliveryLog webhook={shownLog} refresh={logRefresh} />}
    </SettingsLayout>
  );
}
