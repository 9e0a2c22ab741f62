// Serves the support application (the agents' console, the static bundle of apps/agent-console)
// at /app/ with a strict Content-Security-Policy. Every path under /app/ that is not one of the
// bundle's files answers the console's index.html: the console reads its path itself, so a
// ticket's url (/app/tickets/<id>), an invitation link (/app/welcome#token=…) or a reload of
// any page opens the right page.
import { fileURLToPath } from "node:url";
import type { GatewayConfig } from "../config.ts";
import type { GatewayRouter } from "../types.ts";
import { staticBundle } from "./static-bundle.ts";

/** The bundle in the repository, built by `pnpm run build` (turbo's build task). */
export const DEFAULT_AGENT_CONSOLE_DIR = fileURLToPath(new URL("../../../../apps/agent-console/dist/", import.meta.url));

export interface AgentConsoleOptions {
  /** Folder of the built bundle (index.html and assets/). */
  dir: string;
  /** The storage endpoint(s) of attachments' short-lived links and pre-signed uploads (as the web support page's). */
  storageSources: string[];
}

export function agentConsoleOptions(config: Pick<GatewayConfig, "AGENT_CONSOLE_DIR" | "WEB_SUPPORT_CONNECT_SRC">): AgentConsoleOptions {
  return {
    dir: config.AGENT_CONSOLE_DIR || DEFAULT_AGENT_CONSOLE_DIR,
    storageSources: config.WEB_SUPPORT_CONNECT_SRC.split(/\s+/).filter(Boolean),
  };
}

export function agentConsoleContentSecurityPolicy(options: Pick<AgentConsoleOptions, "storageSources">): string {
  const storage = options.storageSources.join(" ");
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // data: for the two-factor QR code, which the gateway draws as an SVG data URL.
    `img-src 'self' data: blob: ${storage}`.trim(),
    `media-src 'self' blob: ${storage}`.trim(),
    `connect-src 'self' ${storage}`.trim(),
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    // The console is never shown in a frame (clickjacking of an agent's actions).
    "frame-ancestors 'none'",
  ].join("; ");
}

const NOT_BUILT_PAGE =
  "<!doctype html><html lang=en><meta charset=utf-8><title>Support application unavailable</title>" +
  "<h1>The support application is not available</h1><p>It has not been built on this server. Run <code>pnpm run build</code> " +
  "(or <code>pnpm --filter @support/agent-console build</code>) and reload.</p></html>";

export function registerAgentConsoleRoutes(router: GatewayRouter, options: AgentConsoleOptions): void {
  const serve = staticBundle({ dir: options.dir, contentSecurityPolicy: agentConsoleContentSecurityPolicy(options), notBuiltPage: NOT_BUILT_PAGE });

  router.get("/app", (ctx) => {
    ctx.status = 301;
    ctx.redirect(`/app/${ctx.search}`);
  });
  router.get("/app/favicon.svg", serve(() => "favicon.svg"));
  router.get("/app/assets/:file", serve((ctx) => `assets/${ctx.params.file}`));
  router.get("/app/", serve(() => "index.html"));
  router.get("/app/{*page}", serve(() => "index.html"));
}
