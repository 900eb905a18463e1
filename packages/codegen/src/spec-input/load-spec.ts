import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMap, isScalar, isSeq, LineCounter, type Node, parse, parseDocument, YAMLParseError } from "yaml";
import { describeValue, SpecError, segmentsOf } from "./spec-error.js";

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is untyped input
export type OpenApiDocument = Record<string, any>;

/** Where a node is written in the spec's text: 1-based line and column. */
export interface TextPosition {
  line: number;
  column: number;
}

export interface LoadedSpec {
  /** How the spec is named in messages and generated headers: the path as given, or the package name. */
  source: string;
  document: OpenApiDocument;
  /**
   * Where the node at a JSON Pointer is written (for a pointer to a missing field: the nearest
   * written ancestor). Absent for documents that were not read from text.
   */
  locate?(pointer: string): TextPosition | undefined;
}

/** The spec shipped in @marketapi/spec, used when no --spec is given. */
export const DEFAULT_SPEC = "@marketapi/spec";

/**
 * Loads an OpenAPI document from a YAML or JSON file, or from an installed package that exports
 * `openapi.json` (such as @marketapi/spec). Throws SpecError on unreadable or unparsable input.
 */
export async function loadSpec(spec: string = DEFAULT_SPEC): Promise<LoadedSpec> {
  const file = await locateSpec(spec);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new SpecError(spec, "", "a readable YAML or JSON file", `an error: ${(error as Error).message}`);
  }
  return { source: spec, document: parseSpecText(spec, text), locate: textLocator(text) };
}

/** Parses spec text (JSON is YAML, so one parser serves both). */
export function parseSpecText(source: string, text: string): OpenApiDocument {
  let document: unknown;
  try {
    document = parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (error) {
    const message = (error as Error).message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    const fault = new SpecError(source, "", "a YAML or JSON document", `a syntax error: ${message}`);
    const position = error instanceof YAMLParseError ? error.linePos?.[0] : undefined;
    throw position ? fault.locate(position.line, position.col) : fault;
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new SpecError(source, "", "an OpenAPI 3.1 object at the top level", describeValue(document));
  }
  return document as OpenApiDocument;
}

/**
 * Finds JSON Pointers in the text, parsing it again (with positions) only when asked: errors are
 * rare, and a plain parse is cheaper. A field is located at its key.
 */
function textLocator(text: string): (pointer: string) => TextPosition | undefined {
  let tree: { root: Node | null; lines: LineCounter } | undefined;
  return (pointer) => {
    if (!tree) {
      const lines = new LineCounter();
      const parsed = parseDocument(text, { lineCounter: lines });
      tree = { root: parsed.contents as Node | null, lines };
    }
    let node: unknown = tree.root;
    let at = (node as Node | null)?.range?.[0];
    for (const segment of segmentsOf(pointer)) {
      if (isMap(node)) {
        const pair = node.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === segment);
        if (!pair) break;
        at = (isScalar(pair.key) ? pair.key.range?.[0] : undefined) ?? at;
        node = pair.value;
      } else if (isSeq(node)) {
        const item = node.items[Number(segment)] as Node | undefined;
        if (!/^\d+$/.test(segment) || !item) break;
        at = item.range?.[0] ?? at;
        node = item;
      } else break;
    }
    if (at === undefined) return undefined;
    const { line, col } = tree.lines.linePos(at);
    return { line, column: col };
  };
}

/**
 * The file behind `--spec`: the path itself, or a package's `openapi.json`, resolved from the
 * working folder first (the consumer's own dependencies), then from this package (which depends on
 * @marketapi/spec).
 */
async function locateSpec(spec: string): Promise<string> {
  if (existsSync(spec) || !looksLikePackageName(spec)) return spec;
  const request = `${spec}/openapi.json`;
  for (const base of [join(process.cwd(), "package.json"), fileURLToPath(import.meta.url)]) {
    try {
      return createRequire(base).resolve(request);
    } catch {
      // not installed there
    }
  }
  throw new SpecError(spec, "", `an installed package that exports "${request}"`, "no such package");
}

function looksLikePackageName(spec: string): boolean {
  return /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(spec) && !/\.(ya?ml|json)$/.test(spec);
}
