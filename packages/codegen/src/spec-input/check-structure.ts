// The structure check: is the input an OpenAPI 3.1 document at all, before the generators read
// it? The version and the references are checked here; the shape of every object (required
// fields, field types, unknown fields) is checked by Redocly's `struct` rule, the same structure
// definitions `redocly lint` applies to specs/ in this repository.

import {
  describeValue,
  type LoadedSpec,
  type OpenApiDocument,
  pointerOf,
  SpecError,
  segmentsOf,
  valueAt,
} from "@marketapi/spec-loader";
import { BaseResolver, createConfig, type Document, lintDocument, Source } from "@redocly/openapi-core";
import { componentKindAt, insideExtension, isStructure } from "./document-places.js";
import { checkVersion } from "./openapi-version.js";

/**
 * Checks that the document is OpenAPI 3.1, that every `$ref` points inside it, and that every
 * object has the structure OpenAPI 3.1 defines. Throws one SpecError carrying every fault found;
 * nothing outside the document is read.
 */
export async function checkStructure(spec: LoadedSpec): Promise<void> {
  checkVersion(spec.source, spec.document);
  const faults = referenceFaults(spec);
  if (faults.length === 0) faults.push(...(await structureFaults(spec)));
  if (faults.length === 0) return;
  const [first, ...rest] = faults as [SpecError, ...SpecError[]];
  first.others.push(...rest);
  throw first;
}

/**
 * Every `$ref` that leaves the document (another file, a URL: a bundled spec is needed), and every
 * `$ref` that only leads to other `$ref`s and back (`A: {$ref: A}`): such a loop names no value.
 */
function referenceFaults({ source, document }: LoadedSpec): SpecError[] {
  const faults: SpecError[] = [];
  const loopsSeen = new Set<string>();
  const walk = (node: unknown, path: string[]) => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, [...path, String(i)]);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    for (const [key, value] of Object.entries(node as OpenApiDocument)) {
      if (key === "$ref" && typeof value === "string") {
        const fault = value.startsWith("#")
          ? refLoopFault(source, document, value, loopsSeen)
          : new SpecError(
              source,
              pointerOf(...path, key),
              "a reference inside the document (#/...); bundle a multi-file spec into one file first (redocly bundle)",
              describeValue(value),
            );
        if (fault) faults.push(fault);
      } else if (isStructure(key, path.at(-1))) {
        walk(value, [...path, key]);
      }
    }
  };
  walk(document, []);
  return faults;
}

/**
 * A fault at the first `$ref` of a loop, when following `ref` meets only `$ref`s until one comes
 * again; each loop is reported once.
 */
function refLoopFault(
  source: string,
  document: OpenApiDocument,
  ref: string,
  loopsSeen: Set<string>,
): SpecError | undefined {
  const chain = [ref];
  for (let target = valueAt(document, ref); ; ) {
    const next = (target as { $ref?: unknown } | undefined)?.$ref;
    if (typeof target !== "object" || target === null || typeof next !== "string") return undefined;
    if (!next.startsWith("#")) return undefined;
    const again = chain.indexOf(next);
    if (again !== -1) {
      const loop = chain.slice(again);
      const key = [...loop].sort().join("\n");
      if (loopsSeen.has(key)) return undefined;
      loopsSeen.add(key);
      return new SpecError(
        source,
        pointerOf(...segmentsOf(loop[0]!), "$ref"),
        "a reference that leads to a value",
        `a loop of references: ${[...loop, next].join(" → ")}`,
      );
    }
    chain.push(next);
    target = valueAt(document, next);
  }
}

/** A resolver that never leaves the document: external references were refused before. */
class DocumentOnlyResolver extends BaseResolver {
  override async loadExternalRef(absoluteRef: string): Promise<Source> {
    throw new Error(`external reference ${absoluteRef} is not followed`);
  }
}

let structureConfig: ReturnType<typeof createConfig> | undefined;

/** Redocly's structure rule (and unresolved references) over the document, as SpecErrors. */
async function structureFaults(spec: LoadedSpec): Promise<SpecError[]> {
  structureConfig ??= createConfig({ rules: { struct: "error", "no-unresolved-refs": "error" } });
  const config = await structureConfig;
  // Redocly reads the parsed value; the source text is only for its own messages, which are not used.
  const document: Document = { source: new Source(spec.source, ""), parsed: spec.document };
  const problems = await lintDocument({
    document,
    config: config.styleguide,
    externalRefResolver: new DocumentOnlyResolver(config.resolve),
  });
  const faults: SpecError[] = [];
  const seen = new Set<string>();
  for (const problem of problems) {
    if (problem.severity !== "error") continue;
    const location = problem.location[0];
    if (insideExtension(segmentsOf(location?.pointer ?? "#"))) continue;
    if (unknownSchemaKeyword(problem.message, segmentsOf(location?.pointer ?? "#"))) continue;
    const fault = faultOf(spec, location?.pointer ?? "#", problem.message, problem.suggest);
    const key = `${fault.pointer}\n${fault.expected}`;
    if (seen.has(key)) continue; // a node reached through several $refs is reported once
    seen.add(key);
    faults.push(fault);
  }
  return faults;
}

/**
 * A keyword JSON Schema 2020-12 does not define, in a schema: an annotation, which OpenAPI 3.1
 * schemas may carry (Redocly's structure rule reports it as an unknown field).
 */
function unknownSchemaKeyword(message: string, segments: readonly string[]): boolean {
  return (
    /^Property `.+` is not expected here\.$/.test(message) &&
    componentKindAt(segments.slice(0, -1)) === "schemas"
  );
}

/** What a Redocly message means, as [pointer, expected, found]; `at` is the reported node. */
type Rephrase = (
  match: RegExpExecArray,
  at: { segments: string[]; value: unknown; suggest: string[] },
) => [string, string, string];

const here = (at: { segments: string[] }) => pointerOf(...at.segments);

/** Redocly's struct and no-unresolved-refs messages, rephrased; the first that matches applies. */
const REPHRASINGS: [RegExp, Rephrase][] = [
  [
    /^The field `(.+)` must be present on this level\.$/,
    (m, at) => [
      pointerOf(...at.segments, m[1]!),
      `the field "${m[1]}", which OpenAPI 3.1 requires here`,
      "nothing",
    ],
  ],
  [
    /^Expected type `(.+)` \((object|array)\) but got `(.+)`$/,
    (m, at) => [here(at), `an OpenAPI 3.1 ${m[1]} ${m[2]}`, describeValue(at.value)],
  ],
  [
    /^Expected type `(.+)` but got `(.+)`\.$/,
    (m, at) => [here(at), `a value of type ${m[1]}`, describeValue(at.value)],
  ],
  [
    /^Property `(.+)` is not expected here\.$/,
    (m, at) => [
      here(at),
      `a field OpenAPI 3.1 defines here, or an x- extension${at.suggest[0] ? ` (did you mean "${at.suggest[0]}"?)` : ""}`,
      `"${m[1]}"`,
    ],
  ],
  [
    /^The field `(.+)` is not allowed here\.$/,
    (m, at) => [here(at), `no "${m[1]}" field next to the fields already here`, describeValue(at.value)],
  ],
  [
    /^Must contain at least one of the following fields: (.+)\.$/,
    (m, at) => [here(at), `at least one of the fields ${m[1]}`, "none of them"],
  ],
  [
    /^`.*` can be one of the following only: (.+)\.$/,
    (m, at) => [here(at), `one of ${m[1]}`, describeValue(at.value)],
  ],
  [
    /^Can't resolve \$ref/,
    (_m, at) => [here(at), "a $ref to a part of the document that exists", describeValue(at.value)],
  ],
  [/^(.*?)\.?$/, (m, at) => [here(at), `valid OpenAPI 3.1 (${m[1]})`, describeValue(at.value)]],
];

/** Redocly's message, rephrased as what was expected at the pointer and what is there. */
function faultOf(spec: LoadedSpec, fragment: string, message: string, suggest: string[]): SpecError {
  const segments = segmentsOf(fragment);
  const at = { segments, value: valueAt(spec.document, pointerOf(...segments)), suggest };
  for (const [pattern, rephrase] of REPHRASINGS) {
    const match = pattern.exec(message);
    if (match) return new SpecError(spec.source, ...rephrase(match, at));
  }
  throw new Error("unreachable: the last rephrasing matches every message");
}
