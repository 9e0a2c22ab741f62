// The triage's suggestions on a ticket (docs/automation.md): the AI tags and field values it was
// not sure enough to set, each with how sure it was, applied with one click (as the agent's own
// change) or dismissed. Values it set show in the tags and fields themselves.
import { fieldsFor } from "../directory.ts";
import { language, t } from "../i18n.ts";

export interface TriagePrediction {
  id: string;
  kind: "tag" | "field";
  name: string;
  value: string;
  confidence: number;
  decision: "set" | "suggest";
  state: "set" | "pending" | "applied" | "dismissed";
  createdAt: string;
}

const percent = new Intl.NumberFormat(language, { maximumFractionDigits: 0 });

/** How a suggestion reads: "Tag bug", or the field's name and the value (Yes/No for a boolean). */
export function suggestionText(prediction: TriagePrediction, gameId: string): string {
  if (prediction.kind === "tag") return t("triage.tagSuggestion", { name: prediction.name });
  const field = fieldsFor(gameId).find((f) => f.key === prediction.name);
  const value = field?.type === "boolean" ? t(prediction.value === "true" ? "fields.yes" : "fields.no") : prediction.value;
  return t("triage.fieldSuggestion", { name: field?.name ?? prediction.name, value });
}

export function TriageSuggestions({ predictions, gameId, busy, onApply, onDismiss }: {
  predictions: readonly TriagePrediction[];
  gameId: string;
  busy: boolean;
  onApply: (prediction: TriagePrediction) => void;
  onDismiss: (prediction: TriagePrediction) => void;
}) {
  const pending = predictions.filter((p) => p.state === "pending");
  if (pending.length === 0) return null;
  return (
    <section aria-labelledby="triage-title" class="triage-suggestions">
      <h2 id="triage-title">{t("triage.suggestionsTitle")}</h2>
      <p class="hint">{t("triage.suggestionsHint")}</p>
      <ul>
        {pending.map((prediction) => {
          const text = suggestionText(prediction, gameId);
          return (
            <li key={prediction.id}>
              <span class="suggestion-text">{text}</span> <span class="muted">{t("triage.confidence", { percent: percent.format(prediction.confidence * 100) })}</span>
              <span class="suggestion-buttons">
                <button type="button" class="button small primary" disabled={busy} aria-label={t("triage.applyLabel", { suggestion: text })} onClick={() => onApply(prediction)}>
                  {t("triage.apply")}
                </button>
                <button type="button" class="button small" disabled={busy} aria-label={t("triage.dismissLabel", { suggestion: text })} onClick={() => onDismiss(prediction)}>
                  {t("triage.dismiss")}
                </button>
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
