// RPC routes of the media service. Its contract (media.v1) arrives with the media issue;
// until then the service answers health checks only.
import type { ConnectRouter } from "@connectrpc/connect";
import type { MediaDeps } from "./server.ts";

export function registerRoutes(_router: ConnectRouter, _deps: MediaDeps): void {}
