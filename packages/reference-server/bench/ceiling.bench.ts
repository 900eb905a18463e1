// The reference server beside the machine's ceiling, in one run on loopback (127.0.0.1): each
// figure is the server's over a minimal program doing the irreducible work (bench/minimal/):
//
// - signed new_order in memory: bench/minimal/orders-server.ts (form body, HMAC, a small book, JSON);
// - signed new_order with --state (sync normal, then full): the same program committing every order
//   and trade to SQLite (WAL) in one transaction per event-loop turn before answering;
// - depth limit=100 and ticker price: bench/minimal/read-server.ts, bare node:http answering the
//   same bytes the reference server answered.
//
// Orders: autocannon, BENCH_CONNECTIONS connections, each sending crossing pairs at one price (a
// BUY of account a and a SELL of account b, then b buys and a sells), so every pair trades. Runs alternate which program goes first; the
// table shows medians over BENCH_RUNS runs of BENCH_DURATION s. CPU µs per request is the server
// process's CPU time (all threads) from /proc/PID/stat; disk bytes per order its write_bytes from
// /proc/PID/io; the longest stall is the server's main thread (monitorEventLoopDelay, 1 ms).
// The reference servers run with rate limits raised (see the README's "Rate limits").
//
// Market figures (BENCH_ONLY=market): the same signed new_order load against the reference server
// with its simulated market running (real-time clock: the default market, and one ten times as
// busy, a tick every 100 ms) beside the same server without it: the capacity left for a user's own
// orders while the participants trade, as the ratio of orders/s with the market to without it.
//
// BENCH_ONLY=flatness (not part of the default run): the same signed new_order load and depth
// limit=100 against three reference servers whose BTCUSDT book holds 10, 1,000 and 100,000
// resting orders away from the touch (each at a price level of its own, half bids, half asks),
// in one run, alternating which goes first; CPU µs per request at each size and the ratio of the
// largest to the smallest.
// Each figure's programs are stopped once it is measured, so that no idle one (a heap being
// collected, a checkpoint) takes CPU from the next figure's runs.
// Run: npm run bench:ceiling -w @marketapi/reference-server
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ACCOUNTS, cancelOpenOrders, cpuMs, insideSpread, orderCycle, UNLIMITED } from "./order-load.js";
import { autocannon, fmt, freePort, median } from "./support.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ONLY = process.env.BENCH_ONLY; // e.g. "durable" to run one comparison
const HOST = "127.0.0.1";

// On the disk, not in a tmpfs, so that write_bytes counts what reaches the file system.
const scratch = mkdtempSync(join(fileURLToPath(new URL(".", import.meta.url)), ".ceiling-"));
const children: ChildProcess[] = [];

interface Target {
  name: string;
  url: string;
  child: ChildProcess;
}

async function start(
  name: string,
  script: string,
  args: (port: number) => string[],
  env: Record<string, string> = {},
): Promise<Target> {
  const port = await freePort(HOST);
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), args(port), {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: { ...process.env, ...env },
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  return { name, url: `http://${HOST}:${port}`, child };
}

const config = JSON.stringify({ accounts: ACCOUNTS, rateLimits: UNLIMITED });
const reference = (name: string, state?: string, sync = "normal") =>
  start(name, "./serve-monitored.ts", (port) => [
    String(port),
    config,
    ...(state ? [join(scratch, state), sync] : []),
  ]);
const minimal = (name: string, state?: string, sync = "normal") =>
  start(name, "./minimal/orders-server.ts", (port) => [
    String(port),
    ...(state ? [join(scratch, state), sync] : []),
  ]);

/**
 * Ends a figure's programs once it is measured: an idle one still takes CPU from the next figure's
 * runs (a server that kept a million orders collects its heap for seconds after its load stops).
 */
async function stop(targets: readonly Target[]): Promise<void> {
  const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
  const ending = [...new Set(targets.map((t) => t.child))].filter((child) => !exited(child));
  await Promise.all(
    ending.map(
      (child) =>
        new Promise<void>((resolve) => {
          const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
          child.once("exit", () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill("SIGTERM");
        }),
    ),
  );
}

function ask(target: Target, message: string): Promise<{ maxStallMs: number }> {
  return new Promise((resolve) => {
    target.child.once("message", (reply) => resolve(reply as { maxStallMs: number }));
    target.child.send(message);
  });
}

function writeBytes(pid: number | undefined): number {
  const line = readFileSync(`/proc/${pid}/io`, "utf8").match(/^write_bytes: (\d+)$/m);
  return Number(line?.[1] ?? Number.NaN);
}

interface Run {
  perSec: number;
  cpuUs: number;
  diskBytes: number;
  maxStallMs: number;
  failed: number;
}

async function burst(target: Target, requests: unknown[]): Promise<Run> {
  target.child.send("reset");
  const pid = target.child.pid;
  const cpuBefore = cpuMs(pid);
  const diskBefore = writeBytes(pid);
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: DURATION,
    requests,
  });
  const cpu = cpuMs(pid) - cpuBefore;
  const disk = writeBytes(pid) - diskBefore;
  const { maxStallMs } = await ask(target, "report");
  const ok = Math.max(1, result["2xx"]);
  return {
    perSec: result["2xx"] / result.duration,
    cpuUs: (cpu * 1000) / ok,
    diskBytes: disk / ok,
    maxStallMs,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

interface Comparison {
  figure: string;
  server: Target;
  ceiling: Target;
  requests: (target: Target) => unknown[];
  /** Run before each burst (the market figures: the price re-centred, the accounts' orders cancelled). */
  prepare?: () => Promise<void>;
}

async function compare(c: Comparison): Promise<string[]> {
  const prepared = async (target: Target) => {
    await c.prepare?.();
    return burst(target, c.requests(target));
  };
  await prepared(c.server); // warm-up
  await prepared(c.ceiling);
  const runs = { server: [] as Run[], ceiling: [] as Run[] };
  for (let run = 0; run < RUNS; run += 1) {
    const order = run % 2 ? (["ceiling", "server"] as const) : (["server", "ceiling"] as const);
    for (const which of order) runs[which].push(await prepared(c[which]));
  }
  const m = (which: "server" | "ceiling", key: keyof Run) => median(runs[which].map((r) => r[key]));
  const ratios = runs.server.map((r, i) => r.perSec / (runs.ceiling[i] as Run).perSec);
  const disk = (which: "server" | "ceiling") =>
    Number.isNaN(m(which, "diskBytes")) || m(which, "diskBytes") < 1 ? "–" : fmt(m(which, "diskBytes"));
  const stall = (which: "server" | "ceiling") => m(which, "maxStallMs").toFixed(1);
  const failed = (which: "server" | "ceiling") => runs[which].reduce((n, r) => n + r.failed, 0);
  return [
    `| ${c.figure} | ${fmt(m("server", "perSec"))} | ${m("server", "cpuUs").toFixed(1)} | ` +
      `${fmt(m("ceiling", "perSec"))} | ${m("ceiling", "cpuUs").toFixed(1)} | **${median(ratios).toFixed(2)}×** ` +
      `(${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ` +
      `${(m("ceiling", "cpuUs") / m("server", "cpuUs")).toFixed(2)}× | ${disk("server")} / ${disk("ceiling")} | ` +
      `${stall("server")} / ${stall("ceiling")} | ${failed("server")} / ${failed("ceiling")} |`,
  ];
}

async function orderComparison(figure: string, state?: string, sync = "normal"): Promise<Comparison> {
  const server = await reference(`server ${figure}`, state && `${state}.db`, sync);
  const ceiling = await minimal(`minimal ${figure}`, state && `${state}-minimal.db`, sync);
  const price = await insideSpread(server.url);
  return { figure, server, ceiling, requests: () => orderCycle(price) };
}

/**
 * The server with its market running against the same server without it, under the same crossing
 * pairs. The market moves, so before each burst the pairs' price is put back inside its spread and
 * the accounts' orders left resting (taken over by participants' quotes or outrun by the price) are
 * cancelled on both servers, so that no burst meets the open-order limits.
 */
async function marketComparison(figure: string, market: unknown): Promise<Comparison> {
  const server = await start(`server ${figure}`, "./serve-monitored.ts", (port) => [String(port), config], {
    BENCH_SANDBOX: JSON.stringify({ market }),
  });
  const ceiling = await reference(`server without the market (${figure})`);
  // Each server's own spread: the market moves away from the seeded ladder's.
  const prices = new Map<Target, string>();
  const prepare = async () => {
    for (const target of [server, ceiling]) {
      await cancelOpenOrders(target.url);
      prices.set(target, await insideSpread(target.url));
    }
  };
  return { figure, server, ceiling, requests: (target) => orderCycle(prices.get(target) as string), prepare };
}

/** The market's own cost: the server's CPU ms per second over an idle stretch, with and without it. */
async function idleCpu(targets: readonly Target[], seconds = 5): Promise<number[]> {
  const before = targets.map((target) => cpuMs(target.child.pid));
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return targets.map((target, i) => (cpuMs(target.child.pid) - (before[i] as number)) / seconds);
}

async function readComparisons(): Promise<Comparison[]> {
  const server = await reference("server reads");
  const paths = ["/api/v3/depth?symbol=BTCUSDT&limit=100", "/api/v3/ticker/price?symbol=BTCUSDT"];
  const bodies: Record<string, string> = {};
  for (const path of paths) bodies[path] = await (await fetch(`${server.url}${path}`)).text();
  const bare = await start("bare node:http", "./minimal/read-server.ts", (port) => [
    String(port),
    JSON.stringify(bodies),
  ]);
  return paths.map((path) => ({
    figure: `GET ${path.replace("/api/v3/", "").replace("?symbol=BTCUSDT", "").replace("&", "?")}`,
    server,
    ceiling: bare,
    requests: () => [{ method: "GET", path }],
  }));
}

const BOOK_SIZES = [10, 1_000, 100_000];

function seed(target: Target, count: number): Promise<void> {
  return new Promise((resolve) => {
    target.child.once("message", () => resolve());
    target.child.send({ seed: count });
  });
}

/** The flatness table: each figure at each book size, side by side in one run. */
async function flatness(): Promise<string[]> {
  const servers: { size: number; target: Target; price: string }[] = [];
  for (const size of BOOK_SIZES) {
    const target = await reference(`server ${size} resting`);
    await seed(target, size);
    servers.push({ size, target, price: await insideSpread(target.url) });
  }
  const figures = [
    { figure: "signed new_order (crossing pairs)", requests: (price: string) => orderCycle(price) },
    {
      figure: "GET depth?limit=100",
      requests: () => [{ method: "GET", path: "/api/v3/depth?symbol=BTCUSDT&limit=100" }],
    },
  ];
  const rows: string[] = [];
  for (const { figure, requests } of figures) {
    for (const s of servers) await burst(s.target, requests(s.price)); // warm-up
    const runs = servers.map(() => [] as Run[]);
    for (let run = 0; run < RUNS; run += 1) {
      for (let k = 0; k < servers.length; k += 1) {
        const i = (run + k) % servers.length;
        const s = servers[i] as (typeof servers)[0];
        (runs[i] as Run[]).push(await burst(s.target, requests(s.price)));
      }
    }
    const cpu = runs.map((r) => median(r.map((x) => x.cpuUs)));
    const perSec = runs.map((r) => median(r.map((x) => x.perSec)));
    const failed = runs.reduce((n, r) => n + r.reduce((m, x) => m + x.failed, 0), 0);
    const cells = servers.map((_, i) => `${fmt(perSec[i] as number)} | ${(cpu[i] as number).toFixed(1)}`);
    const ratio = (cpu[cpu.length - 1] as number) / (cpu[0] as number);
    rows.push(`| ${figure} | ${cells.join(" | ")} | **${ratio.toFixed(2)}×** | ${failed} |`);
  }
  await stop(servers.map((s) => s.target));
  return rows;
}

async function main(): Promise<void> {
  if (ONLY?.split(",").includes("flatness")) {
    const rows = await flatness();
    printHost();
    const sizes = BOOK_SIZES.map((n) => `${fmt(n)} resting: req/s | CPU µs/req`).join(" | ");
    console.log(
      `| figure | ${sizes} | CPU ${fmt(BOOK_SIZES.at(-1) ?? 0)} / ${fmt(BOOK_SIZES[0] ?? 0)} | failed |`,
    );
    console.log(`| --- | ${BOOK_SIZES.map(() => "---: | ---:").join(" | ")} | ---: | ---: |`);
    for (const row of rows) console.log(row);
    if (ONLY === "flatness") return;
  }
  const wanted = (name: string) => ONLY === undefined || ONLY.split(",").includes(name);
  const figures: [string, () => Promise<Comparison[]>][] = [
    ["memory", async () => [await orderComparison("new_order in memory")]],
    ["durable", async () => [await orderComparison("new_order --state", "normal")]],
    ["full", async () => [await orderComparison("new_order --state-sync full", "full", "full")]],
    ["reads", readComparisons],
  ];
  const rows: string[] = [];
  for (const [name, make] of figures) {
    if (!wanted(name)) continue;
    const comparisons = await make();
    for (const comparison of comparisons) rows.push(...(await compare(comparison)));
    await stop(comparisons.flatMap((c) => [c.server, c.ceiling]));
  }
  const marketRows: string[] = [];
  let idle = "";
  if (wanted("market")) {
    const comparison = await marketComparison("signed new_order, the market on", true);
    const [withMarket, without] = await idleCpu([comparison.server, comparison.ceiling]);
    idle = `idle CPU: ${withMarket?.toFixed(1)} ms/s with the market, ${without?.toFixed(1)} ms/s without\n`;
    marketRows.push(...(await compare(comparison)));
    await stop([comparison.server, comparison.ceiling]);
  }
  printHost();
  if (marketRows.length > 0) {
    console.log(
      "| figure | with the market req/s | CPU µs/req | without req/s | CPU µs/req | req/s ratio (range) | CPU ratio | disk bytes/order | longest stall ms with / without | failed with / without |",
    );
    console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const row of marketRows) console.log(row);
    console.log(idle);
  }
  if (rows.length === 0) return;
  console.log(
    "| figure | server req/s | CPU µs/req | minimal program req/s | CPU µs/req | req/s ratio (range) | CPU ratio | disk bytes/order server / minimal | longest stall ms server / minimal | failed server / minimal |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const row of rows) console.log(row);
}

function printHost(): void {
  const [one, five] = loadavg();
  console.log(
    `host: ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), Node ${process.version}, load average ` +
      `${one?.toFixed(2)} (1 min) ${five?.toFixed(2)} (5 min); ${CONNECTIONS} connections, ` +
      `medians of ${RUNS} alternating runs × ${DURATION} s\n`,
  );
}

try {
  await main();
} finally {
  for (const child of children) child.kill("SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
}
