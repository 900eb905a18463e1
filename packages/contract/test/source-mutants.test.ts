// The tester measured on faults nobody picked: a small fixed sample of the mutation bench
// (bench/mutants.bench.ts, which draws hundreds). Mutants of the reference server's engine and
// HTTP source, each loaded into a server process of its own in place of the built file; the
// tester run against it by URL must fail. And the operator itself: a mutant replaces exactly the
// code the build made, and a mutant's place in the sample does not depend on other files.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Coverage } from "../bench/mutants/coverage.js";
import { OPERATORS } from "../bench/mutants/operators.js";
import { type MutantServer, startServer } from "../bench/mutants/processes.js";
import {
  PackageCompiler,
  population,
  prepare,
  sampleOrder,
  sourceFiles,
  staleFiles,
} from "../bench/mutants/sample.js";
import { reportText } from "../src/report/text.js";
import { runContract } from "./support/run.js";

const FOLDERS = ["src/engine", "src/http"];
const serverDir = dirname(createRequire(import.meta.url).resolve("@marketapi/reference-server/package.json"));
const serverCli = join(serverDir, "dist", "cli.js");
const all = population(serverDir, FOLDERS);
const scratch = mkdtempSync(join(tmpdir(), "source-mutants-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Mutants the tester kills, by key (file | scope | operator | original | replacement | occurrence),
 * one per class: a statement of the engine's journal left out (what an order did is not written),
 * a receive-window bound no longer refused, a boundary of the fills' list. A key no longer found
 * means the server's code changed there: pick another killed mutant from the bench's results.
 */
const SAMPLE = [
  "src/engine/journal.ts|add|statement|this.items.push(item);|;|#0",
  "src/http/auth.ts|receiveWindow|condition|value > signing.recvWindowMaximum|false|#0",
  "src/http/order-json.ts|fillsJson|relational|<|<=|#0",
];

describe("the reached code, from V8's coverage files", () => {
  it("counts what a whole file says, and leaves out one cut short (a full disk, a kill at exit)", () => {
    const dir = mkdtempSync(join(tmpdir(), "coverage-"));
    try {
      const ranges = [
        { startOffset: 0, endOffset: 100, count: 1 },
        { startOffset: 10, endOffset: 20, count: 0 },
      ];
      const whole = { result: [{ url: "file:///srv/a.js", functions: [{ ranges }] }] };
      writeFileSync(join(dir, "coverage-1.json"), JSON.stringify(whole));
      writeFileSync(join(dir, "coverage-2.json"), JSON.stringify(whole).slice(0, 40));
      const coverage = new Coverage(dir);
      expect(coverage.cutShort).toEqual(["coverage-2.json"]);
      expect([5, 15, 150].map((at) => coverage.countAt("/srv/a.js", at))).toEqual([1, 0, 0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the mutation operator over the server's source", () => {
  it("compiles every engine and HTTP file alone to exactly its built file", () => {
    const compiler = new PackageCompiler(serverDir);
    expect(staleFiles(compiler, sourceFiles(serverDir, FOLDERS))).toEqual([]);
  });

  it("finds thousands of mutants, of nearly every operator, each with its own key", () => {
    expect(all.length).toBeGreaterThan(3000);
    // Nearly all: the server writes `+= 1` rather than `++`, so "update" finds nothing today.
    const seen = new Set(all.map((m) => m.operator));
    expect(seen.size).toBeGreaterThanOrEqual(OPERATORS.length - 2);
    expect(new Set(all.map((m) => m.key)).size).toBe(all.length);
  });

  it("places a mutant in the sample by its own key: other files do not move it", () => {
    const file = all[0]!.file;
    const alone = sampleOrder(
      all.filter((m) => m.file === file),
      1,
    ).map((m) => m.key);
    const within = sampleOrder(all, 1)
      .filter((m) => m.file === file)
      .map((m) => m.key);
    expect(within).toEqual(alone);
    expect(sampleOrder(all, 2).map((m) => m.key)).not.toEqual(sampleOrder(all, 1).map((m) => m.key));
  });
});

async function judge(mutant?: { distFile: string; js: string }) {
  const started = await startServer({
    cli: serverCli,
    scratch,
    startTimeoutMs: 120_000,
    ...(mutant ? { mutant } : {}),
  });
  if (!started.ok) throw new Error(started.reason);
  const server: MutantServer = started.server;
  try {
    return await runContract({
      baseUrl: server.url,
      apiKey: server.apiKey,
      apiSecret: server.apiSecret,
      allowTrading: true,
      referenceExtras: true,
      seed: 1,
    });
  } finally {
    await server.stop();
  }
}

describe("a fixed sample of mutants, each in a server process of its own", () => {
  const compiler = new PackageCompiler(serverDir);

  it("the unmutated server, loaded the same way, passes", async () => {
    const result = await judge();
    expect(result.exitCode, reportText(result, { color: false })).toBe(0);
  });

  it.each(SAMPLE)("kills %s", async (key) => {
    const mutant = all.find((m) => m.key === key);
    expect(mutant, `no mutant ${key} in the server's source now`).toBeDefined();
    const ready = prepare(compiler, mutant!);
    if ("rejected" in ready) throw new Error(`${key}: ${ready.rejected}`);
    const result = await judge(ready);
    expect(result.exitCode, `${mutant!.id} survived:\n${reportText(result, { color: false })}`).toBe(1);
  });
});
