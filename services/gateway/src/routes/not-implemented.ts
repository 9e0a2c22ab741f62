// Every operation of the document that no route file serves yet (4.5-4.11, 4.15-4.18)
// answers 501 until its issue builds it. The API key check still comes first on the
// authenticated ones, so a client sees the same 403 it will see later.
import { AppError } from "@support/errors";
import type { ApiRoutes } from "./api.ts";

export function registerNotImplementedRoutes(api: ApiRoutes): string[] {
  const pending = api.unhandled();
  for (const operation of pending) {
    const message = `${operation.method.toUpperCase()} ${operation.path} is not implemented yet`;
    api.operation(
      operation.operationId,
      () => {
        throw new AppError("not_implemented", message);
      },
      { validate: false },
    );
  }
  return pending.map((operation) => operation.operationId);
}
