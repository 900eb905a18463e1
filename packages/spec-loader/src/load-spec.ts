// Reads an OpenAPI document: a YAML or JSON file, or an installed package that exports
// `openapi.json` (such as @marketapi/spec). The document stays as parsed, raw JSON: what a reader
// requires of it (codegen's model, the diff's document check) is that reader's business, so a
// document any of them would refuse still loads here. What is refused here is input no reader
// should meet: too large, not UTF-8, control characters, nesting deeper than MAX_NESTING_DEPTH,
// a YAML alias inside itself, text that is not YAML or JSON, a top level that is not an object.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  isMap,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  type Node,
  parse,
  parseDocument,
  YAMLParseError,
} from "yaml";
import {
  checkJsonDepth,
  DEFAULT_MAX_INPUT_BYTES,
  findTooDeep,
  InputError,
  MAX_INPUT_BYTES_ENV,
  MAX_NESTING_DEPTH,
  maxInputBytes,
  positionOfIndex,
  readTextFile,
  tooDeep,
} from "./input.js";
import { segmentsOf } from "./json-pointer.js";
import { checkDeclaredVersion, isOpenApi30 } from "./openapi-version.js";
import { describeValue, SpecError } from "./spec-error.js";
import { locateInJson } from "./text-scan.js";
import { upgradeOpenApi30 } from "./upgrade-3.0.js";

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
  /** The version the text declared when the document was upgraded to 3.1 (`openApi30: "upgrade"`). */
  upgradedFrom?: string;
  /** The text the document was parsed from (absent for documents that were not read from text). */
  text?: string;
  /** The file read: the path as given, or a package's `openapi.json` (absent when not read from a file). */
  file?: string;
}

export interface LoadOptions {
  /** Where package names are resolved first (default: the working folder). */
  cwd?: string;
  /** The most bytes read (default: MARKETAPI_MAX_INPUT_BYTES, else 16 MiB). */
  maxBytes?: number;
  /** The deepest nesting of arrays and objects accepted (default MAX_NESTING_DEPTH). */
  maxDepth?: number;
  /**
   * Runs on the text before it is parsed (a reader's cheap refusal, such as a version it does not
   * read: see declaredVersion); a SpecError it throws is located with the text's positions.
   */
  checkText?: (text: string, locate: (pointer: string) => TextPosition | undefined) => void;
  /**
   * "upgrade": the reader takes OpenAPI 3.1 and 3.0. The version the text declares is checked
   * before parsing (Swagger 2.0 refused naming a converter, versions but 3.0 and 3.1 refused, all
   * located), and a 3.0 document is upgraded to 3.1 in memory (upgradeOpenApi30), its pointers
   * unchanged so that faults are still located in the text. Without it the document stays as parsed.
   */
  openApi30?: "upgrade";
}

/** The spec shipped in @marketapi/spec, the default of the commands. */
export const DEFAULT_SPEC = "@marketapi/spec";

/** Loads a document from a file or a package; throws SpecError (located when possible) on bad input. */
export function loadSpec(spec: string = DEFAULT_SPEC, options: LoadOptions = {}): LoadedSpec {
  const file = locateSpecFile(spec, options.cwd ?? process.cwd());
  const maxBytes = asSpecError(() => options.maxBytes ?? maxInputBytes());
  const text = asSpecError(() => readTextFile(file, { source: spec, maxBytes, kind: "YAML or JSON file" }));
  if (options.checkText) {
    const locate = textLocator(text);
    try {
      options.checkText(text, locate);
    } catch (error) {
      throw located(error, { source: spec, locate });
    }
  }
  return { ...specFromText(spec, text, { ...options, maxBytes }), file };
}

/** A document from its text, refused as loadSpec refuses it. */
export function specFromText(
  source: string,
  text: string,
  options: Pick<LoadOptions, "maxDepth" | "maxBytes" | "openApi30"> = {},
): LoadedSpec {
  if (options.openApi30 === "upgrade") checkDeclaredVersion(source, text);
  const locate = textLocator(text);
  const maxTokens = yamlTokenLimit(options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES);
  const document = parseSpecText(source, text, options.maxDepth, maxTokens);
  if (options.openApi30 === "upgrade" && isOpenApi30(document)) {
    return { source, document: upgradeOpenApi30(document), locate, upgradedFrom: document.openapi, text };
  }
  return { source, document, locate, text };
}

/**
 * The YAML parser keeps about 240 bytes per token (a 15 MB list of small maps took 4.3 GB), JSON.parse
 * a few: YAML may hold one token per 8 bytes of the size cap (2 million for 16 MiB; the bundled
 * spec has 16,000 in 90 kB), which keeps the parser near 30 bytes of memory per byte of the cap.
 */
export function yamlTokenLimit(maxBytes: number): number {
  return Math.floor(maxBytes / 8);
}

/** Parses spec text: JSON through JSON.parse (many times faster), anything else as YAML. */
export function parseSpecText(
  source: string,
  text: string,
  maxDepth = MAX_NESTING_DEPTH,
  maxYamlTokens = yamlTokenLimit(DEFAULT_MAX_INPUT_BYTES),
): OpenApiDocument {
  const json = text.trimStart().startsWith("{");
  asSpecError(() =>
    json ? checkJsonDepth(text, source, maxDepth) : checkYamlShape(text, source, maxDepth, maxYamlTokens),
  );
  const document = (json ? parseJson(text) : undefined) ?? parseYaml(source, text);
  const deep = findTooDeep(document, maxDepth);
  if (deep) {
    const expected = deep.cycle ? "a tree of values" : `arrays and objects nested at most ${maxDepth} deep`;
    const found = deep.cycle ? "a YAML alias inside the node it names" : "deeper nesting";
    throw located(new SpecError(source, deep.pointer, expected, found), {
      source,
      locate: textLocator(text),
    });
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new SpecError(source, "", "an OpenAPI 3.1 object at the top level", describeValue(document));
  }
  return document as OpenApiDocument;
}

/** Adds the line and column to a SpecError about this spec (and to the faults it carries). */
export function located<E>(error: E, spec: Pick<LoadedSpec, "source" | "locate">): E {
  if (!(error instanceof SpecError)) return error;
  for (const fault of error.all()) {
    if (fault.source !== spec.source || fault.line !== undefined) continue;
    const position = spec.locate?.(fault.pointer);
    if (position) fault.locate(position.line, position.column);
  }
  return error;
}

/** Runs `read`, turning an InputError (size, encoding, depth) into a located SpecError. */
function asSpecError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    const fault = new SpecError(error.source, "", error.expected, error.found);
    throw error.position ? fault.locate(error.position.line, error.position.column) : fault;
  }
}

/**
 * YAML's flow collections (`[[[…`) nest one level per byte, and the YAML parser needs about a
 * kilobyte of memory per level: the lexer (linear, keeping nothing) finds the depth first, and
 * counts the tokens the parser would keep (see yamlTokenLimit). Block nesting needs a longer
 * indentation per level, so its size grows with the square of its depth.
 */
function checkYamlShape(text: string, source: string, maxDepth: number, maxTokens: number): void {
  let depth = 0;
  let index = 0;
  let tokens = 0;
  for (const token of new Lexer().lex(text)) {
    tokens += 1;
    if (tokens > maxTokens) {
      throw new InputError(
        source,
        `at most ${maxTokens} YAML tokens (one per 8 bytes of the size cap: raise the cap with --max-input-bytes or ${MAX_INPUT_BYTES_ENV}, or give the spec as JSON, which costs far less to read)`,
        "more",
        positionOfIndex(text, index),
      );
    }
    if (token === "[" || token === "{") {
      depth += 1;
      if (depth > maxDepth) throw tooDeep(source, maxDepth, positionOfIndex(text, index));
    } else if (token === "]" || token === "}") depth -= 1;
    // The lexer adds one-character control tokens (document start, scalar, flow end) that are
    // not in the text; the text itself holds no control characters (decodeText refused them).
    if (!isSyntheticToken(token)) index += token.length;
  }
}

function isSyntheticToken(token: string): boolean {
  return (
    token.length === 1 && token.charCodeAt(0) < 0x20 && token !== "\t" && token !== "\n" && token !== "\r"
  );
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

/** JSON text through JSON.parse; undefined for broken JSON, which the YAML parser then locates. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Finds JSON Pointers in the text, parsing it again (with positions) only when asked: errors are
 * rare, and a plain parse is cheaper. A field is located at its key.
 */
function textLocator(text: string): (pointer: string) => TextPosition | undefined {
  // JSON is scanned in place (JSON.parse keeps no positions; the YAML parser's tree of a 13 MB
  // description costs seconds and hundreds of megabytes).
  if (text.trimStart().startsWith("{")) {
    return (pointer) => {
      try {
        return locateInJson(text, pointer);
      } catch {
        return undefined;
      }
    };
  }
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
 * The file behind a spec name: the path itself, or a package's `openapi.json`, resolved from `cwd`
 * first (a consumer's own dependencies), then from this package (which depends on @marketapi/spec).
 */
function locateSpecFile(spec: string, cwd: string): string {
  if (existsSync(spec) || !looksLikePackageName(spec)) return spec;
  const request = `${spec}/openapi.json`;
  for (const base of [join(cwd, "package.json"), import.meta.url]) {
    try {
      return createRequire(base).resolve(request);
    } catch {
      // not installed there
    }
  }
  throw new SpecError(spec, "", `a file, or an installed package that exports "${request}"`, "neither");
}

function looksLikePackageName(spec: string): boolean {
  return /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(spec) && !/\.(ya?ml|json)$/.test(spec);
}
