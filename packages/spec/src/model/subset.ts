import { isHttpMethod } from "./http-methods.js";
import { isObject, type JsonObject } from "./json.js";
import { segmentsOf } from "./json-pointer.js";

const COMPONENT_REF = /^#\/components\/([^/]+)\/([^/]+)$/;

/**
 * A deep copy of `document` that holds only the operations `keep` names, as `"<method> <path>"`
 * (`"get /api/v3/ping"`). When that is a subset, path items and methods of the other operations are
 * dropped, and so are the components nothing kept refers to any more (followed transitively through
 * `$ref`s, discriminator mappings and any other string that is exactly a component reference, such
 * as the variants of `x-response-variant-by`). Security schemes are kept whole. The input document
 * is never modified.
 */
export function subsetDocument(document: JsonObject, keep: ReadonlySet<string>): JsonObject {
  const copy: JsonObject = structuredClone(document);
  const items = Object.entries<unknown>(isObject(copy.paths) ? copy.paths : {});
  const total = items.reduce<number>(
    (count, [, item]) => count + (isObject(item) ? Object.keys(item).filter(isHttpMethod).length : 0),
    0,
  );
  if (keep.size === total) return copy;

  const paths: JsonObject = {};
  for (const [path, item] of items) {
    if (!isObject(item)) continue;
    const keptMethods = Object.keys(item).filter((key) => isHttpMethod(key) && keep.has(`${key} ${path}`));
    if (keptMethods.length === 0) continue;
    paths[path] = Object.fromEntries(
      Object.entries(item).filter(([key]) => !isHttpMethod(key) || keptMethods.includes(key)),
    );
  }
  copy.paths = paths;
  if (copy.components) copy.components = pruneComponents(copy.components, paths);
  return copy;
}

/** Keeps the components reachable from `roots`; security schemes are kept whole (they are named, not referenced). */
function pruneComponents(components: JsonObject, roots: JsonObject): JsonObject {
  const reached = new Map<string, Set<string>>();
  const queue: unknown[] = [roots];
  while (queue.length > 0) {
    visitRefs(queue.pop(), (ref) => {
      const [kind, name] = segmentsOf(ref).slice(1) as [string, string];
      const names = reached.get(kind) ?? new Set<string>();
      if (names.has(name)) return;
      names.add(name);
      reached.set(kind, names);
      queue.push(components[kind]?.[name]);
    });
  }
  const pruned: JsonObject = {};
  for (const [kind, entries] of Object.entries<unknown>(components)) {
    if (kind === "securitySchemes" || !isObject(entries)) {
      pruned[kind] = entries;
      continue;
    }
    const names = reached.get(kind);
    const keptEntries = Object.fromEntries(Object.entries(entries).filter(([name]) => names?.has(name)));
    if (Object.keys(keptEntries).length > 0) pruned[kind] = keptEntries;
  }
  return pruned;
}

/**
 * Calls `onRef` for every component reference under `node`: every `$ref` to a component, and every
 * other string that is exactly one (discriminator mappings, `x-response-variant-by` variants).
 */
function visitRefs(node: unknown, onRef: (ref: string) => void): void {
  if (typeof node === "string") {
    if (COMPONENT_REF.test(node)) onRef(node);
    return;
  }
  if (Array.isArray(node)) {
    for (const item of node) visitRefs(item, onRef);
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string") {
      if (COMPONENT_REF.test(value)) onRef(value);
    } else visitRefs(value, onRef);
  }
}
