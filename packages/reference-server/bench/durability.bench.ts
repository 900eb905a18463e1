// Durable against in-memory order placement, side by side in one run on loopback (127.0.0.1):
// signed new_order orders/s with a state database (every order committed before it is answered;
// --state-sync normal, the default, and full, which also fsyncs each commit) and without, and the
// longest event-loop stall of the server during each burst.
//
// Each server runs in its own process (bench/serve-monitored.ts) and measures its own event loop
// with perf_hooks.monitorEventLoopDelay (1 ms resolution). autocannon drives it from this process:
// each connection alternates a BUY and a SELL LIMIT GTC at one price inside the spread, so every
// pair trades (two orders, one trade, four balances written per pair). Runs alternate between the
// two servers; the table shows every run and the medians. CPU µs/order is the server process's
// CPU time (all threads, writer included) per answered order, from /proc/PID/stat.
// Run: npm run bench:durability (in packages/reference-server). BENCH_DURATION (s), BENCH_RUNS,
// BENCH_CONNECTIONS change the sizes.
import { type ChildProcess, fork } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { autocannon, fmt, freePort, median } from "./support.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const HOST = "127.0.0.1";
const API_KEY = "bench-key";
const API_SECRET = "bench-secret";

const scratch = mkdtempSync(join(tmpdir(), "marketapi-durability-"));
const children: ChildProcess[] = [];

interface Target {
  name: string;
  url: string;
  child: ChildProcess;
  statePath?: string;
}

async function startTarget(name: string, statePath?: string, sync = "normal"): Promise<Target> {
  const port = await freePort(HOST);
  const config = JSON.stringify({
    accounts: [{ id: "bench", apiKey: API_KEY, apiSecret: API_SECRET }],
    rateLimits: { requestWeightPerMinute: 1e12, ordersPer10s: 1e12, ordersPerDay: 1e12 },
  });
  const script = fileURLToPath(new URL("./serve-monitored.ts", import.meta.url));
  const child = fork(script, [String(port), config, ...(statePath ? [statePath, sync] : [])], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  return { name, url: `http://${HOST}:${port}`, child, ...(statePath ? { statePath } : {}) };
}

function ask(target: Target, message: string): Promise<{ maxStallMs: number; p99Ms: number }> {
  return new Promise((resolve) => {
    target.child.once("message", (reply) => resolve(reply as { maxStallMs: number; p99Ms: number }));
    target.child.send(message);
  });
}

function cpuMs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function signedOrderPair(price: string) {
  return ["BUY", "SELL"].map((side) => {
    const query =
      `symbol=BTCUSDT&side=${side}&type=LIMIT&timeInForce=GTC&quantity=0.001&price=${price}` +
      `&recvWindow=60000&timestamp=${Date.now()}`;
    const signature = createHmac("sha256", API_SECRET).update(query).digest("hex");
    return {
      method: "POST",
      path: `/api/v3/order?${query}&signature=${signature}`,
      headers: { "X-MBX-APIKEY": API_KEY, "Content-Type": "application/json", "Content-Length": "0" },
    };
  });
}

async function insideSpread(base: string): Promise<string> {
  const ticker = (await (await fetch(`${base}/api/v3/ticker/bookTicker?symbol=BTCUSDT`)).json()) as {
    bidPrice: string;
    askPrice: string;
  };
  return (Math.round(((Number(ticker.bidPrice) + Number(ticker.askPrice)) / 2) * 100) / 100).toFixed(2);
}

interface Run {
  ordersPerSec: number;
  p50: number;
  p99: number;
  cpuUs: number;
  maxStallMs: number;
  failed: number;
}

async function burst(target: Target, duration: number): Promise<Run> {
  const price = await insideSpread(target.url);
  target.child.send("reset");
  const cpuBefore = cpuMs(target.child.pid);
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration,
    requests: signedOrderPair(price),
  });
  const cpuAfter = cpuMs(target.child.pid);
  const loop = await ask(target, "report");
  const answered = result["2xx"] + result.non2xx;
  return {
    ordersPerSec: result["2xx"] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuUs: ((cpuAfter - cpuBefore) * 1000) / Math.max(1, answered),
    maxStallMs: loop.maxStallMs,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

async function main(): Promise<void> {
  const memory = await startTarget("in memory");
  const durable = await startTarget("--state", join(scratch, "bench.db"));
  const full = await startTarget("--state --state-sync full", join(scratch, "bench-full.db"), "full");
  const targets = [memory, durable, full];
  for (const target of targets) await burst(target, 2); // warm-up
  const rows: string[] = [];
  const results = new Map<string, Run[]>(targets.map((t) => [t.name, []]));
  for (let run = 1; run <= RUNS; run += 1) {
    const order = run % 2 ? [durable, full, memory] : [memory, full, durable];
    for (const target of order) {
      const m = await burst(target, DURATION);
      results.get(target.name)?.push(m);
      rows.push(
        `| ${target.name} | ${run} | ${fmt(m.ordersPerSec)} | ${m.p50} / ${m.p99} | ${m.cpuUs.toFixed(1)} | ` +
          `${m.maxStallMs.toFixed(1)} | ${m.failed} |`,
      );
    }
  }
  for (const target of [durable, full, memory]) {
    const runs = results.get(target.name) ?? [];
    rows.push(
      `| ${target.name} | **median** | **${fmt(median(runs.map((r) => r.ordersPerSec)))}** | | ` +
        `${median(runs.map((r) => r.cpuUs)).toFixed(1)} | **${median(runs.map((r) => r.maxStallMs)).toFixed(1)}** (max ${Math.max(...runs.map((r) => r.maxStallMs)).toFixed(1)}) | |`,
    );
  }
  const ratio =
    median((results.get(durable.name) ?? []).map((r) => r.ordersPerSec)) /
    median((results.get(memory.name) ?? []).map((r) => r.ordersPerSec));
  const [one, five] = loadavg();
  console.log(
    `host: ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), Node ${process.version}, load average ` +
      `${one?.toFixed(2)} (1 min) ${five?.toFixed(2)} (5 min); ${CONNECTIONS} connections, ${RUNS} runs × ${DURATION} s`,
  );
  console.log(
    "\n| server | run | orders/s | p50 / p99 ms | CPU µs/order | longest event-loop stall ms | failed |",
  );
  console.log("| --- | --- | ---: | --- | ---: | ---: | ---: |");
  for (const row of rows) console.log(row);
  const fullRatio =
    median((results.get(full.name) ?? []).map((r) => r.ordersPerSec)) /
    median((results.get(memory.name) ?? []).map((r) => r.ordersPerSec));
  console.log(
    `\ndurable / in-memory orders/s (medians): ${ratio.toFixed(2)} (full sync: ${fullRatio.toFixed(2)})`,
  );
  console.log(
    `state database after the bench: ${(statSync(join(scratch, "bench.db")).size / 1e6).toFixed(1)} MB`,
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
