import type { OpenApiDocument } from "./load-spec.js";
import { HTTP_METHODS, type HttpMethod, type SpecModel } from "./operation-model.js";
import { SpecError } from "./spec-error.js";

const COMPONENT_REF = /^#\/components\/([^/]+)\/([^/]+)$/;

/**
 * Keeps only the named operations (`--operations`), in document order, and a document pruned to
 * them (see `subsetDocument`), so that every generator leaves out what only the others used.
 * Throws SpecError naming any unknown name.
 */
export function selectOperations(model: SpecModel, names: readonly string[] | undefined): SpecModel {
  if (!names) return model;
  const known = new Set(model.operations.map((o) => o.operationId));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new SpecError(
      model.source,
      "/paths",
      `operationIds among ${[...known].join(", ")}`,
      unknown.join(", "),
    );
  }
  const subset = { ...model, operations: model.operations.filter((o) => names.includes(o.operationId)) };
  return { ...subset, document: subsetDocument(subset) };
}

/**
 * A deep copy of the spec that holds only the model's operations. When the model is a subset
 * (`--operations`), path items and methods of the other operations are dropped, and so are the
 * components nothing kept refers to any more (followed transitively through `$ref`s, discriminator
 * mappings and any other string that is exactly a component reference, such as the variants of
 * `x-response-variant-by`). The input document is never modified.
 */
export function subsetDocument(model: SpecModel): OpenApiDocument {
  const document: OpenApiDocument = structuredClone(model.document);
  const kept = new Set(model.operations.map((o) => `${o.method} ${o.path}`));
  const total = Object.values(document.paths ?? {}).reduce<number>(
    (count, item) => count + Object.keys(item as object).filter((key) => isMethod(key)).length,
    0,
  );
  if (kept.size === total) return document;

  const paths: OpenApiDocument = {};
  for (const [path, item] of Object.entries<OpenApiDocument>(document.paths)) {
    const methods = Object.keys(item).filter(isMethod);
    const keptMethods = methods.filter((m) => kept.has(`${m} ${path}`));
    if (keptMethods.length === 0) continue;
    paths[path] = Object.fromEntries(
      Object.entries(item).filter(([key]) => !isMethod(key) || keptMethods.includes(key)),
    );
  }
  document.paths = paths;
  if (document.components) document.components = pruneComponents(document, paths);
  return document;
}

/** Keeps the components reachable from `roots`; security schemes are kept whole (they are named, not referenced). */
function pruneComponents(document: OpenApiDocument, roots: OpenApiDocument): OpenApiDocument {
  const components: OpenApiDocument = document.components;
  const reached = new Map<string, Set<string>>();
  const queue: unknown[] = [roots];
  while (queue.length > 0) {
    visitRefs(queue.pop(), (ref) => {
      const match = COMPONENT_REF.exec(ref);
      if (!match) return;
      const kind = match[1]!;
      const name = unescapePointer(match[2]!);
      const names = reached.get(kind) ?? new Set<string>();
      if (names.has(name)) return;
      names.add(name);
      reached.set(kind, names);
      queue.push(components[kind]?.[name]);
    });
  }
  const pruned: OpenApiDocument = {};
  for (const [kind, entries] of Object.entries<OpenApiDocument>(components)) {
    if (kind === "securitySchemes" || typeof entries !== "object" || entries === null) {
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
 * Calls `onRef` for every `$ref` under `node` and every other string that is exactly a component
 * reference (discriminator mappings, `x-response-variant-by` variants).
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
  if (typeof node !== "object" || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string") onRef(value);
    else visitRefs(value, onRef);
  }
}

function isMethod(key: string): key is HttpMethod {
  return (HTTP_METHODS as readonly string[]).includes(key);
}

function unescapePointer(segment: string): string {
  return decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~");
}
