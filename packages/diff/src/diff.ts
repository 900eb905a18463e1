// The comparison of two OpenAPI 3.1 documents: every difference, classified.

import type { OpenApiDocument } from "@marketapi/spec-loader";
import { type Change, sortChanges } from "./change.js";
import { type At, Comparison, child, isObject, same, show } from "./comparison.js";
import { DOCUMENT_EXTENSIONS } from "./extensions/index.js";
import { compareOperations } from "./operation-diff.js";
import { compareSecuritySchemes } from "./security-diff.js";
import { compareRemainingKeys, compareServers, compareStructurally } from "./structural.js";
import { componentUsers } from "./usage.js";
import { compareWebhooks } from "./webhook-diff.js";

/**
 * Every change from `oldDocument` to `newDocument`, breaking first. Neither input is modified.
 * Both must have passed `checkDocument` (loadSpec does that).
 */
export interface DiffOptions {
  /**
   * `x-` extensions that carry meaning for the reader's clients or servers beyond those the diff
   * has rules for (marketapi's registry): a change to one is breaking instead of informational.
   */
  meaningfulExtensions?: readonly string[];
}

export function diffDocuments(
  oldDocument: OpenApiDocument,
  newDocument: OpenApiDocument,
  options: DiffOptions = {},
): Change[] {
  const c = new Comparison(oldDocument, newDocument, new Set(options.meaningfulExtensions ?? []));
  const o: At = { value: oldDocument, pointer: "" };
  const n: At = { value: newDocument, pointer: "" };
  compareOperations(c);
  compareWebhooks(c);
  compareSecuritySchemes(c);
  compareServers(c, child(o, "servers"), child(n, "servers"));
  compareInfo(c, child(o, "info"), child(n, "info"));
  compareUnreachedComponents(c);
  if (!same(oldDocument.openapi, newDocument.openapi)) {
    c.report(child(o, "openapi"), child(n, "openapi"), {
      kind: "openapi-version",
      class: "informational",
      message: `OpenAPI version ${show(oldDocument.openapi)} → ${show(newDocument.openapi)}`,
    });
  }
  if (!same(oldDocument.jsonSchemaDialect, newDocument.jsonSchemaDialect)) {
    c.report(child(o, "jsonSchemaDialect"), child(n, "jsonSchemaDialect"), {
      kind: "json-schema-dialect-changed",
      class: "breaking",
      breaksImplementations: true,
      message: `jsonSchemaDialect changed from ${show(oldDocument.jsonSchemaDialect)} to ${show(newDocument.jsonSchemaDialect)}: every schema without $schema is read by other rules`,
    });
  }
  for (const [key, rule] of DOCUMENT_EXTENSIONS) {
    rule.compare(c, child(o, key), child(n, key), { old: o, new: n });
  }
  compareRemainingKeys(
    c,
    o,
    n,
    new Set([
      "openapi",
      "info",
      "paths",
      "webhooks",
      "servers",
      "components",
      "security",
      "jsonSchemaDialect",
      ...DOCUMENT_EXTENSIONS.keys(),
    ]),
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
 * Components the comparison of operations did not reach (no operation uses them, or only where no
 * rule looks: an example, a link) are compared here, as data, under the operations that use them
 * if any. One that only one side has is used where a reference to it changed, and reported there.
 */
function compareUnreachedComponents(c: Comparison): void {
  const o: At = { value: c.oldDocument.components, pointer: "/components" };
  const n: At = { value: c.newDocument.components, pointer: "/components" };
  let users: { old: Map<string, Set<string>>; new: Map<string, Set<string>> } | undefined;
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
      const [before, after] = [child(was, name), child(is, name)];
      users ??= { old: componentUsers(c.oldDocument), new: componentUsers(c.newDocument) };
      const labels = [...new Set([...(users.old.get(pointer) ?? []), ...(users.new.get(pointer) ?? [])])];
      if (labels.length === 0) {
        compareStructurally(c, before, after, "informational", "no operation uses it", "unused-component");
      } else if (before.value !== undefined && after.value !== undefined) {
        const documents = section === "examples" || section === "links";
        for (const label of labels) {
          c.within(label, () =>
            compareStructurally(
              c,
              before,
              after,
              documents ? "informational" : "breaking",
              documents
                ? "documentation only"
                : "used where no rule compares it, so it counts as breaking until one does",
            ),
          );
        }
      }
    }
  }
  compareRemainingKeys(c, o, n, new Set([...COMPONENT_SECTIONS, "securitySchemes"]));
}
