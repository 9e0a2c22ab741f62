// Type-level test, checked by `tsc` (pnpm typecheck) and never run: a handler that disagrees
// with the OpenAPI document does not compile. Each `@ts-expect-error` fails the typecheck if
// the line under it stops being an error.
import type { ApiRoutes } from "./api.ts";
import { respond } from "./api.ts";

export function handlersThatDisagreeWithTheDocument(api: ApiRoutes): void {
  api.operation("createTicket", (ctx) => {
    // @ts-expect-error the body of createTicket has no `subject`
    void ctx.state.validated.body.subject;
    // @ts-expect-error `message` is a string, not a number
    const message: number = ctx.state.validated.body.message;
    void message;
    // @ts-expect-error createTicket answers 200, not 201
    respond(ctx, 201, { ticketId: "t", runningId: 1 });
    // @ts-expect-error `runningId` is a number
    respond(ctx, 200, { ticketId: "t", runningId: "1" });
    // @ts-expect-error `ticketId` is required
    ctx.body = { runningId: 1 };
    respond(ctx, 200, { ticketId: "t", runningId: 1 });
  });

  api.operation("listTickets", (ctx) => {
    // @ts-expect-error listTickets has no `page` query parameter
    void ctx.state.validated.query.page;
    // validation coerces `limit` to a number
    const limit: number | undefined = ctx.state.validated.query.limit;
    void limit;
    // @ts-expect-error a ticket of the document has no `subject`
    respond(ctx, 200, { tickets: [{ subject: "x" }], pagination: { cursor: null } });
  });

  api.operation("getAttachment", (ctx) => {
    const attachmentId: string = ctx.state.validated.params.attachmentId;
    void attachmentId;
    // @ts-expect-error getAttachment has no `ticketId` path parameter
    void ctx.state.validated.params.ticketId;
    // @ts-expect-error the 307 of getAttachment has no body
    respond(ctx, 307, { url: "https://example.com" });
    respond(ctx, 307, "");
  });

  // @ts-expect-error no operation of the document has this id
  api.operation("listInvoices", () => undefined);
}
