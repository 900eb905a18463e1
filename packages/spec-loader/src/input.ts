// `@marketapi/spec-loader/input`: reading untrusted text with bounds, before any parser sees it.
// A file is read in chunks up to a byte cap (so /dev/zero or an endless pipe costs the cap, not the
// machine), decoded as strict UTF-8, refused when it holds control characters, and JSON is scanned
// for its nesting depth before JSON.parse builds anything. Free of `yaml`: the validators' command
// and the contract tester use it too.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { pointerOf } from "@marketapi/spec/model";

/** The default cap on one input's size: far above any real spec (the bundled one is 120 kB). */
export const DEFAULT_MAX_INPUT_BYTES = 16 * 1024 * 1024;
/** The environment variable that raises (or lowers) the cap for every marketapi command. */
export const MAX_INPUT_BYTES_ENV = "MARKETAPI_MAX_INPUT_BYTES";
/**
 * The deepest nesting of arrays and objects accepted. OpenAPI documents nest about 15 levels (the
 * bundled spec: 13); the generators, the diff and the validators walk documents recursively, so a
 * bound here keeps every one of them off the end of the stack.
 */
export const MAX_NESTING_DEPTH = 128;

/** Where a fault is in the input: 0-based byte offset, 1-based line and column (in characters). */
export interface InputPosition {
  offset: number;
  line: number;
  column: number;
}

/** Input refused before parsing: `source: expected …, found … (line L, column C, byte B)`. */
export class InputError extends Error {
  override name = "InputError";

  constructor(
    readonly source: string,
    readonly expected: string,
    readonly found: string,
    readonly position?: InputPosition,
  ) {
    const at = position ? ` (line ${position.line}, column ${position.column})` : "";
    super(`${source}${at}: expected ${expected}, found ${found}`);
  }
}

export interface InputLimits {
  /** The most bytes read from one input (default: the environment's, else DEFAULT_MAX_INPUT_BYTES). */
  maxBytes?: number;
  /** The deepest nesting accepted (default MAX_NESTING_DEPTH). */
  maxDepth?: number;
}

/**
 * The cap in bytes: `explicit` (a command's flag) when given, else MARKETAPI_MAX_INPUT_BYTES, else
 * the default. Throws InputError naming the setting when it is not a positive whole number.
 */
export function maxInputBytes(explicit?: string | number, env: NodeJS.ProcessEnv = process.env): number {
  const [origin, raw] =
    explicit !== undefined
      ? ["--max-input-bytes", explicit]
      : [MAX_INPUT_BYTES_ENV, env[MAX_INPUT_BYTES_ENV]];
  if (raw === undefined || raw === "") return DEFAULT_MAX_INPUT_BYTES;
  const value = typeof raw === "number" ? raw : /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new InputError(origin, "a positive whole number of bytes", JSON.stringify(String(raw)));
  }
  return value;
}

const CHUNK = 64 * 1024;
const pause = new Int32Array(new SharedArrayBuffer(4));

export interface ReadOptions {
  /** How the input is named in messages (default: the path). */
  source?: string;
  /** The cap (default: maxInputBytes()). */
  maxBytes?: number;
  /** What the input should be, for messages: "YAML or JSON file" (default "file"). */
  kind?: string;
}

/**
 * Reads a file (or file descriptor 0 for "-") to its end, refusing it once it passes `maxBytes`:
 * memory is bounded by the cap whatever the file is (a device, a pipe, a growing file).
 */
export function readBoundedFile(file: string, options: ReadOptions = {}): Buffer {
  const { source = file, maxBytes = maxInputBytes(), kind = "file" } = options;
  let fd: number;
  try {
    fd = file === "-" ? 0 : openSync(file, "r");
  } catch (error) {
    throw new InputError(source, `a readable ${kind}`, `an error: ${(error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new InputError(source, "a file", "a directory");
    if (stat.isFile() && stat.size > maxBytes) throw tooLarge(source, maxBytes, `${stat.size} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - size));
      const read = readInto(fd, chunk, source, kind);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      size += read;
      if (size > maxBytes) throw tooLarge(source, maxBytes, "more");
    }
    return Buffer.concat(chunks, size);
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

function readInto(fd: number, chunk: Buffer, source: string, kind: string): number {
  for (;;) {
    try {
      return readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      // A non-blocking standard input with nothing yet: wait a little for it rather than fail.
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 10);
        continue;
      }
      throw new InputError(source, `a readable ${kind}`, `an error: ${(error as Error).message}`);
    }
  }
}

function tooLarge(source: string, maxBytes: number, found: string): InputError {
  return new InputError(
    source,
    `at most ${maxBytes} bytes (raise the cap with --max-input-bytes or ${MAX_INPUT_BYTES_ENV})`,
    found,
  );
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * The text of UTF-8 bytes (a leading byte order mark dropped). Refuses malformed UTF-8 and control
 * characters other than tab, line feed and carriage return (neither YAML nor JSON text may hold
 * them raw), naming the byte offset, line and column of the first one.
 */
export function decodeText(bytes: Uint8Array, source: string): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    throw new InputError(
      source,
      "UTF-8 text",
      `the byte 0x${bytes[offset]!.toString(16).padStart(2, "0")} at byte offset ${offset}, which is not valid UTF-8 there`,
      positionOfByte(bytes, offset),
    );
  }
  const index = firstControlCharacter(text);
  if (index !== -1) {
    const code = text.charCodeAt(index);
    const name = code === 0 ? " (NUL)" : "";
    const offset = Buffer.byteLength(text.slice(0, index)) + (hasBom(bytes) ? 3 : 0);
    throw new InputError(
      source,
      "text without control characters",
      `U+${code.toString(16).toUpperCase().padStart(4, "0")}${name} at byte offset ${offset}`,
      positionOfByte(bytes, offset),
    );
  }
  return text;
}

/** The index of the first C0 control character other than tab, LF and CR (or of DEL); -1 if none. */
function firstControlCharacter(text: string): number {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) return i;
  }
  return -1;
}

/** Reads, caps and decodes a file: readBoundedFile, then decodeText. */
export function readTextFile(file: string, options: ReadOptions = {}): string {
  return decodeText(readBoundedFile(file, options), options.source ?? file);
}

function hasBom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** The offset of the first byte that breaks UTF-8 (RFC 3629: no overlongs, surrogates or > U+10FFFF). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let length: number;
    let min: number;
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) [length, min] = [2, 0x80];
    else if (b >= 0xe0 && b <= 0xef) {
      length = 3;
      min = b === 0xe0 ? 0xa0 : 0x80;
      if (b === 0xed) max = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      length = 4;
      min = b === 0xf0 ? 0x90 : 0x80;
      if (b === 0xf4) max = 0x8f;
    } else return i;
    for (let k = 1; k < length; k += 1) {
      const next = bytes[i + k];
      const [lo, hi] = k === 1 ? [min, max] : [0x80, 0xbf];
      // The sequence that starts here is cut short or broken: the fault is its first byte.
      if (next === undefined || next < lo || next > hi) return i;
    }
    i += length;
  }
  return bytes.length;
}

/** The line and column (in characters) of a byte offset, counted only when a fault is reported. */
export function positionOfByte(bytes: Uint8Array, offset: number): InputPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i += 1) {
    if (bytes[i] === 0x0a) {
      line += 1;
      lineStart = i + 1;
    }
  }
  let column = 1;
  for (let i = lineStart; i < offset; i += 1) if ((bytes[i]! & 0xc0) !== 0x80) column += 1;
  return { offset, line, column };
}

/** The same for a character index into text. */
export function positionOfIndex(text: string, index: number): InputPosition {
  const before = text.slice(0, index);
  const lineStart = before.lastIndexOf("\n") + 1;
  let line = 1;
  for (let i = before.indexOf("\n"); i !== -1; i = before.indexOf("\n", i + 1)) line += 1;
  return { offset: Buffer.byteLength(before), line, column: index - lineStart + 1 };
}

/**
 * Scans JSON text for its deepest nesting of `[` and `{` (strings skipped) without building
 * anything; throws InputError at the first bracket past `maxDepth`. Linear, no allocation.
 */
export function checkJsonDepth(text: string, source: string, maxDepth = MAX_NESTING_DEPTH): void {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i += 1; i < text.length; i += 1) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i += 1;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      depth += 1;
      if (depth > maxDepth) throw tooDeep(source, maxDepth, positionOfIndex(text, i));
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth -= 1;
  }
}

export function tooDeep(source: string, maxDepth: number, position?: InputPosition): InputError {
  return new InputError(
    source,
    `arrays and objects nested at most ${maxDepth} deep`,
    "deeper nesting",
    position,
  );
}

/** JSON.parse behind checkJsonDepth: deep or huge JSON is refused before it is built. */
export function parseJsonText(text: string, source: string, maxDepth = MAX_NESTING_DEPTH): unknown {
  checkJsonDepth(text, source, maxDepth);
  return JSON.parse(text);
}

/**
 * The JSON Pointer of the first node nested deeper than `maxDepth`, or of a node that contains
 * itself (a YAML alias of its own ancestor), in a parsed value; undefined when there is none.
 * The recursion stops at `maxDepth`, so any value can be checked.
 */
export function findTooDeep(
  value: unknown,
  maxDepth = MAX_NESTING_DEPTH,
): { pointer: string; cycle: boolean } | undefined {
  const path: string[] = [];
  const ancestors = new Set<unknown>();
  const pointer = () => pointerOf(...path);
  const visit = (node: unknown): { pointer: string; cycle: boolean } | undefined => {
    if (typeof node !== "object" || node === null) return undefined;
    if (ancestors.has(node)) return { pointer: pointer(), cycle: true };
    if (path.length >= maxDepth) return { pointer: pointer(), cycle: false };
    ancestors.add(node);
    for (const [key, child] of Object.entries(node)) {
      path.push(key);
      const found = visit(child);
      path.pop();
      if (found) return found;
    }
    ancestors.delete(node);
    return undefined;
  };
  return visit(value);
}
