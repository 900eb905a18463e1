// Changes nobody wrote a rule for: every node of the real spec, removed or altered in turn, must
// give at least one change, located in one of the documents, and never a crash.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
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
 * Removals that change nothing: `required: false` is the default, and `security: []` on an
 * operation says what no security at all says. The diff must stay silent about those.
 */
const meansTheSame = (segments: (string | number)[], value: unknown) =>
  (segments.at(-1) === "required" && value === false) ||
  (segments.at(-1) === "security" &&
    Array.isArray(value) &&
    value.length === 0 &&
    spec.security === undefined);

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
