// Start-up of a server with a state database against the size and shape of its history: a
// thousand and a million trades, spread over 30 days or all in the last five minutes. For each,
// the time from spawning `marketapi-server --state FILE` to its base URL, the peak RSS (VmHWM) at
// that moment, the first avgPrice answer after it (which reads the partly expired minute of the
// average price's window), and SQLite's quick_check on the file (run at every start-up) timed on
// its own. The databases are written straight with SQL (test/support/history-db.ts).
// Run: npm run build && npm run bench:startup (in packages/reference-server); BENCH_RUNS (default 3),
// BENCH_CASES (such as last-5-minutes:1000000) picks cases.
// BENCH_BUILDS compares builds side by side, as bench:builds takes them (name=path-to-dist pairs,
// comma-separated, each dist/ inside the repository): each case's file is started by each build in
// turn, the order reversed every other run, and each build's median is given as a ratio to the
// first build's, measured in the same runs: the wall time to the base URL, and the server
// process's CPU time then (all its threads, from /proc/PID/stat), which the host's load moves
// much less than the wall time.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { databaseWithTrades, type HistoryShape } from "../test/support/history-db.js";
import { cpuMs } from "./order-load.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Which cases to run, as shape:count pairs separated by commas (default: all four). */
const CASES = process.env.BENCH_CASES?.split(",");
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const BUILT = existsSync(join(PACKAGE, "dist", "cli.js"));
const scratch = mkdtempSync(join(tmpdir(), "marketapi-startup-"));
const require = createRequire(import.meta.url);
const Driver = require("better-sqlite3") as new (
  path: string,
  options?: { readonly?: boolean },
) => {
  pragma(text: string): unknown;
  close(): void;
};

interface Sample {
  startMs: number;
  /** The server process's CPU time (all its threads) when it printed its base URL. */
  cpuMs: number;
  peakMiB: number;
  firstAvgMs: number;
}

/** BENCH_BUILDS: [name, its cli.js]; otherwise this package's own build (or sources). */
const BUILDS = process.env.BENCH_BUILDS?.split(",").map((pair) => {
  const [name, dist] = pair.split("=");
  if (!name || !dist) throw new Error(`BENCH_BUILDS: expected name=path, got "${pair}"`);
  return { name, cli: join(resolve(dist), "cli.js") };
});

function serverProcess(statePath: string, cli?: string): ChildProcess {
  const args = cli
    ? [cli]
    : BUILT
      ? [join(PACKAGE, "bin", "marketapi-server.js")]
      : ["--import", "tsx", join(PACKAGE, "src", "cli.ts")];
  return spawn(process.execPath, [...args, "--port", "0", "--state", statePath], {
    cwd: PACKAGE,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

async function startOnce(statePath: string, cli?: string): Promise<Sample> {
  const started = performance.now();
  const child = serverProcess(statePath, cli);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /base URL\s+(http:\/\/\S+)/.exec(out);
        if (match?.[1]) {
          clearInterval(timer);
          resolve(match[1]);
        } else if (child.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`the server exited: ${err}`));
        }
      }, 5);
    });
    const startMs = performance.now() - started;
    const cpu = cpuMs(child.pid);
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const peakMiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024;
    const asked = performance.now();
    const avg = await fetch(`${url}/api/v3/avgPrice?symbol=BTCUSDT`);
    if (avg.status !== 200) throw new Error(`avgPrice answered ${avg.status}`);
    return { startMs, cpuMs: cpu, peakMiB, firstAvgMs: performance.now() - asked };
  } finally {
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

function quickCheckMs(statePath: string): number {
  // Read-only: the server was killed, so the file is marked as served and its recent commits may
  // be in its log; a writer closing last would checkpoint the log and remove it.
  const db = new Driver(statePath, { readonly: true });
  try {
    const started = performance.now();
    db.pragma("quick_check");
    return performance.now() - started;
  } finally {
    db.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Each build's start-up of each case, side by side (BENCH_BUILDS). */
async function buildsSideBySide(builds: { name: string; cli: string }[]): Promise<void> {
  const table: string[] = [];
  for (const shape of ["30-days", "last-5-minutes"] as HistoryShape[]) {
    for (const count of [1_000, 1_000_000]) {
      if (CASES && !CASES.includes(`${shape}:${count}`)) continue;
      const path = join(scratch, `${shape}-${count}.db`);
      await databaseWithTrades(path, count, shape);
      const samples = new Map<string, Sample[]>(builds.map((build) => [build.name, []]));
      for (let run = 0; run < RUNS; run += 1) {
        for (const build of run % 2 === 0 ? builds : [...builds].reverse())
          samples.get(build.name)?.push(await startOnce(path, build.cli));
      }
      const firstRuns = samples.get(builds[0]?.name ?? "") ?? [];
      const [firstWall, firstCpu] = [
        median(firstRuns.map((s) => s.startMs)),
        median(firstRuns.map((s) => s.cpuMs)),
      ];
      for (const build of builds) {
        const runs = samples.get(build.name) ?? [];
        const [wall, cpu] = [median(runs.map((s) => s.startMs)), median(runs.map((s) => s.cpuMs))];
        table.push(
          `| ${shape} | ${fmt(count)} | ${build.name} | ${fmt(wall)} (${runs.map((s) => fmt(s.startMs)).join(", ")}) | ${(wall / firstWall).toFixed(2)} | ${fmt(cpu)} (${runs.map((s) => fmt(s.cpuMs)).join(", ")}) | ${(cpu / firstCpu).toFixed(2)} |`,
        );
        console.log(table.at(-1));
      }
      rmSync(path, { force: true });
    }
  }
  console.log(
    [
      "",
      `| history shape | trades | build | start-up ms, median (runs) | ratio to ${builds[0]?.name} | CPU ms at start-up, median (runs) | ratio to ${builds[0]?.name} |`,
      "| --- | --: | --- | --: | --: | --: | --: |",
      ...table,
    ].join("\n"),
  );
}

const rows: string[] = [];
try {
  console.log(
    `Node ${process.version}, ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}, ${BUILT ? "built dist" : "sources through tsx"}, ${RUNS} runs each`,
  );
  if (BUILDS) await buildsSideBySide(BUILDS);
  else await bySize();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** Each case started by this package's build, with its peak memory, first avgPrice and quick_check. */
async function bySize(): Promise<void> {
  for (const shape of ["30-days", "last-5-minutes"] as HistoryShape[]) {
    for (const count of [1_000, 1_000_000]) {
      if (CASES && !CASES.includes(`${shape}:${count}`)) continue;
      const path = join(scratch, `${shape}-${count}.db`);
      await databaseWithTrades(path, count, shape);
      const samples: Sample[] = [];
      const checks: number[] = [];
      for (let run = 0; run < RUNS; run += 1) {
        samples.push(await startOnce(path));
        checks.push(quickCheckMs(path));
      }
      const sizeMiB = statSync(path).size / 2 ** 20;
      rows.push(
        `| ${shape} | ${fmt(count)} | ${fmt(sizeMiB, 1)} | ${fmt(median(samples.map((s) => s.startMs)))} (${samples.map((s) => fmt(s.startMs)).join(", ")}) | ${fmt(median(samples.map((s) => s.peakMiB)))} | ${fmt(median(samples.map((s) => s.firstAvgMs)))} | ${fmt(median(checks))} |`,
      );
      console.log(rows.at(-1));
      rmSync(path, { force: true });
    }
  }
  console.log(
    [
      "",
      "| history shape | trades | file MiB | start-up ms, median (runs) | peak RSS MiB | first avgPrice ms | quick_check ms |",
      "| --- | --: | --: | --: | --: | --: | --: |",
      ...rows,
    ].join("\n"),
  );
}
