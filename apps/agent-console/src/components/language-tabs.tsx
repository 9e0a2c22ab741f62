// Tabs per language (the WAI-ARIA tabs pattern: arrow keys, Home and End move between the tabs,
// Tab leaves for the panel). Each tab names its language; a mark tells the required one and one
// with an error. The panel is the caller's, drawn for the selected language.
import type { ComponentChildren } from "preact";
import { language as uiLanguage, t } from "../i18n.ts";

const names = new Intl.DisplayNames([uiLanguage], { type: "language" });

/** A language code's name in the console's language (the code itself when unknown). */
export function languageName(code: string): string {
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

export function LanguageTabs(props: {
  id: string;
  label: string;
  languages: readonly string[];
  selected: string;
  required?: string | undefined;
  invalid?: ReadonlySet<string>;
  onSelect: (language: string) => void;
  children: ComponentChildren;
}) {
  const { id, languages, selected } = props;
  function onKeyDown(event: KeyboardEvent) {
    const at = languages.indexOf(selected);
    const to = event.key === "ArrowRight" ? at + 1 : event.key === "ArrowLeft" ? at - 1 : event.key === "Home" ? 0 : event.key === "End" ? languages.length - 1 : null;
    if (to === null) return;
    event.preventDefault();
    const next = languages[(to + languages.length) % languages.length]!;
    props.onSelect(next);
    document.getElementById(`${id}-tab-${next}`)?.focus();
  }
  return (
    <div class="language-tabs">
      <div role="tablist" aria-label={props.label} onKeyDown={onKeyDown}>
        {languages.map((code) => (
          <button
            key={code}
            id={`${id}-tab-${code}`}
            type="button"
            role="tab"
            aria-selected={code === selected}
            aria-controls={`${id}-panel`}
            tabIndex={code === selected ? 0 : -1}
            class={props.invalid?.has(code) ? "invalid" : undefined}
            onClick={() => props.onSelect(code)}
          >
            {languageName(code)}
            {code === props.required && <span class="tab-mark"> {t("articles.requiredMark")}</span>}
          </button>
        ))}
      </div>
      <div id={`${id}-panel`} role="tabpanel" aria-labelledby={`${id}-tab-${selected}`} class="language-panel">
        {props.children}
      </div>
    </div>
  );
}
