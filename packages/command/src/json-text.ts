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
    const message = (error as Error).message;
    const at = /at position (\d+)/.exec(message);
    const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
    const where = lineColumn
      ? { line: Number(lineColumn[1]), column: Number(lineColumn[2]) }
      : at
        ? lineAndColumn(text, Number(at[1]))
        : text.trim() === ""
          ? { line: 1, column: 1 }
          : lineAndColumn(text, text.length);
    const detail = message
      .replace(/^JSON\.parse: /, "")
      .replace(/ in JSON at position \d+.*$/, "")
      .replace(/ \(line \d+ column \d+\)$/, "");
    throw new InputFault(source, `expected JSON, found a syntax error: ${detail}`, where.line, where.column);
  }
}
