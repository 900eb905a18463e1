// Fair service under a pipelining attack, at three sizes in one run: for each size a new server
// process, then that many connections from 127.0.0.1 and 127.0.0.2, each sending PIPELINED
// exchangeInfo requests in one write and never reading an answer, while bystanders on 127.0.0.3
// ping on a schedule, whatever the answers do (open loop, so a stall delays every ping due in it):
//
// - keep-alive: a ping every 10 ms on KEPT connections opened before the attack, taken in turn (a
//   ping due while all are busy waits for one: the client of an established connection);
// - fresh: a ping every 50 ms on a new connection of its own (accepted during the storm).
//
// The attackers run in a process of their own, so that the bystanders' timings hold only the
// server's delays. A ping's latency runs from when it was due until its answer is read. Reports per size the
// bystanders' p50 / p99 / max, failed pings (an error, a status other than 200, or no answer in
// 5 s), the server's longest event-loop stall and CPU time from the attack's start until the
// pings end, its RSS before, at its peak (VmHWM) and 2 s after the attackers close, and how many
// answers the attackers were served (from their used-weight header; "window rolled" when the
// minute's count started afresh meanwhile).
//
// Run: npm run bench:abuse (in packages/reference-server). ABUSE_SIZES (default 100,300,500),
// ABUSE_PIPELINED (2000), ABUSE_SECONDS (10) change the sizes. The server is bench/serve-monitored.ts
// with the default configuration (rate limits included: the attackers are meant to be refused),
// on this package's dist/ (src/ without one); BENCH_DIST=path/to/dist runs another build (one from
// before a change, side by side with this one in separate runs).
import { type ChildProcess, fork } from "node:child_process";
import { Agent, request } from "node:http";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { send } from "../test/support/http.js";
import { memoryOf, pipeliningAttack } from "../test/support/pipelining-attack.js";
import { cpuMs } from "./order-load.js";
import { freePort } from "./support.js";

const SIZES = (process.env.ABUSE_SIZES ?? "100,300,500").split(",").map(Number);
const PIPELINED = Number(process.env.ABUSE_PIPELINED ?? 2000);
const SECONDS = Number(process.env.ABUSE_SECONDS ?? 10);
const ATTACKERS = ["127.0.0.1", "127.0.0.2"];
const BYSTANDER = "127.0.0.3";
const PING_TIMEOUT_MS = 5000;
/** Connections of the keep-alive bystander, each used every KEPT × 10 ms (well within keep-alive's 5 s). */
const KEPT = 8;
const MB = 1024 * 1024;

/** The server under test, in its own process; resolves once it listens. */
async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort("127.0.0.1");
  const script = fileURLToPath(new URL("./serve-monitored.ts", import.meta.url));
  const child = fork(script, [String(port), "{}"], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

function ask(child: ChildProcess, message: string): Promise<{ maxStallMs: number }> {
  return new Promise((resolve) => {
    child.once("message", (reply) => resolve(reply as { maxStallMs: number }));
    child.send(message);
  });
}

/** One ping: its latency in ms from `dueAt` (performance.now()), or why it failed. */
function ping(url: URL, agent: Agent | false, dueAt: number): Promise<number | string> {
  return new Promise((done) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: "/api/v3/ping",
        agent,
        localAddress: BYSTANDER,
        timeout: PING_TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          done(res.statusCode === 200 ? performance.now() - dueAt : `status ${res.statusCode}`),
        );
        res.on("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer in 5 s")));
    req.on("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    req.end();
  });
}

interface Pings {
  latencies: number[];
  /** Failed pings by what went wrong. */
  failed: Map<string, number>;
}

/** Pings every `everyMs` until `running()` turns false; resolves once every ping has ended. */
async function pingOnSchedule(url: URL, agent: Agent | false, everyMs: number, running: () => boolean) {
  const pings: Pings = { latencies: [], failed: new Map() };
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; running(); i += 1) {
    const dueAt = start + i * everyMs;
    const wait = dueAt - performance.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    pending.push(
      ping(url, agent, dueAt).then((outcome) => {
        if (typeof outcome === "number") pings.latencies.push(outcome);
        else pings.failed.set(outcome, (pings.failed.get(outcome) ?? 0) + 1);
      }),
    );
  }
  await Promise.all(pending);
  return pings;
}

/** "3 (2 ECONNRESET, 1 status 429)", or "0". */
function failures(...all: Pings[]): string {
  const reasons = new Map<string, number>();
  for (const { failed } of all) for (const [why, n] of failed) reasons.set(why, (reasons.get(why) ?? 0) + n);
  const total = [...reasons.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return "0";
  return `${total} (${[...reasons].map(([why, n]) => `${n} ${why}`).join(", ")})`;
}

function quantiles(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
  return `${at(0.5).toFixed(1)} / ${at(0.99).toFixed(1)} / ${(sorted.at(-1) ?? NaN).toFixed(0)}`;
}

async function measure(connections: number): Promise<string> {
  const { url: base, child } = await startServer();
  try {
    const url = new URL(base);
    const pid = child.pid as number;
    const warm = new Agent({ keepAlive: true, localAddress: BYSTANDER } as never);
    for (let i = 0; i < 50; i += 1) await send(base, { path: "/api/v3/exchangeInfo" }, warm);
    warm.destroy();
    const before = await memoryOf(pid);
    let running = true;
    const keepAlive = new Agent({ keepAlive: true, maxSockets: KEPT, scheduling: "fifo" });
    // Opened before the attack: as many pings at once as there are connections.
    await Promise.all(Array.from({ length: KEPT }, () => ping(url, keepAlive, performance.now())));
    const pinging = Promise.all([
      pingOnSchedule(url, keepAlive, 10, () => running),
      pingOnSchedule(url, false, 50, () => running),
    ]);
    await new Promise((done) => setTimeout(done, 500));
    child.send("reset");
    const cpuBefore = cpuMs(pid);
    const attack = await attackFrom(base, connections);
    await new Promise((done) => setTimeout(done, SECONDS * 1000));
    running = false;
    const [kept, fresh] = await pinging;
    const cpu = cpuMs(pid) - cpuBefore;
    const { maxStallMs } = await ask(child, "report");
    keepAlive.destroy();
    const during = await memoryOf(pid);
    await attack.stop();
    await new Promise((done) => setTimeout(done, 2000));
    const after = await memoryOf(pid);
    let served = 0;
    let rolled = false;
    for (const address of ATTACKERS) {
      const agent = new Agent({ localAddress: address } as never);
      const r = await send(base, { path: "/api/v3/time" }, agent);
      const weight = Number(r.headers["x-mbx-used-weight-1m"]);
      if (weight <= 1) rolled = true;
      served += Math.max(0, weight - 1) / 20;
    }
    const peak = Math.max(during.peak, after.peak);
    return (
      `| ${connections} | ${kept.latencies.length} | ${quantiles(kept.latencies)} | ` +
      `${fresh.latencies.length} | ${quantiles(fresh.latencies)} | ${failures(kept, fresh)} | ` +
      `${maxStallMs.toFixed(0)} | ${Math.round(cpu).toLocaleString("en-US")} | ` +
      `${Math.round(before.rss / MB)} / ${Math.round(peak / MB)} / ${Math.round(after.rss / MB)} MB | ` +
      `${rolled ? "window rolled" : `${served.toLocaleString("en-US")} of ${(connections * PIPELINED).toLocaleString("en-US")}`} |`
    );
  } finally {
    child.kill("SIGKILL");
  }
}

/** The attack, from a process of its own (this script, with ABUSE_ATTACK set). */
async function attackFrom(url: string, connections: number): Promise<{ stop(): Promise<void> }> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, ABUSE_ATTACK: JSON.stringify({ url, connections }) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`the attackers exited with ${code}`)));
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.send("stop");
      }),
  };
}

/** In the attackers' process: every connection open and its requests written, then "ready". */
async function attack(url: string, connections: number): Promise<void> {
  const sockets = await pipeliningAttack(url, {
    connections,
    requestsPerConnection: PIPELINED,
    addresses: ATTACKERS,
  });
  process.on("message", () => {
    sockets.stop().then(() => process.exit(0));
  });
  process.send?.("ready");
}

async function main(): Promise<void> {
  const rows: string[] = [];
  const loads: string[] = [];
  for (const size of SIZES) {
    rows.push(await measure(size));
    loads.push(loadavg()[0]?.toFixed(1) ?? "?");
  }
  console.log(
    `attack: connections from ${ATTACKERS.join(" and ")} × ${PIPELINED} pipelined exchangeInfo, never read; ` +
      `${SECONDS} s per size; ${process.env.BENCH_DIST ? `build ${process.env.BENCH_DIST}` : "this package's build"}; ` +
      `load average after each size ${loads.join(", ")}`,
  );
  console.log(
    "| connections | keep-alive pings | p50 / p99 / max ms | fresh-connection pings | p50 / p99 / max ms | failed | server's longest stall ms | server CPU ms | RSS before / peak / after | attacker answers served |",
  );
  console.log("| --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |");
  for (const row of rows) console.log(row);
}

const attackOrder = process.env.ABUSE_ATTACK;
if (attackOrder) {
  const { url, connections } = JSON.parse(attackOrder) as { url: string; connections: number };
  await attack(url, connections);
} else {
  await main();
}
