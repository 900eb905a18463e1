/**
 * Which code of the server a tester's run executed: V8's block coverage of the server process
 * (NODE_V8_COVERAGE, written when the process exits), looked up at the offset where a mutant's
 * JavaScript first differs from the built file. A mutant whose code never ran cannot be caught by
 * that run, whatever it would break: the report counts those apart.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface Range {
  startOffset: number;
  endOffset: number;
  count: number;
}

interface ScriptCoverage {
  url: string;
  functions: Array<{ ranges: Range[] }>;
}

export class Coverage {
  private readonly byUrl = new Map<string, Range[]>();
  /**
   * Files left cut short by a process that could not write its coverage whole at exit: one under
   * a file-size limit of 0 (custody's full disk at start) or killed while it wrote. What they ran
   * is not counted.
   */
  readonly cutShort: string[] = [];

  constructor(dir: string) {
    for (const name of readdirSync(dir).filter((n) => n.endsWith(".json"))) {
      const data = coverageIn(readFileSync(join(dir, name), "utf8"));
      if (!data) {
        this.cutShort.push(name);
        continue;
      }
      for (const script of data.result) {
        if (!script.url.startsWith("file:")) continue;
        const ranges = this.byUrl.get(script.url) ?? [];
        for (const fn of script.functions) ranges.push(...fn.ranges);
        this.byUrl.set(script.url, ranges);
      }
    }
  }

  /** Whether the file was loaded at all. */
  loaded(file: string): boolean {
    return this.byUrl.has(pathToFileURL(file).href);
  }

  /**
   * How often the code at `offset` of the built file ran: the count of the innermost range that
   * holds it (V8 nests block ranges inside function ranges); 0 when the file was never loaded.
   */
  countAt(file: string, offset: number): number {
    const ranges = this.byUrl.get(pathToFileURL(file).href);
    if (!ranges) return 0;
    let best: Range | undefined;
    for (const range of ranges) {
      if (range.startOffset <= offset && offset < range.endOffset) {
        if (!best || range.endOffset - range.startOffset < best.endOffset - best.startOffset) best = range;
      }
    }
    return best?.count ?? 0;
  }
}

function coverageIn(text: string): { result: ScriptCoverage[] } | undefined {
  try {
    const data = JSON.parse(text) as { result?: unknown };
    return Array.isArray(data.result) ? (data as { result: ScriptCoverage[] }) : undefined;
  } catch {
    return undefined;
  }
}
