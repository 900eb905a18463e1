// The comparison of two OpenAPI 3.1 documents: every difference, classified.
import { type Change, sortChanges } from "./change.js";
import { type At, Comparison, child, isObject, same, show } from "./comparison.js";
import { DOCUMENT_EXTENSIONS } from "./extensions/index.js";
import type { OpenApiDocument } from "./load-spec.js";
import { compareOperations } from "./operation-diff.js";
import { compareSecuritySchemes } from "./security-diff.js";
import { compareRemainingKeys, compareStructurally } from "./structural.js";

/**
 * Every change from `oldDocument` to `newDocument`, breaking first. Neither input is modified.
 * Both must have passed `checkDocument` (loadSpec does that).
 */
export function diffDocuments(oldDocument: OpenApiDocument, newDocument: OpenApiDocument): Change[] {
  const c = new Comparison(oldDocument, newDocument);
  const o: At = { value: oldDocument, pointer: "" };
  const n: At = { value: newDocument, pointer: "" };
  compareOperations(c);
  compareSecuritySchemes(c);
  compareInfo(c, child(o, "info"), child(n, "info"));
  compareUnreachedComponents(c);
  if (!same(oldDocument.openapi, newDocument.openapi)) {
    c.report(child(o, "openapi"), child(n, "openapi"), {
      kind: "openapi-version",
      class: "informational",
      message: `OpenAPI version ${show(oldDocument.openapi)} → ${show(newDocument.openapi)}`,
    });
  }
  for (const [key, rule] of DOCUMENT_EXTENSIONS) {
    rule.compare(c, child(o, key), child(n, key), { old: o, new: n });
  }
  compareRemainingKeys(
    c,
    o,
    n,
    new Set(["openapi", "info", "paths", "components", "security", ...DOCUMENT_EXTENSIONS.keys()]),
  );
  return sortChanges(c.changes);
}

function compareInfo(c: Comparison, o: At, n: At): void {
  const version = (at: At) => child(at, "version");
  if (!same(version(o).value, version(n).value)) {
    c.report(version(o), version(n), {
      kind: "api-version",
      class: "informational",
      message: `API version ${show(version(o).value)} → ${show(version(n).value)}`,
    });
  }
  for (const key of new Set([...Object.keys(o.value as object), ...Object.keys(n.value as object)])) {
    if (key !== "version")
      compareStructurally(c, child(o, key), child(n, key), "informational", "documentation only");
  }
}

const COMPONENT_SECTIONS = [
  "schemas",
  "parameters",
  "responses",
  "requestBodies",
  "headers",
  "examples",
  "links",
  "callbacks",
  "pathItems",
];

/**
 * Components no operation reaches were not compared on the way: compared here, as data. They
 * change nothing a client of these operations sees, so the class is informational.
 */
function compareUnreachedComponents(c: Comparison): void {
  const o: At = { value: c.oldDocument.components, pointer: "/components" };
  const n: At = { value: c.newDocument.components, pointer: "/components" };
  for (const section of COMPONENT_SECTIONS) {
    const was = child(o, section);
    const is = child(n, section);
    const names = new Set([
      ...Object.keys(isObject(was.value) ? was.value : {}),
      ...Object.keys(isObject(is.value) ? is.value : {}),
    ]);
    for (const name of names) {
      const pointer = `/components/${section}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (c.reached.old.has(pointer) || c.reached.new.has(pointer)) continue;
      compareStructurally(
        c,
        child(was, name),
        child(is, name),
        "informational",
        "no operation uses it",
        "unused-component",
      );
    }
  }
  compareRemainingKeys(c, o, n, new Set([...COMPONENT_SECTIONS, "securitySchemes"]));
}
