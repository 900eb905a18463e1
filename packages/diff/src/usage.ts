// Which operations use each component, following every `$ref` (examples and links too), in one
// document: a change to a component is listed under each operation that uses it, and a component
// that none uses belongs to the document.
import type { OpenApiDocument } from "@marketapi/spec-loader";
import { valueAt } from "@marketapi/spec-loader";
import { HTTP_METHODS } from "./check-document.js";
import { isObject } from "./comparison.js";

/** An operation's label as the diff prints it: "POST /api/v3/order (new_order)". */
export const operationLabel = (method: string, path: string, id: unknown) =>
  `${method.toUpperCase()} ${path}${typeof id === "string" ? ` (${id})` : ""}`;
export const webhookLabel = (name: string, method: string) => `webhook ${name} (${method.toUpperCase()})`;

/** Component pointer ("/components/schemas/Order") → labels of the operations that reach it. */
export function componentUsers(document: OpenApiDocument): Map<string, Set<string>> {
  const users = new Map<string, Set<string>>();
  // Each node is scanned once: the components a node names directly, then the graph between them.
  const named = new Map<string, Set<string>>();
  const directly = (root: unknown): Set<string> => {
    const found = new Set<string>();
    const stack: unknown[] = [root];
    while (stack.length > 0) {
      const node = stack.pop();
      if (Array.isArray(node)) stack.push(...node);
      else if (isObject(node)) {
        if (typeof node.$ref === "string" && node.$ref.startsWith("#/")) found.add(node.$ref.slice(1));
        stack.push(...Object.values(node));
      }
    }
    return found;
  };
  const visit = (root: unknown, label: string) => {
    const seen = new Set<string>();
    const queue = [...directly(root)];
    while (queue.length > 0) {
      const pointer = queue.pop()!;
      if (seen.has(pointer)) continue;
      seen.add(pointer);
      const component = /^\/components\/[^/]+\/[^/]+/.exec(pointer)?.[0];
      if (component) users.set(component, (users.get(component) ?? new Set()).add(label));
      const next = named.get(pointer) ?? directly(valueAt(document, pointer));
      named.set(pointer, next);
      queue.push(...next);
    }
  };
  for (const [container, labelOf] of [
    [
      "paths",
      (key: string, method: string, op: Record<string, unknown>) =>
        operationLabel(method, key, op.operationId),
    ],
    ["webhooks", (key: string, method: string) => webhookLabel(key, method)],
  ] as const) {
    const items = (document as Record<string, unknown>)[container];
    if (!isObject(items)) continue;
    for (const [key, rawItem] of Object.entries(items)) {
      const item =
        isObject(rawItem) && typeof rawItem.$ref === "string"
          ? valueAt(document, rawItem.$ref.slice(1))
          : rawItem;
      if (!isObject(item)) continue;
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!isObject(op)) continue;
        visit([op, item.parameters], labelOf(key, method, op));
      }
    }
  }
  return users;
}
