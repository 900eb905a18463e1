// Builds of the reference server side by side, in one run: each build in its own server process
// (in memory), the ceiling bench's signed order load (crossing pairs of two accounts at one price,
// every pair trades) sent to each in turn, round after round, the order of the builds reversed
// every other round. Server CPU µs per request (from /proc/PID/stat) and requests per second,
// medians over the rounds. The host's load moves single runs by more than a small change; builds
// measured in the same rounds see the same load.
//
// BENCH_BUILDS names the builds: `name=path` pairs, comma-separated, each path a build's dist/
// folder inside the repository (so its imports resolve), e.g. a copy of another branch's build:
//   cp -r dist .builds/before/dist   (dist/ folders are not committed)
//   BENCH_BUILDS=before=.builds/before/dist,after=dist npm run bench:builds -w @marketapi/reference-server
// BENCH_ROUNDS (default 8) rounds of BENCH_DURATION (default 3) seconds, BENCH_CONNECTIONS (10).
// BENCH_STATE=normal (or full) gives each build a state database of its own, new, on the disk, with
// that sync: durable orders side by side. BENCH_LOAD=depth (or ticker) sends the ceiling bench's
// read instead of orders: GET depth?symbol=BTCUSDT&limit=100 (or ticker/price?symbol=BTCUSDT).
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ACCOUNTS, cpuMs, insideSpread, orderCycle, UNLIMITED } from "./order-load.js";
import { autocannon, fmt, freePort, median } from "./support.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const DURATION = Number(process.env.BENCH_DURATION ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const STATE = process.env.BENCH_STATE;
if (STATE !== undefined && STATE !== "normal" && STATE !== "full") {
  throw new Error(`BENCH_STATE: expected normal or full, got "${STATE}"`);
}
/** The ceiling bench's reads, by BENCH_LOAD name. */
const READS: Record<string, string> = {
  depth: "/api/v3/depth?symbol=BTCUSDT&limit=100",
  ticker: "/api/v3/ticker/price?symbol=BTCUSDT",
};
const LOAD = process.env.BENCH_LOAD ?? "orders";
if (LOAD !== "orders" && READS[LOAD] === undefined) {
  throw new Error(`BENCH_LOAD: expected orders, depth or ticker, got "${LOAD}"`);
}
// Next to the package, not in a tmpfs, so that commits reach a file system on a disk.
const scratch = mkdtempSync(join(fileURLToPath(new URL("..", import.meta.url)), ".bench-builds-"));

interface Build {
  name: string;
  url: string;
  child: ChildProcess;
  cpuUs: number[];
  perSec: number[];
}

function builds(): { name: string; dist: string }[] {
  const spec = process.env.BENCH_BUILDS;
  if (!spec) throw new Error("BENCH_BUILDS is required: name=path-to-dist pairs, comma-separated");
  return spec.split(",").map((pair) => {
    const [name, dist] = pair.split("=");
    if (!name || !dist) throw new Error(`BENCH_BUILDS: expected name=path, got "${pair}"`);
    return { name, dist: resolve(dist) };
  });
}

async function start(name: string, dist: string): Promise<Build> {
  const port = await freePort("127.0.0.1");
  const script = fileURLToPath(new URL("./serve-monitored.ts", import.meta.url));
  const config = JSON.stringify({ accounts: ACCOUNTS, rateLimits: UNLIMITED });
  const state = STATE ? [join(scratch, `${name}.db`), STATE] : [];
  const child = fork(script, [String(port), config, ...state], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, BENCH_DIST: dist },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  await new Promise<void>((ready, failed) => {
    child.once("message", () => ready());
    child.once("exit", (code) => failed(new Error(`build ${name} (${dist}) exited with ${code}`)));
  });
  return { name, url: `http://127.0.0.1:${port}`, child, cpuUs: [], perSec: [] };
}

async function burst(build: Build, price: string, keep: boolean): Promise<void> {
  const before = cpuMs(build.child.pid);
  const result = await autocannon({
    url: build.url,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: LOAD === "orders" ? orderCycle(price) : [{ method: "GET", path: READS[LOAD] }],
  });
  if (!keep) return;
  build.cpuUs.push(((cpuMs(build.child.pid) - before) * 1000) / Math.max(1, result["2xx"]));
  build.perSec.push(result["2xx"] / result.duration);
}

const started: Build[] = [];
for (const { name, dist } of builds()) started.push(await start(name, dist));
try {
  const price = await insideSpread((started[0] as Build).url);
  for (const build of started) await burst(build, price, false); // warm-up
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const build of round % 2 ? [...started].reverse() : started) await burst(build, price, true);
  }
  const [load1, load5] = loadavg();
  console.log(
    `host: ${cpus().length} CPUs, Node ${process.version}, load average ${load1?.toFixed(2)} (1 min) ` +
      `${load5?.toFixed(2)} (5 min); ` +
      `${LOAD === "orders" ? `signed new_order ${STATE ? `--state (sync ${STATE})` : "in memory"}` : `GET ${READS[LOAD]}`}, ` +
      `${CONNECTIONS} connections, ` +
      `${ROUNDS} rounds × ${DURATION} s, medians\n`,
  );
  console.log("| build | server req/s | CPU µs/req | CPU µs/req by round |");
  console.log("| --- | ---: | ---: | --- |");
  for (const b of started) {
    const rounds = b.cpuUs.map((us) => us.toFixed(1)).join(", ");
    console.log(`| ${b.name} | ${fmt(median(b.perSec))} | ${median(b.cpuUs).toFixed(1)} | ${rounds} |`);
  }
} finally {
  await Promise.all(
    started.map(
      (build) =>
        new Promise((exited) => {
          build.child.once("exit", exited);
          build.child.kill("SIGTERM");
        }),
    ),
  );
  rmSync(scratch, { recursive: true, force: true });
}
