// The generic fallback: any difference no rule handles is still reported, at the deepest node that
// differs, with the class the caller judges safe (breaking unless the node is documentation only).
import type { ChangeClass } from "./change.js";
import { type At, type Comparison, child, isObject, same, show } from "./comparison.js";

/** Keys that only document: a change there changes nothing a program sees. */
export const ANNOTATION_KEYS: ReadonlySet<string> = new Set([
  "description",
  "summary",
  "title",
  "example",
  "examples",
  "externalDocs",
  "$comment",
  "tags",
  "contact",
  "license",
  "termsOfService",
  "x-codeSamples",
  "x-logo",
  "x-tagGroups",
]);

export function compareStructurally(
  c: Comparison,
  o: At,
  n: At,
  cls: ChangeClass,
  why: string,
  kind = "structural",
): void {
  if (same(o.value, n.value)) return;
  const label = (at: At) => at.pointer.split("/").pop() ?? "";
  if (o.value === undefined) {
    c.report(o, n, { kind, class: cls, message: `${label(n)} added (${show(n.value)}); ${why}` });
  } else if (n.value === undefined) {
    c.report(o, n, { kind, class: cls, message: `${label(o)} removed (was ${show(o.value)}); ${why}` });
  } else if (isObject(o.value) && isObject(n.value)) {
    for (const key of new Set([...Object.keys(o.value), ...Object.keys(n.value)])) {
      compareStructurally(c, child(o, key), child(n, key), cls, why, kind);
    }
  } else if (Array.isArray(o.value) && Array.isArray(n.value) && o.value.length === n.value.length) {
    for (let i = 0; i < o.value.length; i++) compareStructurally(c, child(o, i), child(n, i), cls, why, kind);
  } else {
    c.report(o, n, {
      kind,
      class: cls,
      message: `${label(n)} changed from ${show(o.value)} to ${show(n.value)}; ${why}`,
    });
  }
}

/** The fallback's reason and class for a key no rule knows. */
export function unknownKey(key: string): { cls: ChangeClass; why: string } {
  return ANNOTATION_KEYS.has(key)
    ? { cls: "informational", why: "documentation only" }
    : { cls: "breaking", why: `no rule covers "${key}", so it counts as breaking until one does` };
}

/** Compares the keys of two objects that no rule handled, each by the fallback. */
export function compareRemainingKeys(c: Comparison, o: At, n: At, handled: ReadonlySet<string>): void {
  const keys = new Set([
    ...(isObject(o.value) ? Object.keys(o.value) : []),
    ...(isObject(n.value) ? Object.keys(n.value) : []),
  ]);
  for (const key of keys) {
    if (handled.has(key)) continue;
    const { cls, why } = unknownKey(key);
    compareStructurally(c, child(o, key), child(n, key), cls, why);
  }
}

/**
 * `servers` (of the document, a path or an operation) says where the API is deployed, not what it
 * accepts or answers: a client is given its base URL (every generated client takes one), and the
 * same requests and answers hold at the new address. Informational, whatever changed: whether the
 * old address keeps answering is a fact of the deployment, which no document comparison can see.
 */
export function compareServers(c: Comparison, o: At, n: At): void {
  compareStructurally(
    c,
    o,
    n,
    "informational",
    "where the API is served, not what it accepts or answers; clients that take their base URL from the document should take the new one",
    "servers-changed",
  );
}
