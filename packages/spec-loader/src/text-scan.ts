// Reading positions straight from the text, without building a tree: where a JSON Pointer is
// written in JSON text, and which OpenAPI version a document declares at its top level. Both are
// linear scans that allocate nothing per node, so that a fault in a 13 MB description costs
// milliseconds, not the YAML parser's seconds and hundreds of megabytes.
import { positionOfIndex } from "./input.js";
import { segmentsOf } from "./json-pointer.js";

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && WHITESPACE.has(text.charCodeAt(i))) i += 1;
  return i;
}

/** The index just past the JSON string that starts at `i` (a `"`). */
function skipString(text: string, i: number): number {
  for (i += 1; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i += 1;
    else if (c === 0x22) return i + 1;
  }
  return i;
}

/** The index just past the JSON value that starts at `i`. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return skipString(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (; i < text.length; i += 1) {
      const d = text.charCodeAt(i);
      if (d === 0x22) i = skipString(text, i) - 1;
      else if (d === 0x7b || d === 0x5b) depth += 1;
      else if (d === 0x7d || d === 0x5d) {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
    }
    return i;
  }
  while (i < text.length && !/[,}\]\s]/.test(text[i]!)) i += 1;
  return i;
}

/**
 * Where the node at `pointer` is written in JSON text (a member at its key), or the nearest
 * written ancestor's position; undefined when the text is not JSON at that point.
 */
export function locateInJson(text: string, pointer: string): { line: number; column: number } | undefined {
  let i = skipWhitespace(text, 0);
  let at = i;
  for (const segment of segmentsOf(pointer)) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) {
      i = skipWhitespace(text, i + 1);
      let found = false;
      while (text.charCodeAt(i) === 0x22) {
        const keyEnd = skipString(text, i);
        const key = JSON.parse(text.slice(i, keyEnd)) as string;
        const keyStart = i;
        i = skipWhitespace(text, keyEnd);
        i = skipWhitespace(text, i + 1); // the colon
        if (key === segment) {
          at = keyStart;
          found = true;
          break;
        }
        i = skipWhitespace(text, skipValue(text, i));
        if (text.charCodeAt(i) === 0x2c) i = skipWhitespace(text, i + 1);
      }
      if (!found) break;
    } else if (c === 0x5b) {
      if (!/^\d+$/.test(segment)) break;
      i = skipWhitespace(text, i + 1);
      for (let index = 0; index < Number(segment) && text.charCodeAt(i) !== 0x5d; index += 1) {
        i = skipWhitespace(text, skipValue(text, i));
        if (text.charCodeAt(i) === 0x2c) i = skipWhitespace(text, i + 1);
      }
      if (text.charCodeAt(i) === 0x5d) break;
      at = i;
    } else break;
  }
  const { line, column } = positionOfIndex(text, at);
  return { line, column };
}

/** What a document's top level says of its version: `openapi: 3.0.3` or `swagger: "2.0"`. */
export interface DeclaredVersion {
  field: "openapi" | "swagger";
  value: string;
  line: number;
  column: number;
}

/**
 * The `openapi` (else `swagger`) member of the document's top level, read from the text without
 * parsing the rest: a JSON object's members at depth one, or YAML's unindented `key: value` lines.
 */
export function declaredVersion(text: string): DeclaredVersion | undefined {
  return text.trimStart().startsWith("{") ? versionInJson(text) : versionInYaml(text);
}

function versionInJson(text: string): DeclaredVersion | undefined {
  let i = skipWhitespace(text, 0) + 1;
  const found: DeclaredVersion[] = [];
  for (i = skipWhitespace(text, i); text.charCodeAt(i) === 0x22; ) {
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const keyStart = i;
    i = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1);
    const valueEnd = skipValue(text, i);
    if (key === "openapi" || key === "swagger") {
      let value: unknown;
      try {
        value = JSON.parse(text.slice(i, valueEnd));
      } catch {
        value = text.slice(i, valueEnd);
      }
      const { line, column } = positionOfIndex(text, keyStart);
      found.push({ field: key, value: String(value), line, column });
      if (key === "openapi") break;
    }
    i = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(i) !== 0x2c) break;
    i = skipWhitespace(text, i + 1);
  }
  return found.find((v) => v.field === "openapi") ?? found[0];
}

function versionInYaml(text: string): DeclaredVersion | undefined {
  const found: DeclaredVersion[] = [];
  const line = /^(["']?)(openapi|swagger)\1[ \t]*:[ \t]*(.*)$/gm;
  for (let match = line.exec(text); match; match = line.exec(text)) {
    const raw = match[3]!.replace(/[ \t]+#.*$/, "").trim();
    const value = raw.replace(/^(["'])(.*)\1$/, "$2");
    const { line: at, column } = positionOfIndex(text, match.index);
    found.push({ field: match[2] as "openapi" | "swagger", value, line: at, column });
    if (match[2] === "openapi") break;
  }
  return found.find((v) => v.field === "openapi") ?? found[0];
}
