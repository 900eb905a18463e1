/**
 * A fault in the input spec. `pointer` is the JSON Pointer of the faulty node inside the spec,
 * `expected` says what the generators need there and `found` what the spec holds. When the spec
 * came from a file, `line` and `column` (1-based) say where the node is written, and `others`
 * holds further faults found in the same pass (the structure check reports them all at once).
 */
export class SpecError extends Error {
  override name = "SpecError";
  line?: number;
  column?: number;
  readonly others: SpecError[] = [];

  constructor(
    readonly source: string,
    readonly pointer: string,
    readonly expected: string,
    readonly found: string,
  ) {
    super(`${source}#${pointer}: expected ${expected}, found ${found}`);
  }

  /** Records where the faulty node is written in the spec file; the message then says so too. */
  locate(line: number, column: number): this {
    this.line = line;
    this.column = column;
    this.message = `${this.source}#${this.pointer} (line ${line}, column ${column}): expected ${this.expected}, found ${this.found}`;
    return this;
  }

  /** This fault and the others, in the order they were found. */
  all(): SpecError[] {
    return [this, ...this.others];
  }
}

/** Encodes path segments as a JSON Pointer (RFC 6901). */
export function pointerOf(...segments: (string | number)[]): string {
  return segments.map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
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

/** A short, one-line rendering of a spec value for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
