/**
 * A fault in an OpenAPI document found while building the model. `pointer` is the JSON Pointer of
 * the faulty node, `expected` says what the model needs there and `found` what the document holds.
 * Callers that know where the document came from (a file, with lines) add that themselves.
 */
export class SpecModelError extends Error {
  override name = "SpecModelError";
  /** Further faults found in the same reading (buildSpecModel reads every operation before it throws). */
  readonly others: SpecModelError[] = [];

  constructor(
    readonly pointer: string,
    readonly expected: string,
    readonly found: string,
  ) {
    super(`#${pointer}: expected ${expected}, found ${found}`);
  }

  /** This fault and the others, in document order. */
  all(): SpecModelError[] {
    return [this, ...this.others];
  }
}

/** Throws the first of `faults` carrying the rest; does nothing when there are none. */
export function throwAll(faults: readonly SpecModelError[]): void {
  const [first, ...rest] = faults;
  if (!first) return;
  first.others.push(...rest.flatMap((fault) => fault.all()));
  throw first;
}

/** A short, one-line rendering of a document value for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
