/**
 * Bad input: a document the diff cannot read. The message has the form codegen's errors have,
 * `source#pointer (line, column): expected …, found …`, so both commands point at a fault alike.
 */
export class SpecError extends Error {
  override name = "SpecError";
  line?: number;
  column?: number;

  constructor(
    readonly source: string,
    readonly pointer: string,
    readonly expected: string,
    readonly found: string,
  ) {
    super(`${source}#${pointer}: expected ${expected}, found ${found}`);
  }

  /** Records where the faulty node is written; the message then says so too. */
  locate(line: number, column: number): this {
    this.line = line;
    this.column = column;
    this.message = `${this.source}#${this.pointer} (line ${line}, column ${column}): expected ${this.expected}, found ${this.found}`;
    return this;
  }
}

/** Encodes path segments as a JSON Pointer (RFC 6901). */
export function pointerOf(...segments: (string | number)[]): string {
  return segments.map((s) => `/${escapeSegment(String(s))}`).join("");
}

export function escapeSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Decodes a JSON Pointer ("/paths/~1a/get", or a "#/..." fragment) into its segments. */
export function segmentsOf(pointer: string): string[] {
  const body = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  if (body === "") return [];
  return body
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** A short, one-line rendering of a value for messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
