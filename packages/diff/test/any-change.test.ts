// Changes nobody wrote a rule for: every node of the real spec, removed or altered in turn, must
// give at least one change, located in one of the documents, and never a crash.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { pointerOf, valueAt } from "@marketapi/spec-loader";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { diffDocuments, type OpenApiDocument } from "../src/index.js";

const specPath = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  "specs",
  "spot-api.openapi.yaml",
);
const spec: OpenApiDocument = parse(readFileSync(specPath, "utf8"));

/** Every node's pointer and value, depth first. */
function* nodes(
  value: unknown,
  segments: (string | number)[] = [],
): Generator<[(string | number)[], unknown]> {
  yield [segments, value];
  if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value))
      yield* nodes(inner, [...segments, Array.isArray(value) ? Number(key) : key]);
  }
}

function mutated(
  segments: (string | number)[],
  mutate: (parent: Record<string, unknown>, key: string | number) => void,
): OpenApiDocument {
  const copy = structuredClone(spec);
  let parent: Record<string, unknown> = copy;
  for (const segment of segments.slice(0, -1)) parent = parent[segment] as Record<string, unknown>;
  mutate(parent, segments.at(-1)!);
  return copy;
}

const alter = (value: unknown): unknown =>
  typeof value === "string"
    ? `${value}x`
    : typeof value === "number"
      ? value + 1
      : typeof value === "boolean"
        ? !value
        : undefined;

/**
 * Removals that change nothing: `required: false` is the default, `security: []` on an
 * operation says what no security at all says, and a constraint another `allOf` branch states too
 * (see impliedByAllOfSibling). The diff must stay silent about those.
 */
const meansTheSame = (segments: (string | number)[], value: unknown) =>
  (segments.at(-1) === "required" && value === false) ||
  (segments.at(-1) === "security" &&
    Array.isArray(value) &&
    value.length === 0 &&
    spec.security === undefined) ||
  impliedByAllOfSibling(segments, value);

/** The schema a `$ref` names, or the value itself. */
const resolved = (value: unknown): unknown => {
  const ref = (value as { $ref?: unknown } | null)?.$ref;
  return typeof ref === "string" ? valueAt(spec, ref.slice(1)) : value;
};

/** The value at `relative` inside a schema, following `$ref`s on the way. */
function within(schema: unknown, relative: (string | number)[]): unknown {
  let at = resolved(schema);
  for (const segment of relative) at = resolved((at as Record<string, unknown> | undefined)?.[segment]);
  return at;
}

/**
 * A sibling branch of an `allOf` states `value` at the same place: as the same keyword, or, for a
 * removed `allOf` member, as the schema of the place itself or one of its own `allOf` members.
 */
function restatedBySibling(
  branches: unknown[],
  index: number,
  relative: (string | number)[],
  value: unknown,
): boolean {
  const memberOf = relative.at(-2) === "allOf" ? relative.slice(0, -2) : undefined;
  return branches.some((branch, other) => {
    if (other === index) return false;
    if (isDeepStrictEqual(within(branch, relative), value)) return true;
    if (memberOf === undefined) return false;
    const place = within(branch, memberOf) as { allOf?: unknown[] } | undefined;
    return [place, ...(place?.allOf ?? [])].some((member) =>
      isDeepStrictEqual(resolved(member), resolved(value)),
    );
  });
}

type AllOfUse = { branches: unknown[]; index: number; relative: (string | number)[] };

/** Each `allOf` the node at `segments` sits in: as written around it, and where its component is used. */
function allOfUses(segments: (string | number)[]): AllOfUse[][] {
  const levels: AllOfUse[][] = [];
  segments.forEach((segment, at) => {
    if (segment !== "allOf" || typeof segments[at + 1] !== "number") return;
    const branches = valueAt(spec, pointerOf(...segments.slice(0, at + 1))) as unknown[];
    levels.push([{ branches, index: segments[at + 1] as number, relative: segments.slice(at + 2) }]);
  });
  if (segments[0] === "components" && segments[1] === "schemas") {
    const target = `#${pointerOf(...segments.slice(0, 3))}`;
    const uses: AllOfUse[] = [];
    let onlyInAllOf = true;
    for (const [at, node] of nodes(spec)) {
      if ((node as { $ref?: unknown } | null)?.$ref !== target) continue;
      if (at.at(-2) !== "allOf" || typeof at.at(-1) !== "number") onlyInAllOf = false;
      else
        uses.push({
          branches: valueAt(spec, pointerOf(...at.slice(0, -1))) as unknown[],
          index: at.at(-1) as number,
          relative: segments.slice(3),
        });
    }
    if (onlyInAllOf && uses.length > 0) levels.push(uses);
  }
  return levels;
}

/**
 * A removal inside one branch of an `allOf` that another branch states as well accepts and
 * produces the same instances (`type: object` on every part of a composed response, a property's
 * `$ref` repeated in a refinement), so the diff, which compares what schemas accept, is silent.
 */
const impliedByAllOfSibling = (segments: (string | number)[], value: unknown) =>
  allOfUses(segments).some((uses) =>
    uses.every(({ branches, index, relative }) => restatedBySibling(branches, index, relative, value)),
  );

// Every 8th node keeps the run short; the sample still covers every part of the document.
const sample = [...nodes(spec)].filter(([segments], index) => segments.length > 1 && index % 8 === 0);

describe("marketapi-diff on changes outside its table", () => {
  it("finds nothing between a document and a copy of it", () => {
    expect(diffDocuments(spec, structuredClone(spec))).toEqual([]);
  });

  it(`reports each of ${sample.length} removals and scalar changes across the spec, at a pointer that exists`, () => {
    const silent: string[] = [];
    for (const [segments, value] of sample) {
      const variants: OpenApiDocument[] = [
        mutated(segments, (parent, key) =>
          Array.isArray(parent) ? parent.splice(Number(key), 1) : delete parent[key],
        ),
      ];
      if (alter(value) !== undefined)
        variants.push(mutated(segments, (parent, key) => (parent[key] = alter(value))));
      for (const changed of variants) {
        const changes = diffDocuments(spec, changed);
        const removal = changed === variants[0];
        if (changes.length === 0 && !(removal && meansTheSame(segments, value)))
          silent.push(pointerOf(...segments));
        if (changes.length > 0 && removal && meansTheSame(segments, value))
          silent.push(`${pointerOf(...segments)} (reported, but means the same)`);
        for (const change of changes) {
          const document = change.in === "old" ? spec : changed;
          const parent = change.pointer.replace(/\/[^/]*$/, "");
          expect(
            valueAt(document, change.pointer) ?? valueAt(document, parent),
            change.pointer,
          ).toBeDefined();
        }
      }
    }
    expect(silent, JSON.stringify(silent)).toEqual([]);
  });
});
