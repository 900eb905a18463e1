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
  if (isObject(copy["x-relations"])) {
    const relations = pruneRelations(copy["x-relations"], operationIdsIn(paths));
    if (relations) copy["x-relations"] = relations;
    else delete copy["x-relations"];
  }
  return copy;
}

function operationIdsIn(paths: JsonObject): Set<string> {
  const ids = new Set<string>();
  for (const item of Object.values<unknown>(paths)) {
    if (!isObject(item)) continue;
    for (const [key, operation] of Object.entries(item))
      if (isHttpMethod(key) && isObject(operation) && typeof operation.operationId === "string")
        ids.add(operation.operationId);
  }
  return ids;
}

/**
 * x-relations of a subset: only what the kept operations report (a shared fact keeps its reports of
 * kept operations, and only values two of them report; a trade window, an aggregate or the views of
 * an order only when their operations are kept); undefined when nothing is left. The trade source
 * and the book go with their operations, and with them every relation that needs them.
 */
function pruneRelations(relations: JsonObject, kept: ReadonlySet<string>): JsonObject | undefined {
  const keeps = (value: unknown) => isObject(value) && kept.has(String(value.operation));
  const list = (key: string) => (Array.isArray(relations[key]) ? (relations[key] as unknown[]) : []);
  const trades = keeps(relations.trades);
  const book = keeps(relations.book);
  const sharedFacts = list("sharedFacts").flatMap((fact) => {
    if (!isObject(fact) || (fact.movesWith === "trades" ? !trades : !book)) return [];
    const reports = (Array.isArray(fact.reports) ? fact.reports : []).filter(keeps) as JsonObject[];
    const count = new Map<string, number>();
    for (const report of reports)
      for (const name of Object.keys(isObject(report.values) ? report.values : {}))
        count.set(name, (count.get(name) ?? 0) + 1);
    const trimmed = reports
      .map((report) => ({
        ...report,
        values: Object.fromEntries(
          Object.entries(isObject(report.values) ? report.values : {}).filter(
            ([name]) => (count.get(name) ?? 0) >= 2,
          ),
        ),
      }))
      .filter((report) => Object.keys(report.values).length > 0);
    return trimmed.length >= 2 ? [{ ...fact, reports: trimmed }] : [];
  });
  const tradeWindows = trades ? list("tradeWindows").filter(keeps) : [];
  const aggregates = trades ? list("aggregates").filter(keeps) : [];
  const orders = list("orders").flatMap((views) => {
    if (!isObject(views) || !keeps(views.open)) return [];
    const only = (key: string) =>
      (Array.isArray(views[key]) ? views[key] : []).filter((id) => kept.has(String(id)));
    const reads = only("reads");
    const reports = only("reports");
    return reads.length > 0 && reports.length > 0 ? [{ ...views, reads, reports }] : [];
  });
  if (sharedFacts.length + tradeWindows.length + aggregates.length + orders.length === 0) return undefined;
  const { trades: _t, book: _b, ...rest } = relations;
  return {
    ...rest,
    ...(trades ? { trades: relations.trades } : {}),
    ...(book ? { book: relations.book } : {}),
    sharedFacts,
    tradeWindows,
    aggregates,
    orders,
  };
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
