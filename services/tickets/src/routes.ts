// RPC routes of the tickets service. Its contract (tickets.v1) arrives with the tickets issue;
// until then the service answers health checks only.
import type { ConnectRouter } from "@connectrpc/connect";
import type { TicketsDeps } from "./server.ts";

export function registerRoutes(_router: ConnectRouter, _deps: TicketsDeps): void {}
