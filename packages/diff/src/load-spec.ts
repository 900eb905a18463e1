// Reads the two documents of a comparison: a YAML or JSON file, or an installed package that
// exports `openapi.json` (such as @marketapi/spec). The documents stay as parsed, raw JSON values:
// comparing two documents needs both exactly as written, $refs included.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { isMap, isScalar, isSeq, LineCounter, type Node, parse, parseDocument, YAMLParseError } from "yaml";
import { checkDocument } from "./check-document.js";
import { describeValue, SpecError, segmentsOf } from "./spec-error.js";

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is untyped input
export type OpenApiDocument = Record<string, any>;

export interface TextPosition {
  line: number;
  column: number;
}

export interface LoadedSpec {
  /** The name used in messages: the path as given, or the package name. */
  source: string;
  document: OpenApiDocument;
  /** Where the node at a JSON Pointer is written (nearest written ancestor for a missing one). */
  locate?(pointer: string): TextPosition | undefined;
}

/** Loads and checks a document; throws SpecError (located when possible) on bad input. */
export function loadSpec(spec: string, cwd: string = process.cwd()): LoadedSpec {
  const file = locateSpecFile(spec, cwd);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new SpecError(spec, "", "a readable YAML or JSON file", `an error: ${(error as Error).message}`);
  }
  return specFromText(spec, text);
}

/** A document from its text, checked as loadSpec checks it. */
export function specFromText(source: string, text: string): LoadedSpec {
  const loaded: LoadedSpec = { source, document: parseSpecText(source, text), locate: textLocator(text) };
  try {
    checkDocument(source, loaded.document);
  } catch (error) {
    throw located(error, loaded);
  }
  return loaded;
}

/** Adds the line and column to a SpecError about this document. */
export function located(error: unknown, spec: LoadedSpec): unknown {
  if (!(error instanceof SpecError) || error.line !== undefined || !spec.locate) return error;
  const position = spec.locate(error.pointer);
  return position ? error.locate(position.line, position.column) : error;
}

function parseSpecText(source: string, text: string): OpenApiDocument {
  const document = parseJson(text) ?? parseYaml(source, text);
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new SpecError(source, "", "an OpenAPI 3.1 object at the top level", describeValue(document));
  }
  return document as OpenApiDocument;
}

/** YAML, or JSON that JSON.parse refused (JSON is YAML): a syntax error is located. */
function parseYaml(source: string, text: string): unknown {
  try {
    return parse(text, { prettyErrors: true, uniqueKeys: true });
  } catch (error) {
    const message = (error as Error).message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    const fault = new SpecError(source, "", "a YAML or JSON document", `a syntax error: ${message}`);
    const position = error instanceof YAMLParseError ? error.linePos?.[0] : undefined;
    throw position ? fault.locate(position.line, position.col) : fault;
  }
}

/**
 * JSON text (a package's openapi.json) through JSON.parse, many times faster than the YAML parser;
 * undefined for anything else, and for broken JSON, which the YAML parser then locates.
 */
function parseJson(text: string): unknown {
  if (!text.trimStart().startsWith("{")) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Finds a pointer in the text, parsing again with positions only when asked (errors are rare). */
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

/** The path itself, or a package's `openapi.json` resolved from the working folder. */
function locateSpecFile(spec: string, cwd: string): string {
  if (existsSync(spec) || !looksLikePackageName(spec)) return spec;
  const request = `${spec}/openapi.json`;
  try {
    return createRequire(join(cwd, "package.json")).resolve(request);
  } catch {
    throw new SpecError(spec, "", `a file, or an installed package that exports "${request}"`, "neither");
  }
}

function looksLikePackageName(spec: string): boolean {
  return /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(spec) && !/\.(ya?ml|json)$/.test(spec);
}
