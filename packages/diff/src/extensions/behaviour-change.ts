// What the behaviour extensions' rules share: a behaviour promise that appears is compatible for
// clients (implementations must start keeping it), one that disappears is breaking (clients relied
// on it), and a promise whose meaning changes is breaking.
import { type At, type Comparison, child, isObject, same, show } from "../comparison.js";

/** Reports the extension added or removed; true when both sides hold it (compare the fields then). */
export function presence(c: Comparison, o: At, n: At, key: string, what: string): boolean {
  const name = key.replace(/^x-/, "");
  if (o.value === undefined && n.value !== undefined) {
    c.report(o, n, {
      kind: `${name}-added`,
      class: "compatible",
      breaksImplementations: true,
      message: `${key} added: the operation now promises ${what}; implementations must keep it`,
    });
    return false;
  }
  if (o.value !== undefined && n.value === undefined) {
    c.report(o, n, {
      kind: `${name}-removed`,
      class: "breaking",
      message: `${key} removed: clients can no longer rely on ${what}`,
    });
    return false;
  }
  if (o.value === undefined || n.value === undefined) return false;
  provenance(c, o, n, key);
  return true;
}

/** Where a behaviour's values were taken from (`filledFrom`) is documentation: informational. */
export function provenance(c: Comparison, o: At, n: At, key: string): void {
  const before = child(o, "filledFrom");
  const after = child(n, "filledFrom");
  if (same(before.value, after.value)) return;
  c.report(before, after, {
    kind: `${key.replace(/^x-/, "")}-source-changed`,
    class: "informational",
    message: `${key} filledFrom changed from ${show(before.value)} to ${show(after.value)}: where its values come from, not what they are`,
  });
}

/** Each named field whose value changed is breaking (its meaning is not ordered wider or narrower). */
export function changedFields(c: Comparison, o: At, n: At, key: string, fields: readonly string[]): void {
  const name = key.replace(/^x-/, "");
  for (const field of fields) {
    const before = child(o, field);
    const after = child(n, field);
    if (same(before.value, after.value)) continue;
    c.report(before, after, {
      kind: `${name}-changed`,
      class: "breaking",
      message: `${key} ${field} changed from ${show(before.value)} to ${show(after.value)}: clients read the answer differently`,
    });
  }
}

/** A boolean promise: true→false is breaking, false→true compatible (implementations must keep it). */
export function promise(c: Comparison, o: At, n: At, key: string, field: string, meaning: string): void {
  const before = child(o, field);
  const after = child(n, field);
  if (before.value === after.value) return;
  const name = key.replace(/^x-/, "");
  const kept = after.value === true;
  c.report(before, after, {
    kind: kept ? `${name}-strengthened` : `${name}-weakened`,
    class: kept ? "compatible" : "breaking",
    breaksImplementations: kept,
    message: kept
      ? `${key}: ${meaning} is now promised; implementations must keep it`
      : `${key}: ${meaning} is no longer promised`,
  });
}

/** Items of a list of objects, by a key made from some of their fields. */
export function keyed(at: At, key: (item: Record<string, unknown>) => string): Map<string, At> {
  const out = new Map<string, At>();
  if (!Array.isArray(at.value)) return out;
  at.value.forEach((item, i) => {
    if (isObject(item)) out.set(key(item), child(at, i));
  });
  return out;
}
