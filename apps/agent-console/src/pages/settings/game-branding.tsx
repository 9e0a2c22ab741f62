// A game's branding of its web support page, a section of the game's page: the accent colour
// (hex; the text on it is black or white, whichever reads better, so any colour is accepted),
// light, dark or the player's system setting, and a logo (PNG, JPEG or WebP, at most 256 KiB, 16
// to 1024 pixels a side: checked here for type and size before sending, and by the service from
// the image's own bytes). A preview shows a button in the colour; players see the change on their
// next load of the page.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, call, type GameBranding, type GameSettings } from "../../api.ts";
import { Alert, Field } from "../../components/form.tsx";
import { t } from "../../i18n.ts";

const SCHEMES = ["light", "dark", "system"] as const;
const TYPES = ["image/png", "image/jpeg", "image/webp"];
const MAX_BYTES = 256 * 1024;
const DEFAULT_ACCENT = "#1d4ed8";

function normalized(hex: string): string | undefined {
  const match = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!match) return undefined;
  const digits = match[1]!.toLowerCase();
  return `#${digits.length === 3 ? [...digits].map((digit) => digit + digit).join("") : digits}`;
}

function luminance(hex: string): number {
  const channel = (offset: number) => {
    const value = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Black or white text on the colour, as the service chooses it. */
function textOn(hex: string): string {
  const l = luminance(hex);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000000" : "#ffffff";
}

async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}

const kib = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024))} KiB`;

export function GameBrandingSection({ game }: { game: GameSettings }) {
  const [branding, setBranding] = useState<GameBranding>();
  const [accent, setAccent] = useState("");
  const [scheme, setScheme] = useState<GameBranding["colorScheme"]>("light");
  const [file, setFile] = useState<File>();
  const [removeLogo, setRemoveLogo] = useState(false);
  const [errors, setErrors] = useState<{ accent?: string; logo?: string }>({});
  const [notice, setNotice] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const preview = useRef<HTMLSpanElement>(null);

  const show = (body: GameBranding) => {
    setBranding(body);
    setAccent(body.accentColor ?? "");
    setScheme(body.colorScheme);
  };
  useEffect(() => {
    call<GameBranding>("GET", `/settings/games/${game.id}/branding`).then(({ body }) => show(body), () => setError(t("app.error")));
  }, [game.id]);

  // The preview's colours through the CSSOM (the console's CSP has no 'unsafe-inline').
  const previewColor = normalized(accent) ?? (accent.trim() === "" ? DEFAULT_ACCENT : undefined);
  useEffect(() => {
    if (!preview.current || !previewColor) return;
    preview.current.style.setProperty("background-color", previewColor);
    preview.current.style.setProperty("color", textOn(previewColor));
  }, [previewColor, branding]);

  function chooseFile(event: Event) {
    const chosen = (event.currentTarget as HTMLInputElement).files?.[0];
    setNotice(undefined);
    setErrors((current) => ({ ...current, logo: undefined }));
    setFile(undefined);
    if (!chosen) return;
    if (!TYPES.includes(chosen.type)) return setErrors((current) => ({ ...current, logo: t("branding.logoType") }));
    if (chosen.size > MAX_BYTES) return setErrors((current) => ({ ...current, logo: t("branding.logoTooLarge", { size: kib(chosen.size) }) }));
    setFile(chosen);
    setRemoveLogo(false);
  }

  async function save(event: Event) {
    event.preventDefault();
    setNotice(undefined);
    setError(undefined);
    const color = accent.trim() === "" ? null : normalized(accent);
    const found: { accent?: string; logo?: string } = {};
    if (color === undefined) found.accent = t("branding.accentInvalid");
    if (errors.logo) found.logo = errors.logo;
    setErrors(found);
    if (found.accent || found.logo) return;
    setBusy(true);
    try {
      const logo = file ? { data: await base64Of(file) } : removeLogo ? null : undefined;
      const { body } = await call<GameBranding>("PUT", `/settings/games/${game.id}/branding`, { accentColor: color, colorScheme: scheme, ...(logo === undefined ? {} : { logo }) });
      show(body);
      setFile(undefined);
      setRemoveLogo(false);
      if (fileInput.current) fileInput.current.value = "";
      setNotice(t("branding.saved"));
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 400) {
        const issues = caught.details?.issues ?? [];
        const logoIssue = issues.find((issue) => issue.path?.startsWith("/logo"));
        setErrors({
          accent: issues.some((issue) => issue.path === "/accentColor") ? t("branding.accentInvalid") : undefined,
          logo: logoIssue ? t("branding.logoRefused", { detail: logoIssue.message ?? caught.message }) : undefined,
        });
      } else setError(t("app.error"));
    } finally {
      setBusy(false);
    }
  }

  if (!branding) return error ? <Alert>{error}</Alert> : <p role="status">{t("app.loading")}</p>;
  const logo = branding.logo;
  return (
    <form class="section-form wide-form branding-form" onSubmit={save} noValidate aria-labelledby="branding-title">
      <h2 id="branding-title">{t("branding.title")}</h2>
      <p class="hint">{t("branding.intro")}</p>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      <Field id="branding-accent" label={t("branding.accent")} hint={t("branding.accentHint")} value={accent} onInput={setAccent} error={errors.accent} required={false} />
      <p class="branding-preview">
        <span class="muted">{t("branding.preview")}</span>{" "}
        <span ref={preview} class="branding-sample" data-testid="branding-sample">
          {t("branding.sample")}
        </span>
      </p>
      <fieldset class="choices">
        <legend>{t("branding.scheme")}</legend>
        {SCHEMES.map((value) => (
          <label class="choice" key={value}>
            <input type="radio" name="branding-scheme" value={value} checked={scheme === value} onChange={() => setScheme(value)} />
            {t(`branding.scheme.${value}`)}
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for="branding-logo">{t("branding.logo")}</label>
        <p class="hint" id="branding-logo-hint">
          {t("branding.logoHint")}
        </p>
        {logo ? (
          <p class="branding-current">
            <img class="branding-logo" src={logo.url} alt={t("branding.logoAlt", { name: game.name })} />
            <span>{t("branding.logoCurrent", { width: String(logo.width), height: String(logo.height), size: kib(logo.size) })}</span>
          </p>
        ) : (
          <p>{t("branding.logoNone")}</p>
        )}
        <input
          id="branding-logo"
          ref={fileInput}
          type="file"
          accept={TYPES.join(",")}
          aria-invalid={errors.logo ? "true" : undefined}
          aria-describedby={errors.logo ? "branding-logo-hint branding-logo-error" : "branding-logo-hint"}
          onChange={chooseFile}
        />
        {errors.logo && (
          <p class="field-error" id="branding-logo-error">
            {errors.logo}
          </p>
        )}
        {logo && !file && (
          <label class="choice">
            <input type="checkbox" checked={removeLogo} onChange={(event) => setRemoveLogo((event.currentTarget as HTMLInputElement).checked)} />
            {t("branding.logoRemove")}
          </label>
        )}
      </div>
      <button type="submit" class="button primary" disabled={busy}>
        {t("branding.save")}
      </button>
    </form>
  );
}
