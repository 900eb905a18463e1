// Backups of a state database: `marketapi-server backup` against the size of the history, and
// while a server serves a durable order load.
//
// 1. Size: databases of 10,000, 100,000 and 1,000,000 trades (test/support/history-db.ts, two
//    closed orders each), backed up by the command (no server running) BENCH_RUNS times: the
//    command's wall time, median, the backup's size against the file's; then `restore` of the
//    backup into a new file, timed once.
// 2. Under load: a server process (bench/serve-monitored.ts, --state, sync normal) on the largest
//    of those databases takes the ceiling bench's signed crossing orders on 10 connections for
//    BENCH_DURATION seconds; a second run of the same length has `backup` started one second in.
//    Orders per second, latency p99 and maximum, the server's longest event-loop stall, the
//    backup's time and the orders it holds.
// Run: npm run build && npm run bench:backup (in packages/reference-server). BENCH_CASES picks
// sizes (such as 10000,100000), BENCH_RUNS (default 3), BENCH_DURATION (default 8); BENCH_ONLY=load
// runs the second part only (on a database of the largest size).
import { type ChildProcess, fork, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { databaseWithTrades } from "../test/support/history-db.js";
import { ACCOUNTS, orderCycle, UNLIMITED } from "./order-load.js";
import { type AutocannonResult, autocannon, fmt, freePort, median } from "./support.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const SIZES = (process.env.BENCH_CASES ?? "10000,100000,1000000").split(",").map(Number);
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const BUILT = existsSync(join(PACKAGE, "dist", "cli.js"));
// On the disk next to the package (not a tmpfs): a backup's time is its reads and writes.
const scratch = mkdtempSync(join(PACKAGE, ".bench-backup-"));

/** The command's run: exit code, output, wall time. */
async function command(args: string[]): Promise<{ code: number; out: string; ms: number }> {
  const cli = BUILT
    ? [join(PACKAGE, "bin", "marketapi-server.js")]
    : ["--import", "tsx", join(PACKAGE, "src", "cli.ts")];
  const started = performance.now();
  const child = spawn(process.execPath, [...cli, ...args], {
    cwd: PACKAGE,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number>((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
  return { code, out, ms: performance.now() - started };
}

function mib(path: string): number {
  return statSync(path).size / 2 ** 20;
}

/** "…, 2,000 orders, …" from the command's line. */
function ordersIn(line: string): number {
  return Number(/([\d,]+) orders/.exec(line)?.[1]?.replace(/,/g, "") ?? Number.NaN);
}

/** The rows of the table, and the largest database (kept for the run under load). */
async function bySize(): Promise<{ rows: string[]; largest: string }> {
  const rows: string[] = [];
  const largest = join(scratch, `history-${Math.max(...SIZES)}.db`);
  if (process.env.BENCH_ONLY === "load") {
    await databaseWithTrades(largest, Math.max(...SIZES));
    return { rows, largest };
  }
  for (const trades of SIZES) {
    const path = join(scratch, `history-${trades}.db`);
    await databaseWithTrades(path, trades);
    const times: number[] = [];
    let backupMiB = 0;
    let orders = 0;
    for (let run = 0; run < RUNS; run += 1) {
      const out = join(scratch, `backup-${trades}-${run}.db`);
      const result = await command(["backup", "--state", path, "--out", out]);
      if (result.code !== 0) throw new Error(`backup exited ${result.code}: ${result.out}`);
      times.push(result.ms);
      backupMiB = mib(out);
      orders = ordersIn(result.out);
      if (run < RUNS - 1) rmSync(out);
    }
    const restored = join(scratch, `restored-${trades}.db`);
    const restore = await command([
      "restore",
      "--from",
      join(scratch, `backup-${trades}-${RUNS - 1}.db`),
      "--state",
      restored,
    ]);
    if (restore.code !== 0) throw new Error(`restore exited ${restore.code}: ${restore.out}`);
    rows.push(
      `| ${fmt(trades)} | ${fmt(orders)} | ${mib(path).toFixed(1)} | ${backupMiB.toFixed(1)} | ${fmt(median(times))} (${times.map(fmt).join(", ")}) | ${fmt(restore.ms)} |`,
    );
    console.log(rows.at(-1));
    for (const file of [restored, join(scratch, `backup-${trades}-${RUNS - 1}.db`)])
      rmSync(file, { force: true });
    if (path !== largest) rmSync(path, { force: true });
  }
  return { rows, largest };
}

interface Served {
  child: ChildProcess;
  url: string;
}

async function serve(statePath: string): Promise<Served> {
  const port = await freePort();
  const script = fileURLToPath(new URL("./serve-monitored.ts", import.meta.url));
  const config = JSON.stringify({ accounts: ACCOUNTS, rateLimits: UNLIMITED });
  const child = fork(script, [String(port), config, statePath, "normal"], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  await new Promise<void>((ready, failed) => {
    child.once("message", () => ready());
    child.once("exit", (code) => failed(new Error(`the server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

function ask<T>(child: ChildProcess, message: unknown): Promise<T> {
  return new Promise((resolve) => {
    child.once("message", (reply) => resolve(reply as T));
    child.send(message as object);
  });
}

interface LoadRun {
  result: AutocannonResult & { latency: { max: number } };
  stallMs: number;
  backup?: { ms: number; orders: number; mib: number };
}

/** The order load for DURATION seconds; with `backupTo`, the backup command one second in. */
async function loadRun(
  served: Served,
  price: string,
  backupTo?: string,
  statePath?: string,
): Promise<LoadRun> {
  served.child.send("reset");
  const load = autocannon({
    url: served.url,
    connections: 10,
    duration: DURATION,
    requests: orderCycle(price),
  });
  let backup: LoadRun["backup"];
  if (backupTo && statePath) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const result = await command(["backup", "--state", statePath, "--out", backupTo]);
    if (result.code !== 0) throw new Error(`backup exited ${result.code}: ${result.out}`);
    backup = { ms: result.ms, orders: ordersIn(result.out), mib: mib(backupTo) };
  }
  const result = (await load) as LoadRun["result"];
  const report = await ask<{ maxStallMs: number }>(served.child, "report");
  return { result, stallMs: report.maxStallMs, ...(backup ? { backup } : {}) };
}

async function underLoad(statePath: string): Promise<string[]> {
  const served = await serve(statePath);
  try {
    // The history trades at 60,000 and its books are empty (no spread to trade inside).
    const price = "60000.00";
    await loadRun(served, price); // warm-up
    const rows: string[] = [];
    for (const [name, backupTo] of [
      ["no backup", undefined],
      ["backup started 1 s in", join(scratch, "live-backup.db")],
    ] as const) {
      const run = await loadRun(served, price, backupTo, statePath);
      const { result } = run;
      const backup = run.backup
        ? `${fmt(run.backup.ms)} ms, ${fmt(run.backup.orders)} orders, ${run.backup.mib.toFixed(1)} MiB`
        : "";
      rows.push(
        `| ${name} | ${fmt(result["2xx"] / result.duration)} | ${result.latency.p99} | ${result.latency.max} | ${fmt(run.stallMs)} | ${result.non2xx + result.errors} | ${backup} |`,
      );
      console.log(rows.at(-1));
    }
    return rows;
  } finally {
    await new Promise((exited) => {
      served.child.once("exit", exited);
      served.child.kill("SIGTERM");
    });
  }
}

try {
  const [load1] = loadavg();
  console.log(
    `Node ${process.version}, ${cpus().length} CPUs, load ${load1?.toFixed(2)}, ${BUILT ? "built dist" : "sources through tsx"}`,
  );
  const sizes = await bySize();
  const load = await underLoad(sizes.largest);
  console.log(
    [
      "",
      `| trades | orders | file MiB | backup MiB | backup ms, median (${RUNS} runs) | restore ms |`,
      "| --: | --: | --: | --: | --: | --: |",
      ...sizes.rows,
      "",
      `| ${DURATION} s of signed orders, 10 connections, on the ${fmt(Math.max(...SIZES))}-trade file | orders/s | p99 ms | max ms | longest stall ms | failed | backup |`,
      "| --- | --: | --: | --: | --: | --: | --- |",
      ...load,
    ].join("\n"),
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
