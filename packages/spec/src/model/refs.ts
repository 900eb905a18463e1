import { isObject, type JsonObject } from "./json.js";
import { valueAt } from "./json-pointer.js";
import { describeValue, SpecModelError } from "./spec-model-error.js";

const MAX_HOPS = 32;

/**
 * Follows a chain of local `$ref`s (`#/...`) from `node` and returns the object it ends at. The
 * keywords written beside a `$ref` (OpenAPI 3.1 allows `summary` and `description` on references,
 * and JSON Schema any keyword) override the target's, the nearest reference winning. A node without
 * `$ref` is returned as it is. `where` is the JSON Pointer of `node`, for the error when a
 * reference leaves the document, does not resolve, loops, or ends at something other than an object.
 * This is the document's only reference resolver: every package reads references through it.
 */
export function resolveRef(document: JsonObject, node: unknown, where: string): JsonObject {
  const siblings: JsonObject[] = [];
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === "string"; hops++) {
    const ref: string = current.$ref;
    if (hops >= MAX_HOPS || !ref.startsWith("#/")) {
      throw new SpecModelError(where, "a local $ref (#/...) that resolves", describeValue(ref));
    }
    const { $ref: _ref, ...rest } = current;
    if (Object.keys(rest).length > 0) siblings.unshift(rest);
    current = valueAt(document, ref);
    if (current === undefined) throw new SpecModelError(where, "a $ref that resolves", describeValue(ref));
  }
  if (!isObject(current)) throw new SpecModelError(where, "an object", describeValue(current));
  return siblings.length === 0 ? current : Object.assign({}, current, ...siblings);
}

/** The name a `#/components/<kind>/<name>` reference ends with, if `ref` is one of `kind`. */
export function componentName(ref: unknown, kind: string): string | undefined {
  if (typeof ref !== "string") return undefined;
  const prefix = `#/components/${kind}/`;
  if (!ref.startsWith(prefix)) return undefined;
  const rest = ref.slice(prefix.length);
  return rest.includes("/") ? undefined : rest.replace(/~1/g, "/").replace(/~0/g, "~");
}
