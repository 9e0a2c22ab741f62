// /agent-api/settings/games/{gameId}/branding: how a game's web support page looks (accent
// colour, colour scheme, logo), read and set by the company's admins. content owns it
// (CompanySettingsService checks the admin, validates the logo's bytes and writes the audit log);
// the logo is sent as base64 in the JSON body and served back from /support/logos/ (game-logos.ts).
import type { Context } from "koa";
import type { GameBranding } from "@support/proto";
import { validationError } from "@support/errors";
import type { AgentSessionState } from "../agent-api/sessions.ts";
import type { CompanySettingsClient } from "../clients.ts";
import { isoTimestampOrNull } from "../mappings/timestamps.ts";
import { jsonBody } from "../middleware/json-body.ts";
import type { Schemas } from "../openapi/types.ts";
import type { AgentApiGuards } from "./agent-api.ts";
import { requireAdmin } from "./agent-settings.ts";
import { respond, type ApiRoutes } from "./api.ts";
import { logoPath } from "./game-logos.ts";

export interface AgentSettingsBrandingRoutesDeps {
  companySettings: CompanySettingsClient;
  guards: AgentApiGuards;
  bodyLimitBytes: number;
}

type ColorScheme = Schemas["AgentGameBranding"]["colorScheme"];
const SCHEMES: readonly string[] = ["light", "dark", "system"];

export function colorSchemeOf(value: string): ColorScheme {
  return (SCHEMES.includes(value) ? value : "light") as ColorScheme;
}

export function brandingDto(gameId: string, branding: GameBranding | undefined): Schemas["AgentGameBranding"] {
  const logo = branding?.logo;
  return {
    accentColor: branding?.accentColor ?? null,
    accentTextColor: branding?.accentTextColor || "#ffffff",
    colorScheme: colorSchemeOf(branding?.colorScheme ?? "light"),
    logo: logo
      ? {
          url: logoPath(gameId, logo.sha256),
          sha256: logo.sha256,
          contentType: logo.contentType as NonNullable<Schemas["AgentGameBranding"]["logo"]>["contentType"],
          size: logo.size,
          width: logo.width,
          height: logo.height,
        }
      : null,
    updatedAt: isoTimestampOrNull(branding?.updatedAt),
  };
}

/** Strict base64 (standard alphabet, padded or not); undefined for anything else. */
function decodeBase64(text: string): Buffer | undefined {
  const compact = text.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) return undefined;
  return Buffer.from(compact, "base64");
}

export function registerAgentSettingsBrandingRoutes(api: ApiRoutes, deps: AgentSettingsBrandingRoutesDeps): void {
  const { companySettings, guards } = deps;
  const read = [...guards.read, requireAdmin];
  const writeWithBody = [...guards.write, requireAdmin, jsonBody(deps.bodyLimitBytes)];
  const changeOf = (ctx: Context) => {
    const session = (ctx.state as AgentSessionState).agentSession;
    return { companyId: session.companyId, actingUserId: session.user.id, clientAddress: guards.clientAddress(ctx) };
  };

  api.operation<"getAgentSettingsGameBranding", AgentSessionState>(
    "getAgentSettingsGameBranding",
    async (ctx) => {
      const { gameId } = ctx.state.validated.params;
      const { branding } = await companySettings.getCompanyGameBranding({ change: changeOf(ctx), gameId });
      respond(ctx, 200, brandingDto(gameId, branding));
    },
    { before: read },
  );

  api.operation<"setAgentSettingsGameBranding", AgentSessionState>(
    "setAgentSettingsGameBranding",
    async (ctx) => {
      const { gameId } = ctx.state.validated.params;
      const { accentColor, colorScheme, logo } = ctx.state.validated.body;
      let bytes: Buffer | undefined;
      if (logo) {
        bytes = decodeBase64(logo.data);
        if (bytes === undefined) throw validationError([{ path: "/logo/data", message: "must be base64" }]);
      }
      const { branding } = await companySettings.setCompanyGameBranding({
        change: changeOf(ctx), gameId, accentColor: accentColor ?? "", colorScheme, logo: bytes, removeLogo: logo === null,
      });
      respond(ctx, 200, brandingDto(gameId, branding));
    },
    { before: writeWithBody },
  );
}
