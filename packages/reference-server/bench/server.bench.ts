// Throughput of the reference server, side by side with Stoplight Prism mocking the same spec, in one
// run on loopback (127.0.0.1 only), with autocannon's programmatic API.
//
// - Market data: GET /api/v3/depth?symbol=BTCUSDT&limit=100 and GET /api/v3/ticker/price?symbol=BTCUSDT
//   against both servers. Runs alternate between the two so that load from other processes hits
//   both alike; the table shows every run and the median ratio.
// - Orders: signed POST /api/v3/order against the reference server only (Prism does not match
//   orders). Each connection alternates a BUY and a SELL LIMIT GTC at one price strictly inside the
//   spread, so every pair trades and the book does not grow. Requests are signed before each run
//   (timestamp + recvWindow=60000, HMAC-SHA256), so autocannon only replays bytes; the server still
//   checks every signature and timestamp. Orders/s counts 2xx answers.
//
// Each server runs in its own process (one Node thread: one core for the server's JavaScript);
// autocannon runs in this process. On a small shared host the load generator, not the server, is
// often the limit, so the CPU time each server process spent per answered request (from
// /proc/PID/stat, Linux) is shown too: it does not depend on how fast the requests came.
// Everything is stopped at the end, also on failure.
// Run: npm run bench (in packages/reference-server). BENCH_DURATION (s), BENCH_RUNS,
// BENCH_CONNECTIONS change the sizes.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openapiJsonPath } from "@marketapi/spec";
import { type AutocannonOptions, autocannon, fmt, freePort, median } from "./support.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const HOST = "127.0.0.1";
const API_KEY = "bench-key";
const API_SECRET = "bench-secret";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const children: ChildProcess[] = [];
const scratch = mkdtempSync(join(tmpdir(), "marketapi-bench-"));

function start(command: string, args: string[]): ChildProcess {
  const child = spawn(command, args, { cwd: packageDir, stdio: ["ignore", "ignore", "inherit"] });
  children.push(child);
  return child;
}

async function waitUntilServing(url: string, child: ChildProcess, name: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/api/v3/ping`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} did not start within 90 s`);
}

interface Target {
  url: string;
  pid: number | undefined;
}

/** CPU time (user + system) a process has used so far, in ms; undefined where /proc is missing. */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

async function startReferenceServer(): Promise<Target> {
  const port = await freePort(HOST);
  const config = join(scratch, "bench-config.json");
  writeFileSync(
    config,
    JSON.stringify({
      accounts: [{ id: "bench", apiKey: API_KEY, apiSecret: API_SECRET }],
      rateLimits: { requestWeightPerMinute: 1e12, ordersPer10s: 1e12, ordersPerDay: 1e12 },
    }),
  );
  const built = join(packageDir, "dist/cli.js");
  const entry = existsSync(built) ? [built] : ["--import", "tsx", join(packageDir, "src/cli.ts")];
  const args = [
    ...entry,
    "--port",
    String(port),
    "--host",
    HOST,
    "--config",
    config,
    "--seed",
    "1",
    "--quiet",
  ];
  const child = start(process.execPath, args);
  const url = `http://${HOST}:${port}`;
  await waitUntilServing(url, child, "reference server");
  return { url, pid: child.pid };
}

/** Prism is not a devDependency (5.16 declares Node >= 24.18): scripts/tools.mjs installs it on demand. */
function prismCommand(): string {
  const tools = join(repoRoot, "scripts", "tools.mjs");
  const installed = spawnSync(process.execPath, [tools, "prism"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (installed.status !== 0) throw new Error("could not install Prism (tools/prism) for the bench");
  return join(installed.stdout.trim(), "node_modules", ".bin", "prism");
}

async function startPrism(): Promise<Target> {
  const port = await freePort(HOST);
  const prism = prismCommand();
  const child = start(prism, ["mock", "-h", HOST, "-p", String(port), "-v", "warn", openapiJsonPath]);
  const url = `http://${HOST}:${port}`;
  await waitUntilServing(url, child, "Prism");
  return { url, pid: child.pid };
}

interface Measured {
  reqPerSec: number;
  p50: number;
  p99: number;
  failed: number;
  /** Server CPU time per answered request, in µs (NaN without /proc). */
  cpuUs: number;
}

async function measure(target: Target, options: AutocannonOptions): Promise<Measured> {
  const cpuBefore = cpuMs(target.pid);
  const result = await autocannon(options);
  const cpuAfter = cpuMs(target.pid);
  const answered = result["2xx"] + result.non2xx;
  return {
    reqPerSec: result["2xx"] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    cpuUs:
      cpuBefore === undefined || cpuAfter === undefined
        ? Number.NaN
        : ((cpuAfter - cpuBefore) * 1000) / answered,
  };
}

async function compareGet(path: string, ours: Target, prism: Target): Promise<string[]> {
  const get = (target: Target, duration: number) =>
    measure(target, { url: `${target.url}${path}`, connections: CONNECTIONS, duration });
  await get(ours, 2);
  await get(prism, 2);
  const rows: string[] = [];
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let run = 1; run <= RUNS; run += 1) {
    const first = run % 2 ? ours : prism;
    const a = await get(first, DURATION);
    const b = await get(first === ours ? prism : ours, DURATION);
    const [o, p] = first === ours ? [a, b] : [b, a];
    ratios.push(o.reqPerSec / p.reqPerSec);
    cpuRatios.push(p.cpuUs / o.cpuUs);
    rows.push(
      `| \`GET ${path}\` | ${run} | ${fmt(o.reqPerSec)} | ${o.p50} / ${o.p99} | ${o.cpuUs.toFixed(1)} | ` +
        `${fmt(p.reqPerSec)} | ${p.p50} / ${p.p99} | ${p.cpuUs.toFixed(0)} | ` +
        `${(o.reqPerSec / p.reqPerSec).toFixed(1)}× | ${(p.cpuUs / o.cpuUs).toFixed(1)}× | ${o.failed + p.failed} |`,
    );
  }
  rows.push(
    `| \`GET ${path}\` | median | | | | | | | **${median(ratios).toFixed(1)}×** | **${median(cpuRatios).toFixed(1)}×** | |`,
  );
  return rows;
}

/** A BUY and a SELL at one price inside the spread, signed now (valid for recvWindow = 60 s). */
function signedOrderPair(price: string): { method: string; path: string; headers: Record<string, string> }[] {
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
  const mid = Math.round(((Number(ticker.bidPrice) + Number(ticker.askPrice)) / 2) * 100) / 100;
  if (!(mid > Number(ticker.bidPrice) && mid < Number(ticker.askPrice))) throw new Error("spread too narrow");
  return mid.toFixed(2);
}

async function orderThroughput(ours: Target): Promise<string[]> {
  const price = await insideSpread(ours.url);
  const run = (duration: number) =>
    measure(ours, { url: ours.url, connections: CONNECTIONS, duration, requests: signedOrderPair(price) });
  await run(2);
  const rows: string[] = [];
  const rates: number[] = [];
  for (let i = 1; i <= RUNS; i += 1) {
    const m = await run(DURATION);
    rates.push(m.reqPerSec);
    rows.push(
      `| signed \`POST /api/v3/order\` | ${i} | ${fmt(m.reqPerSec)} | ${m.p50} / ${m.p99} | ` +
        `${m.cpuUs.toFixed(1)} | ${m.failed} |`,
    );
  }
  rows.push(`| signed \`POST /api/v3/order\` | median | **${fmt(median(rates))}** | | | |`);
  return rows;
}

function describeHost(): string {
  const [one, five] = loadavg();
  return (
    `host: ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), Node ${process.version}, ` +
    `load average ${one?.toFixed(2)} (1 min) ${five?.toFixed(2)} (5 min); ${CONNECTIONS} connections, ` +
    `${RUNS} runs × ${DURATION} s after a 2 s warm-up`
  );
}

/** The ceiling: plain node:http answering a fixed price-ticker body with the same headers. */
async function startBaseline(): Promise<Target> {
  const port = await freePort(HOST);
  const code =
    `const body = JSON.stringify({ symbol: "BTCUSDT", price: "60000.00000000" });` +
    `require("node:http").createServer((req, res) => { res.writeHead(200, {` +
    `"Content-Type": "application/json;charset=UTF-8", "Content-Length": String(body.length), ` +
    `"X-MBX-USED-WEIGHT-1M": "2" }); res.end(body); }).listen(${port}, "${HOST}");`;
  const child = start(process.execPath, ["-e", code]);
  const url = `http://${HOST}:${port}`;
  await waitUntilServing(url, child, "baseline");
  return { url, pid: child.pid };
}

async function baselineRows(baseline: Target): Promise<string[]> {
  const rows: string[] = [];
  for (let run = 1; run <= RUNS; run += 1) {
    const m = await measure(baseline, {
      url: `${baseline.url}/`,
      connections: CONNECTIONS,
      duration: DURATION,
    });
    rows.push(
      `| raw node:http, fixed body | ${run} | ${fmt(m.reqPerSec)} | ${m.p50} / ${m.p99} | ${m.cpuUs.toFixed(1)} |`,
    );
  }
  return rows;
}

async function main(): Promise<void> {
  console.log(describeHost());
  if ((loadavg()[0] ?? 0) > cpus().length * 0.5) {
    console.log("warning: the host is busy; figures will be lower and noisier than on an idle machine");
  }
  const [ours, prism] = await Promise.all([startReferenceServer(), startPrism()]);
  const market = [
    ...(await compareGet("/api/v3/depth?symbol=BTCUSDT&limit=100", ours, prism)),
    ...(await compareGet("/api/v3/ticker/price?symbol=BTCUSDT", ours, prism)),
  ];
  const orders = await orderThroughput(ours);
  const ceiling = await baselineRows(await startBaseline());
  console.log(
    "\n| request | run | reference req/s | p50 / p99 ms | CPU µs/req | Prism req/s | p50 / p99 ms | " +
      "CPU µs/req | req/s ratio | CPU ratio | non-2xx |",
  );
  console.log("|---|---|---:|---|---:|---:|---|---:|---:|---:|---:|");
  for (const row of market) console.log(row);
  console.log("\n| request | run | orders/s | p50 / p99 ms | CPU µs/order | non-2xx |");
  console.log("|---|---|---:|---|---:|---:|");
  for (const row of orders) console.log(row);
  console.log("\n| ceiling | run | req/s | p50 / p99 ms | CPU µs/req |");
  console.log("|---|---|---:|---|---:|");
  for (const row of ceiling) console.log(row);
  console.log(`\n${describeHost()}`);
}

function stopAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  rmSync(scratch, { recursive: true, force: true });
}

try {
  await main();
} finally {
  stopAll();
}
