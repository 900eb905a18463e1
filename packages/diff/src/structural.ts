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
  // A response's links tell tools how its values feed other operations; no request or answer changes.
  "links",
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

/**
 * The fallback's reason and class for a key no rule knows. An `x-` extension reaches here only
 * where no rule of the diff's (extensions/: the registry's extensions, each on its host) handles
 * it: what it means is its own tool's business (a vendor's SDK generator, a docs theme), and no
 * OpenAPI client or server reads it, so it is informational. Any other key no rule covers counts as
 * breaking, the safe side, until a rule says what it means.
 */
export function unknownKey(
  key: string,
  meaningful: ReadonlySet<string> = new Set(),
): { cls: ChangeClass; why: string } {
  if (ANNOTATION_KEYS.has(key)) return { cls: "informational", why: "documentation only" };
  if (key.startsWith("x-") && meaningful.has(key)) {
    return {
      cls: "breaking",
      why: `"${key}" is declared meaningful, and no rule here says what it means, so it counts as breaking`,
    };
  }
  if (key.startsWith("x-")) {
    return {
      cls: "informational",
      why: `"${key}" is an extension no rule here gives a meaning: OpenAPI clients and servers do not read it`,
    };
  }
  return { cls: "breaking", why: `no rule covers "${key}", so it counts as breaking until one does` };
}

/** Compares the keys of two objects that no rule handled, each by the fallback. */
export function compareRemainingKeys(c: Comparison, o: At, n: At, handled: ReadonlySet<string>): void {
  const keys = new Set([
    ...(isObject(o.value) ? Object.keys(o.value) : []),
    ...(isObject(n.value) ? Object.keys(n.value) : []),
  ]);
  for (const key of keys) {
    if (handled.has(key)) continue;
    const { cls, why } = unknownKey(key, c.meaningfulExtensions);
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

/**
 * A media type's `encoding`: how each part of a form or multipart body is written (its content
 * type, headers, style, explode, allowReserved). Sender and reader must agree on it, so any change
 * breaks both sides.
 */
export function compareEncoding(c: Comparison, o: At, n: At): void {
  compareStructurally(
    c,
    child(o, "encoding"),
    child(n, "encoding"),
    "breaking",
    "the parts of the body are written otherwise on the wire, and sender and reader must agree on it",
    "encoding-changed",
  );
}
