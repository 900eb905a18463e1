// Fair service under a pipelining attack, at three sizes in one run: for each size a new server
// process, then that many connections from 127.0.0.1 and 127.0.0.2, each sending PIPELINED
// exchangeInfo requests in one write and never reading an answer, while bystanders on 127.0.0.3
// ping on a schedule, whatever the answers do (open loop, so a stall delays every ping due in it):
//
// - keep-alive: a ping every 10 ms on keep-alive connections (a new one only while all are busy);
// - fresh: a ping every 50 ms on a new connection of its own (accepted during the storm).
//
// A ping's latency runs from when it was due until its answer is read. Reports per size the
// bystanders' p50 / p99 / max, failed pings (an error, a status other than 200, or no answer in
// 5 s), the server's RSS before, at its peak (VmHWM) and 2 s after the attackers close, and how
// many answers the attackers were served (from their used-weight header).
//
// Run: npm run bench:abuse (in packages/reference-server). ABUSE_SIZES (default 100,300,500),
// ABUSE_PIPELINED (2000), ABUSE_SECONDS (10) change the sizes. The server runs from source (tsx);
// ABUSE_DIST=path/to/dist runs another build's dist/cli.js instead (a build before a change).
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { baseUrlOf, type CliRun, runCli } from "../test/support/cli.js";
import { send } from "../test/support/http.js";
import { memoryOf, pipeliningAttack } from "../test/support/pipelining-attack.js";

const SIZES = (process.env.ABUSE_SIZES ?? "100,300,500").split(",").map(Number);
const PIPELINED = Number(process.env.ABUSE_PIPELINED ?? 2000);
const SECONDS = Number(process.env.ABUSE_SECONDS ?? 10);
const ATTACKERS = ["127.0.0.1", "127.0.0.2"];
const BYSTANDER = "127.0.0.3";
const PING_TIMEOUT_MS = 5000;
const MB = 1024 * 1024;

/** The server under test: this source through tsx, or the build named by ABUSE_DIST. */
function startServer(): CliRun {
  const dist = process.env.ABUSE_DIST;
  if (!dist) return runCli(["--port", "0"]);
  const child = spawn(process.execPath, [join(resolve(dist), "cli.js"), "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | string>((done) => {
    child.on("exit", (code, signal) => done(code ?? signal ?? "unknown"));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** One ping: its latency in ms from `dueAt` (performance.now()), or undefined when it failed. */
function ping(url: URL, agent: Agent | false, dueAt: number): Promise<number | undefined> {
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
        res.on("end", () => done(res.statusCode === 200 ? performance.now() - dueAt : undefined));
        res.on("error", () => done(undefined));
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => done(undefined));
    req.end();
  });
}

interface Pings {
  latencies: number[];
  failed: number;
}

/** Pings every `everyMs` until `running()` turns false; resolves once every ping has ended. */
async function pingOnSchedule(url: URL, agent: Agent | false, everyMs: number, running: () => boolean) {
  const pings: Pings = { latencies: [], failed: 0 };
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; running(); i += 1) {
    const dueAt = start + i * everyMs;
    const wait = dueAt - performance.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    pending.push(
      ping(url, agent, dueAt).then((ms) => {
        if (ms === undefined) pings.failed += 1;
        else pings.latencies.push(ms);
      }),
    );
  }
  await Promise.all(pending);
  return pings;
}

function quantiles(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
  return `${at(0.5).toFixed(1)} / ${at(0.99).toFixed(1)} / ${(sorted.at(-1) ?? NaN).toFixed(0)}`;
}

async function measure(connections: number): Promise<string> {
  const run = startServer();
  try {
    const base = await baseUrlOf(run);
    const url = new URL(base);
    const pid = run.child.pid as number;
    const warm = new Agent({ keepAlive: true, localAddress: BYSTANDER } as never);
    for (let i = 0; i < 50; i += 1) await send(base, { path: "/api/v3/exchangeInfo" }, warm);
    warm.destroy();
    const before = await memoryOf(pid);
    let running = true;
    const keepAlive = new Agent({ keepAlive: true });
    const pinging = Promise.all([
      pingOnSchedule(url, keepAlive, 10, () => running),
      pingOnSchedule(url, false, 50, () => running),
    ]);
    await new Promise((done) => setTimeout(done, 500));
    const attack = await pipeliningAttack(base, {
      connections,
      requestsPerConnection: PIPELINED,
      addresses: ATTACKERS,
    });
    await new Promise((done) => setTimeout(done, SECONDS * 1000));
    running = false;
    const [kept, fresh] = await pinging;
    keepAlive.destroy();
    const during = await memoryOf(pid);
    await attack.stop();
    await new Promise((done) => setTimeout(done, 2000));
    const after = await memoryOf(pid);
    let served = 0;
    for (const address of ATTACKERS) {
      const agent = new Agent({ localAddress: address } as never);
      const r = await send(base, { path: "/api/v3/time" }, agent);
      served += Math.max(0, Number(r.headers["x-mbx-used-weight-1m"]) - 1) / 20;
    }
    const peak = Math.max(during.peak, after.peak);
    return (
      `| ${connections} | ${kept.latencies.length} | ${quantiles(kept.latencies)} | ` +
      `${fresh.latencies.length} | ${quantiles(fresh.latencies)} | ${kept.failed + fresh.failed} | ` +
      `${Math.round(before.rss / MB)} / ${Math.round(peak / MB)} / ${Math.round(after.rss / MB)} MB | ` +
      `${served.toLocaleString("en-US")} of ${(connections * PIPELINED).toLocaleString("en-US")} |`
    );
  } finally {
    run.child.kill("SIGKILL");
    await run.exited;
  }
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
      `${SECONDS} s per size; ${process.env.ABUSE_DIST ? `build ${process.env.ABUSE_DIST}` : "source"}; ` +
      `load average after each size ${loads.join(", ")}`,
  );
  console.log(
    "| connections | keep-alive pings | p50 / p99 / max ms | fresh-connection pings | p50 / p99 / max ms | failed | RSS before / peak / after | attacker answers served |",
  );
  console.log("| --: | --: | --: | --: | --: | --: | --: | --: |");
  for (const row of rows) console.log(row);
}

await main();
