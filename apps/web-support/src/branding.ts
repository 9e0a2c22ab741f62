// The game's branding (GET /player-api/session `branding`), applied without any inline script or
// style: the page's own script sets CSS custom properties through the CSSOM
// (`style.setProperty`), which the CSP's style-src 'self' allows (it restricts style elements and
// style attributes in markup, not the CSSOM), and the colour scheme as a data attribute that the
// stylesheet reads. No extra request, and the colours arrive with the session the page reads
// anyway. Values are checked again here: only "#rrggbb" is ever set.

export interface Branding {
  accentColor: string;
  accentTextColor: string;
  colorScheme: "light" | "dark" | "system";
  logoUrl: string | null;
}

const HEX = /^#[0-9a-f]{6}$/i;

function luminance(hex: string): number {
  const channel = (offset: number) => {
    const value = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/** The page's backgrounds (styles.css) and its readable link colours on them. */
const LIGHT = { bg: "#ffffff", link: "#1d4ed8" };
const DARK = { bg: "#15181d", link: "#8ab4ff" };

export function applyBranding(branding: Branding | undefined, root: HTMLElement = document.documentElement): void {
  if (!branding) return;
  const scheme = branding.colorScheme === "dark" || branding.colorScheme === "system" ? branding.colorScheme : "light";
  root.dataset.scheme = scheme;
  if (HEX.test(branding.accentColor) && HEX.test(branding.accentTextColor)) {
    root.style.setProperty("--accent", branding.accentColor);
    root.style.setProperty("--accent-text", branding.accentTextColor);
    // Text in the accent colour (links, outlined buttons) only where it reads at 4.5:1 on the
    // scheme's background; else the page's own link colour.
    root.style.setProperty("--link-light", contrast(branding.accentColor, LIGHT.bg) >= 4.5 ? branding.accentColor : LIGHT.link);
    root.style.setProperty("--link-dark", contrast(branding.accentColor, DARK.bg) >= 4.5 ? branding.accentColor : DARK.link);
  }
}

/** The logo's address on the API's origin (a relative path from the API). */
export function logoSource(branding: Branding | undefined, apiBase: string): string | null {
  if (!branding?.logoUrl || !branding.logoUrl.startsWith("/support/logos/")) return null;
  return apiBase + branding.logoUrl;
}
