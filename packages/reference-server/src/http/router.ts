/** Method + path → operation; unknown paths are 404, known paths with another method 405. */

import { methodNotAllowed, unknownPath } from "../errors.js";
import type { OperationSpec } from "./api.js";

export class Router {
  private readonly byPath = new Map<string, Map<string, OperationSpec>>();

  constructor(operations: readonly OperationSpec[]) {
    for (const operation of operations) {
      let methods = this.byPath.get(operation.path);
      if (!methods) {
        methods = new Map();
        this.byPath.set(operation.path, methods);
      }
      methods.set(operation.method, operation);
    }
  }

  /** The operation for a request; throws a 404 or 405 ApiError otherwise. */
  route(method: string, path: string): OperationSpec {
    const methods = this.byPath.get(path);
    if (!methods) throw unknownPath(method, path);
    const operation = methods.get(method);
    if (!operation) throw methodNotAllowed(method, path, [...methods.keys()]);
    return operation;
  }
}
