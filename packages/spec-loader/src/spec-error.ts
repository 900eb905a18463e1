/**
 * A fault in an input spec. `pointer` is the JSON Pointer of the faulty node, `expected` says what
 * the reader needs there and `found` what the spec holds. When the spec came from text, `line` and
 * `column` (1-based) say where the node is written, and `others` holds further faults found in the
 * same pass (a structure check reports them all at once).
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

  /** Records where the faulty node is written in the spec's text; the message then says so too. */
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

export { describeValue } from "@marketapi/spec/model";
