// npm run bench (in packages/codegen): a big spec's default run, this checkout's generator side by
// side with the generator of a git ref (`--base REF`, default main), in one run, alternating
// (base, this, this --client; base, this, …):
//  - `marketapi-codegen --spec <document> --out src/generated` without flags, in a fresh project:
//    the bytes written (by file), CPU seconds (user + system) and peak memory;
//  - strict `tsc -p` of that project, which holds only the output: CPU seconds, peak memory and
//    tsc's own phases (`--extendedDiagnostics`);
//  - the validators of both at run time: values of six of Stripe's schemas checked in turn.
// Prints markdown tables: medians, min–max, and the median of the ratios this / base of each pair.
// CPU time is the figure to compare on a loaded machine; wall time is printed for a quiet one.
//
//   npm run bench -- [--base REF] [--spec ID] [--runs N]     (ID of VENDOR_SPECS; default stripe)
//
// The base's generator is its packages/codegen/src as `git archive` gives it, run with this
// checkout's dependencies; both sides run from source through tsx. Needs Linux (/usr/bin/time).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { VENDOR_SPECS, vendorSpec } from "../../../scripts/spec-corpus.mjs";
import { STRICT_TSCONFIG } from "../test/cli-support.js";
import { sampleOf } from "../test/corpus-values.js";

const { values: args } = parseArgs({
  options: {
    base: { type: "string", default: "main" },
    spec: { type: "string", default: "stripe" },
    runs: { type: "string", default: "3" },
  },
});
const RUNS = Number(args.runs);
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const REPO_ROOT = join(PACKAGE_DIR, "../..");
const TSX = createRequire(import.meta.url).resolve("tsx/cli");
const TSC = join(REPO_ROOT, "node_modules/.bin/tsc");
const spec = vendorSpec(args.spec);
/** Schemas whose values the run-time comparison checks (Stripe's; another spec: its first six). */
const VALUE_SCHEMAS = ["customer", "charge", "invoice", "checkout.session", "subscription", "payment_intent"];

// The project holds the output alone: no @types/node to read.
const TSCONFIG = { ...STRICT_TSCONFIG, compilerOptions: { ...STRICT_TSCONFIG.compilerOptions, types: [] } };

interface Side {
  name: string;
  cli: string;
  flags: string[];
}

/** The base's generator source, unpacked under node_modules (so that it resolves this checkout's dependencies). */
function baseCli(ref: string): string {
  const commit = execFileSync("git", ["rev-parse", "--short", ref], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  }).trim();
  const dir = join(REPO_ROOT, "node_modules/.cache/codegen-bench", commit);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync(
    "git",
    ["archive", commit, "packages/codegen/src", "packages/codegen/package.json"],
    {
      cwd: REPO_ROOT,
      maxBuffer: 1 << 28,
    },
  );
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  return join(dir, "packages/codegen/src/cli.ts");
}

interface Usage {
  cpuS: number;
  wallS: number;
  peakMb: number;
  output: string;
}

/** Runs a command under /usr/bin/time: its CPU (user + system), wall time and peak memory. */
function timed(command: string, commandArgs: string[], cwd: string): Usage {
  const report = join(cwd, ".time");
  const result = spawnSync("/usr/bin/time", ["-o", report, "-f", "%U %S %e %M", command, ...commandArgs], {
    cwd,
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0)
    throw new Error(`${command} ${commandArgs.join(" ")} failed in ${cwd}:\n${output}`);
  const [user, system, wall, peakKb] = readFileSync(report, "utf8")
    .trim()
    .split("\n")
    .at(-1)!
    .split(" ")
    .map(Number);
  return { cpuS: user! + system!, wallS: wall!, peakMb: peakKb! / 1024, output };
}

interface Run {
  gen: Usage;
  bytes: Record<string, number>;
  tsc: Usage;
  phases: Record<string, number>;
}

function runSide(side: Side, dir: string): Run {
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "bench", private: true, type: "module" }));
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
  const gen = timed(
    process.execPath,
    [TSX, side.cli, "--spec", spec, "--out", "src/generated", ...side.flags],
    dir,
  );
  const out = join(dir, "src/generated");
  const bytes = Object.fromEntries(readdirSync(out).map((file) => [file, statSync(join(out, file)).size]));
  const tsc = timed(TSC, ["-p", "tsconfig.json", "--extendedDiagnostics"], dir);
  const phases: Record<string, number> = {};
  for (const [, name, value] of tsc.output.matchAll(/^(Parse|Bind|Check) time:\s+([\d.]+)s$/gm))
    phases[name!] = Number(value);
  const memory = /^Memory used:\s+(\d+)K$/m.exec(tsc.output);
  if (memory) phases.heapMb = Number(memory[1]) / 1024;
  return { gen, bytes, tsc, phases };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const spread = (values: number[], digits = 1) =>
  `${fixed(median(values), digits)} (${fixed(Math.min(...values), digits)}–${fixed(Math.max(...values), digits)})`;
const mb = (bytes: number) => (bytes / 1e6).toFixed(2);

/** Checks the six values with each side's `schemas` table in turn; checks a second per side and round. */
async function throughput(folders: Record<string, string>): Promise<Record<string, number[]>> {
  const document = JSON.parse(readFileSync(spec, "utf8"));
  type Table = Record<string, { validate: (value: unknown) => boolean }>;
  const tables: Record<string, Table> = Object.fromEntries(
    await Promise.all(
      Object.entries(folders).map(async ([name, folder]) => [
        name,
        (await import(pathToFileURL(join(folder, "src/generated/validators.gen.ts")).href)).schemas,
      ]),
    ),
  );
  const names = Object.keys(Object.values(tables)[0]!);
  const chosen = VALUE_SCHEMAS.every((n) => names.includes(n)) ? VALUE_SCHEMAS : names.slice(0, 6);
  const values = chosen.map((name) => sampleOf(document, { $ref: `#/components/schemas/${name}` }));
  const rates: Record<string, number[]> = Object.fromEntries(Object.keys(tables).map((side) => [side, []]));
  for (let round = 0; round < 7; round++) {
    for (const [side, table] of Object.entries(tables)) {
      const checks = chosen.map((name) => table[name]!.validate);
      let done = 0;
      const started = performance.now();
      while (performance.now() - started < 1000) {
        for (let i = 0; i < checks.length; i++) checks[i]!(values[i]);
        done += checks.length;
      }
      if (round > 0) rates[side]!.push(done / ((performance.now() - started) / 1000));
    }
  }
  return rates;
}

const sides: Side[] = [
  { name: `base (${args.base})`, cli: baseCli(args.base), flags: [] },
  { name: "this", cli: join(PACKAGE_DIR, "src/cli.ts"), flags: [] },
  { name: "this, --client", cli: join(PACKAGE_DIR, "src/cli.ts"), flags: ["--client"] },
];
const scratch = mkdtempSync(join(tmpdir(), "codegen-bench-"));
const runs: Record<string, Run[]> = Object.fromEntries(sides.map((side) => [side.name, []]));
const kept: Record<string, string> = {};
try {
  for (let i = 0; i < RUNS; i++) {
    for (const side of sides) {
      const dir = join(scratch, `${side.name.replace(/\W+/g, "-")}-${i}`);
      const run = runSide(side, dir);
      runs[side.name]!.push(run);
      console.error(
        `${side.name} #${i + 1}: ${mb(Object.values(run.bytes).reduce((a, b) => a + b, 0))} MB, codegen ${fixed(run.gen.cpuS)} s CPU, tsc ${fixed(run.tsc.cpuS)} s CPU`,
      );
      if (i === 0 && side.flags.length === 0) kept[side.name] = dir;
      else rmSync(dir, { recursive: true, force: true });
    }
  }
  const rates = await throughput(kept);
  report(rates);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function report(rates: Record<string, number[]>): void {
  const [base, mine] = sides.map((s) => runs[s.name]!) as [Run[], Run[]];
  const spec_ = VENDOR_SPECS[args.spec]!;
  console.log(
    `\n${spec_.title} (${spec_.file}, ${spec_.operations} operations), ${RUNS} runs a side, alternating; medians (min–max); ratio: median of this / base by pair\n`,
  );
  console.log("| figure | " + sides.map((s) => s.name).join(" | ") + " | this / base |");
  console.log("| --- | " + sides.map(() => "---:").join(" | ") + " | ---: |");
  const row = (label: string, of: (run: Run) => number, digits = 1) => {
    const cells = sides.map((s) => spread(runs[s.name]!.map(of), digits));
    const ratios = base.map((b, i) => of(mine[i]!) / of(b));
    console.log(`| ${label} | ${cells.join(" | ")} | ${fixed(median(ratios), 2)}× |`);
  };
  const files = [...new Set(sides.flatMap((s) => Object.keys(runs[s.name]![0]!.bytes)))].sort();
  row("bytes written, MB", (r) => Object.values(r.bytes).reduce((a, b) => a + b, 0) / 1e6, 2);
  for (const file of files) {
    const cells = sides.map((s) => {
      const size = runs[s.name]![0]!.bytes[file];
      return size === undefined ? "–" : mb(size);
    });
    console.log(`| · ${file}, MB | ${cells.join(" | ")} | |`);
  }
  row("codegen, CPU s", (r) => r.gen.cpuS);
  row("codegen, peak MB", (r) => r.gen.peakMb, 0);
  row("codegen, wall s", (r) => r.gen.wallS);
  row("strict tsc, CPU s", (r) => r.tsc.cpuS);
  row("strict tsc, peak MB", (r) => r.tsc.peakMb, 0);
  row("strict tsc, wall s", (r) => r.tsc.wallS);
  for (const phase of ["Parse", "Bind", "Check"])
    row(`· tsc ${phase.toLowerCase()} time, s`, (r) => r.phases[phase] ?? 0);
  row("· tsc heap, MB", (r) => r.phases.heapMb ?? 0, 0);
  const [baseRates, myRates] = Object.values(rates) as [number[], number[]];
  const ratios = baseRates.map((b, i) => myRates[i]! / b);
  console.log(
    `\nrun time, six schemas' values checked in turn: base ${spread(
      baseRates.map((r) => r / 1000),
      0,
    )} k checks/s, this ${spread(
      myRates.map((r) => r / 1000),
      0,
    )} k checks/s; this / base ${fixed(median(ratios), 2)}×`,
  );
}
