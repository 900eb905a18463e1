// A `$ref` may point anywhere a JSON Pointer reaches: DigitalOcean's bundled document holds 2,798
// into `#/paths/...`. The generators share what is referenced through `components`:
// openapi-typescript types a reference by the path it names (`paths["/v2/x"]["get"]["parameters"][0]`
// is no type), the validators compile `#/components/schemas/...` only, and `--operations` drops the
// path items it does not keep. So each referenced node outside `components` moves into
// `components` (under a name made of its place) and leaves a `$ref` to itself behind; every
// reference to it follows. Where each moved node came from is kept, so that a fault found in it
// later is reported at its place in the spec.

import { type OpenApiDocument, pointerOf, SpecError, segmentsOf, valueAt } from "@marketapi/spec-loader";
import { componentKindAt, isStructure } from "./document-places.js";

export interface HoistedDocument {
  /** A copy of the document whose references all point into `components` (or at path items). */
  document: OpenApiDocument;
  /** Where each moved node stood: `/components/<kind>/<name>` → its pointer in the spec. */
  origins: ReadonlyMap<string, string>;
}

/** Whether a reference already names what the generators read: a component, or a part of a schema component. */
function namesComponent(segments: readonly string[]): boolean {
  if (segments[0] !== "components") return false;
  return segments.length === 3 || (segments.length > 3 && segments[1] === "schemas");
}

/** Calls `visit` on every object holding a `$ref` (data and extensions left out), with its segments. */
function forEachReference(
  node: unknown,
  visit: (holder: { $ref: string }, segments: string[]) => void,
  segments: string[] = [],
): void {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) forEachReference(item, visit, [...segments, String(i)]);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const object = node as Record<string, unknown>;
  if (typeof object.$ref === "string") visit(object as { $ref: string }, segments);
  for (const [key, value] of Object.entries(object)) {
    if (key !== "$ref" && isStructure(key, segments.at(-1)))
      forEachReference(value, visit, [...segments, key]);
  }
}

/** A component name made of a node's place: `v2_droplets_get_parameters_0`. */
function nameOf(segments: readonly string[], taken: Set<string>): string {
  const base =
    segments
      .join("_")
      .replace(/[^A-Za-z0-9_.-]+/g, "_")
      .replace(/_+/g, "_")
      .replace(/^[_.-]+|[_.-]+$/g, "") || "ref";
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/**
 * Moves every node that a `$ref` names outside `components` into `components` (see the head of
 * this module). The document must have passed the structure check: every reference resolves.
 * Returns the document itself when nothing moves.
 */
export function hoistReferences(document: OpenApiDocument): HoistedDocument {
  const targets = new Map<string, string[]>();
  // Media type objects have no components section: a reference to one is replaced by a copy of
  // it, whose schema moves like any other target so that the copy and the original share it.
  const mediaTypes = new Set<string>();
  forEachReference(document, ({ $ref }) => {
    if (!$ref.startsWith("#")) return;
    const segments = segmentsOf($ref);
    if (segments.length === 0 || namesComponent(segments)) return;
    if (segments.at(-2) === "content") {
      mediaTypes.add(pointerOf(...segments));
      const schema = [...segments, "schema"];
      if (valueAt(document, pointerOf(...schema)) !== undefined) targets.set(pointerOf(...schema), schema);
      return;
    }
    if (componentKindAt(segments) === undefined) return;
    targets.set(pointerOf(...segments), segments);
  });
  if (targets.size === 0 && mediaTypes.size === 0) return { document, origins: new Map() };

  const copy = structuredClone(document) as OpenApiDocument & { components?: Record<string, unknown> };
  copy.components ??= {};
  const components = copy.components as Record<string, Record<string, unknown>>;
  const origins = new Map<string, string>();
  const moved = new Map<string, string>();
  // Innermost first: a node that holds another target keeps its place until its own turn.
  const order = [...targets.entries()].sort(([, a], [, b]) => b.length - a.length);
  for (const [pointer, segments] of order) {
    const kind = componentKindAt(segments)!;
    components[kind] ??= {};
    const section = components[kind];
    const taken = new Set(Object.keys(section));
    const name = nameOf(segments[0] === "paths" ? segments.slice(1) : segments, taken);
    const parent = valueAt(copy, pointerOf(...segments.slice(0, -1))) as Record<string, unknown>;
    const key = segments.at(-1)!;
    const ref = `#${pointerOf("components", kind, name)}`;
    section[name] = parent[key];
    parent[key] = { $ref: ref };
    origins.set(pointerOf("components", kind, name), pointer);
    moved.set(pointer, ref);
  }
  const retarget = (value: string): string | undefined =>
    value.startsWith("#") ? moved.get(pointerOf(...segmentsOf(value))) : undefined;
  forEachReference(copy, (holder) => {
    const target = retarget(holder.$ref);
    if (target !== undefined) holder.$ref = target;
  });
  forEachReference(copy, (holder) => {
    if (!holder.$ref.startsWith("#") || !mediaTypes.has(pointerOf(...segmentsOf(holder.$ref)))) return;
    const media = valueAt(copy, holder.$ref);
    const { $ref: _replaced, ...beside } = holder as Record<string, unknown>;
    for (const key of Object.keys(holder)) delete (holder as Record<string, unknown>)[key];
    Object.assign(holder, structuredClone(media), beside);
  });
  retargetMappings(copy, retarget);
  return { document: copy, origins };
}

/** Discriminator mappings name schemas by reference too. */
function retargetMappings(
  node: unknown,
  retarget: (value: string) => string | undefined,
  parentKey?: string,
): void {
  if (Array.isArray(node)) {
    for (const item of node) retargetMappings(item, retarget);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const object = node as Record<string, unknown>;
  const mapping = (object.discriminator as { mapping?: Record<string, unknown> } | undefined)?.mapping;
  if (typeof mapping === "object" && mapping !== null) {
    for (const [value, ref] of Object.entries(mapping)) {
      const target = typeof ref === "string" ? retarget(ref) : undefined;
      if (target !== undefined) mapping[value] = target;
    }
  }
  for (const [key, value] of Object.entries(object)) {
    if (isStructure(key, parentKey)) retargetMappings(value, retarget, key);
  }
}

/**
 * The same fault at the place the spec wrote it: a pointer into a moved node is turned back into
 * its pointer in the spec. Faults elsewhere are left as they are.
 */
export function atOriginalPlace(error: unknown, origins: ReadonlyMap<string, string>): unknown {
  if (!(error instanceof SpecError) || origins.size === 0) return error;
  const [first, ...rest] = error.all().map((fault) => relocated(fault, origins));
  first!.others.push(...rest);
  return first;
}

/** A new fault (without others) at the spec's place of `fault`'s node. */
function relocated(fault: SpecError, origins: ReadonlyMap<string, string>): SpecError {
  const segments = segmentsOf(fault.pointer);
  const origin = segments[0] === "components" ? origins.get(pointerOf(...segments.slice(0, 3))) : undefined;
  const pointer = origin === undefined ? fault.pointer : origin + pointerOf(...segments.slice(3));
  const moved = new SpecError(fault.source, pointer, fault.expected, fault.found);
  return fault.line !== undefined && fault.column !== undefined
    ? moved.locate(fault.line, fault.column)
    : moved;
}
