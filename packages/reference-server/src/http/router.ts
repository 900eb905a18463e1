/** Method + path → operation; unknown paths are 404, known paths with another method 405. */

import { methodNotAllowed, unknownPath } from "../errors.js";
import type { ServerOperation } from "./api.js";

export class Router {
  /** Path → request method as it travels (upper case, as Node gives `req.method`) → operation. */
  private readonly byPath = new Map<string, Map<string, ServerOperation>>();

  constructor(operations: readonly ServerOperation[]) {
    for (const operation of operations) {
      let methods = this.byPath.get(operation.path);
      if (!methods) {
        methods = new Map();
        this.byPath.set(operation.path, methods);
      }
      // The model writes methods as OpenAPI keys them (lower case); requests carry them upper case.
      methods.set(operation.method.toUpperCase(), operation);
    }
  }

  /** The operation for a request; throws a 404 or 405 ApiError otherwise. */
  route(method: string, path: string): ServerOperation {
    const methods = this.byPath.get(path);
    if (!methods) throw unknownPath(method, path);
    const operation = methods.get(method);
    if (!operation) throw methodNotAllowed(method, path, [...methods.keys()]);
    return operation;
  }
}
