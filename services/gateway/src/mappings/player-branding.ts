// `branding` of GET /player-api/session: how the web support page looks for the session's game,
// with the page's own defaults when an admin set nothing (content's GetGame carries it).
import type { GameBranding } from "@support/proto";
import type { Schemas } from "../openapi/types.ts";
import { colorSchemeOf } from "../routes/agent-settings-branding.ts";
import { logoPath } from "../routes/game-logos.ts";

/** The page's own accent colour (apps/web-support/src/styles.css) and the text on it. */
export const DEFAULT_PAGE_ACCENT = { accentColor: "#1d4ed8", accentTextColor: "#ffffff" } as const;

export function toPlayerBrandingDto(gameId: string, branding: GameBranding | undefined): Schemas["PlayerBranding"] {
  const accentColor = branding?.accentColor;
  return {
    accentColor: accentColor ?? DEFAULT_PAGE_ACCENT.accentColor,
    accentTextColor: accentColor ? branding!.accentTextColor : DEFAULT_PAGE_ACCENT.accentTextColor,
    colorScheme: colorSchemeOf(branding?.colorScheme ?? "light"),
    logoUrl: branding?.logo ? logoPath(gameId, branding.logo.sha256) : null,
  };
}
