// The admin RPCs (content's and players' AdminService, called by tools/admin) carry
// `authorization: Bearer <ADMIN_TOKEN>`. A service without a token refuses every admin call:
// the safe default for a deployment that forgot the Secret. The comparison takes the same time
// whatever the token sent, so a caller cannot guess it byte by byte.
import { createHash, timingSafeEqual } from "node:crypto";
import { Code, ConnectError, type HandlerContext, type Interceptor } from "@connectrpc/connect";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/** True when `header` is exactly `Bearer <token>`; false for an empty token. */
export function isAdminAuthorization(header: string | null, token: string | undefined): boolean {
  if (!token) return false;
  // Hashing first makes both sides the same length, as timingSafeEqual needs.
  return timingSafeEqual(digest(header ?? ""), digest(`Bearer ${token}`));
}

/**
 * The request gate of an admin service (`router.service(X, impl, { requestGate })`): it runs
 * before the request body is read. Without a configured token every call is permission_denied;
 * a missing or wrong token is unauthenticated.
 */
export function adminTokenGate(token: string | undefined): (context: HandlerContext) => void {
  return (context) => {
    if (!token) throw new ConnectError("admin RPCs are disabled: ADMIN_TOKEN is not set", Code.PermissionDenied);
    if (!isAdminAuthorization(context.requestHeader.get("authorization"), token)) {
      throw new ConnectError("missing or wrong admin token", Code.Unauthenticated);
    }
  };
}

/** Client side: sends the admin token with every call. */
export function adminTokenHeader(token: string): Interceptor {
  return (next) => async (request) => {
    request.header.set("authorization", `Bearer ${token}`);
    return next(request);
  };
}
