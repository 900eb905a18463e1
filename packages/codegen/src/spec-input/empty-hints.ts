// Two slips of published documents that say nothing, read as saying nothing instead of being
// refused: `schema: null` where a media type, parameter or header could give a schema (Directus
// writes it for bodies of any shape), and discriminator mappings that name what the document does
// not hold (DigitalOcean's bundle kept `models/droplet_actions.yml#/droplet_action`). A mapping is
// a hint on top of `oneOf`/`anyOf`, which still decide, and no schema means any value.

import { type OpenApiDocument, valueAt } from "@marketapi/spec-loader";
import { isStructure } from "./document-places.js";

/** The document without those two slips (a copy; the document itself when it has neither). */
export function withoutEmptyHints(document: OpenApiDocument): OpenApiDocument {
  if (!hasEmptyHint(document, document)) return document;
  const copy = structuredClone(document);
  hasEmptyHint(copy, copy, true);
  return copy;
}

/** Whether `node` holds a slip; with `drop`, removes each one found. */
function hasEmptyHint(root: OpenApiDocument, node: unknown, drop = false, parentKey?: string): boolean {
  if (Array.isArray(node)) return node.map((item) => hasEmptyHint(root, item, drop)).some(Boolean);
  if (typeof node !== "object" || node === null) return false;
  const object = node as Record<string, unknown>;
  let found = false;
  if ("schema" in object && object.schema === null) {
    found = true;
    if (drop) delete object.schema;
  }
  const mapping = (object.discriminator as { mapping?: unknown } | undefined)?.mapping;
  if (typeof mapping === "object" && mapping !== null) {
    for (const [value, target] of Object.entries(mapping)) {
      if (namesSchema(root, target)) continue;
      found = true;
      if (drop) delete (mapping as Record<string, unknown>)[value];
    }
  }
  for (const [key, value] of Object.entries(object)) {
    if (!isStructure(key, parentKey)) continue;
    if (hasEmptyHint(root, value, drop, key)) found = true;
  }
  return found;
}

/** A mapping value names a schema: a reference inside the document, or a component schema's name. */
function namesSchema(root: OpenApiDocument, target: unknown): boolean {
  if (typeof target !== "string") return false;
  if (target.startsWith("#")) return valueAt(root, target) !== undefined;
  const schemas = (root.components as { schemas?: Record<string, unknown> } | undefined)?.schemas;
  return schemas !== undefined && Object.hasOwn(schemas, target);
}
