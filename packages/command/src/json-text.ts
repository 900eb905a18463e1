// JSON input files (configs, records) parsed with their faults located: a syntax error names the
// file, line and column, as a spec fault does.

/** A JSON file that is not valid JSON, or not what the command needs, located where possible. */
export class InputFault extends Error {
  override name = "InputFault";
  constructor(
    readonly source: string,
    readonly detail: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(`${source}${line === undefined ? "" : ` (line ${line}, column ${column})`}: ${detail}`);
  }
}

/** Line and column (1-based) of a character offset in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split("\n");
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

/** JSON.parse, with a syntax error as an InputFault at its line and column. */
export function parseJsonFile(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // Node 20's messages carry no position; the scan below finds where the text stops being JSON.
    const where = lineAndColumn(text, firstSyntaxError(text));
    const detail = (error as Error).message
      .split(/, "|\n/)[0]!
      .replace(/ in JSON at position \d+.*$/, "")
      .replace(/ \(line \d+ column \d+\)$/, "");
    throw new InputFault(source, `expected JSON, found a syntax error: ${detail}`, where.line, where.column);
  }
}

/** The offset of the first character at which `text` stops being JSON (its length if it ends early). */
export function firstSyntaxError(text: string): number {
  let at = 0;
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++;
  };
  const fail = (): never => {
    throw at;
  };
  const expect = (word: string) => {
    for (const char of word) {
      if (text[at] !== char) fail();
      at++;
    }
  };
  const string = () => {
    at++;
    while (at < text.length && text[at] !== '"') {
      if (text.charCodeAt(at) < 0x20) fail();
      at += text[at] === "\\" ? 2 : 1;
    }
    if (at >= text.length) fail();
    at++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!match) fail();
    at += match![0].length;
  };
  const value = (depth: number): void => {
    space();
    const char = text[at];
    if (char === "{") {
      at++;
      space();
      if (text[at] === "}") {
        at++;
        return;
      }
      for (;;) {
        space();
        if (text[at] !== '"') fail();
        string();
        space();
        expect(":");
        value(depth + 1);
        space();
        if (text[at] === ",") at++;
        else if (text[at] === "}") {
          at++;
          return;
        } else fail();
      }
    }
    if (char === "[") {
      at++;
      space();
      if (text[at] === "]") {
        at++;
        return;
      }
      for (;;) {
        value(depth + 1);
        space();
        if (text[at] === ",") at++;
        else if (text[at] === "]") {
          at++;
          return;
        } else fail();
      }
    }
    if (char === '"') string();
    else if (char === "t") expect("true");
    else if (char === "f") expect("false");
    else if (char === "n") expect("null");
    else number();
  };
  try {
    value(0);
    space();
    return at < text.length ? at : text.length;
  } catch (offset) {
    if (typeof offset === "number") return Math.min(offset, text.length);
    return text.length;
  }
}
