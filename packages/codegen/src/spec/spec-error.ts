/**
 * A fault in the input spec. `pointer` is the JSON Pointer of the faulty node inside the spec,
 * `expected` says what the generators need there and `found` what the spec holds.
 */
export class SpecError extends Error {
  override name = "SpecError";
  constructor(
    readonly source: string,
    readonly pointer: string,
    readonly expected: string,
    readonly found: string,
  ) {
    super(`${source}#${pointer}: expected ${expected}, found ${found}`);
  }
}

/** Encodes path segments as a JSON Pointer (RFC 6901). */
export function pointerOf(...segments: (string | number)[]): string {
  return segments.map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** A short, one-line rendering of a spec value for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
