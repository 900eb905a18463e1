// Bytes the server writes to its state database per order, counted, not timed: each build in a
// process of its own serves crossing pairs of LIMIT orders (every pair trades), one request and so
// one commit at a time, and the bytes its process wrote to files meanwhile (`wchar` of
// /proc/PID/io: the write-ahead log's frames and the checkpoints) are divided by the orders. Each
// commit writes every page it changed, so the figure moves with the pages an order dirties (a new
// index, a table written per commit), whatever the load of the host: the counter that matters for
// the durable order rate when the disk or the CPU is busy.
//
// BENCH_BUILDS: `name=path` pairs, comma-separated, each path a build's dist/ folder or its src/
// folder inside the repository (so its imports resolve); default `this=dist`. BENCH_PAIRS (1500)
// pairs after 50 to warm up; BENCH_ROUNDS (2) rounds, the builds alternating.
//   BENCH_BUILDS=before=.bench-builds-before/packages/reference-server/dist,after=dist npx tsx bench/write-bytes.bench.ts
import { fork } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fmt, median } from "./support.js";

const PAIRS = Number(process.env.BENCH_PAIRS ?? 1500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const UNLIMITED = { requestWeightPerMinute: 1e12, ordersPer10s: 1e12, ordersPerDay: 1e12 };

interface Figures {
  bytesPerOrder: number;
  cpuUsPerOrder: number;
}

/** In the child: serve PAIRS crossing pairs from the build at `entry`, and report what it wrote. */
async function measure(entry: string): Promise<Figures> {
  const { startServer } = await import(pathToFileURL(entry).href);
  const folder = mkdtempSync(join(tmpdir(), "marketapi-write-bytes-"));
  const server = await startServer({
    port: 0,
    statePath: join(folder, "state.db"),
    config: { rateLimits: UNLIMITED },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { apiKey, apiSecret } = server.demo;
  const { bidPrice, askPrice } = server.exchange.bookTicker("BTCUSDT");
  const price = ((Number(bidPrice) + Number(askPrice)) / 2).toFixed(2);
  const place = (side: string) =>
    new Promise<void>((done, fail) => {
      const query = `symbol=BTCUSDT&side=${side}&type=LIMIT&timeInForce=GTC&quantity=0.001&price=${price}&timestamp=${Date.now()}`;
      const signature = createHmac("sha256", apiSecret).update(query).digest("hex");
      const req = request(
        `${server.url}/api/v3/order?${query}&signature=${signature}`,
        { method: "POST", agent, headers: { "X-MBX-APIKEY": apiKey } },
        (res) => {
          res.resume();
          res.on("end", () => (res.statusCode === 200 ? done() : fail(new Error(`HTTP ${res.statusCode}`))));
        },
      );
      req.on("error", fail);
      req.end();
    });
  const pairs = async (count: number) => {
    for (let i = 0; i < count; i += 1) {
      await place("BUY");
      await place("SELL");
    }
    await server.saveState();
  };
  const written = () => Number(/wchar: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"))?.[1]);
  await pairs(50);
  const [bytes, cpu] = [written(), process.cpuUsage()];
  await pairs(PAIRS);
  const used = process.cpuUsage(cpu);
  const figures = {
    bytesPerOrder: (written() - bytes) / (2 * PAIRS),
    cpuUsPerOrder: (used.user + used.system) / (2 * PAIRS),
  };
  await server.close();
  rmSync(folder, { recursive: true, force: true });
  return figures;
}

function runBuild(path: string): Promise<Figures> {
  const entry = resolve(path, "index.js");
  const source = resolve(path, "index.ts");
  const child = fork(fileURLToPath(import.meta.url), [path.endsWith("src") ? source : entry], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, WRITE_BYTES_CHILD: "1" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((done, fail) => {
    child.once("message", (figures) => done(figures as Figures));
    child.once("exit", (code) => (code === 0 ? undefined : fail(new Error(`${path}: exit ${code}`))));
  });
}

if (process.env.WRITE_BYTES_CHILD) {
  const figures = await measure(process.argv[2] as string);
  process.send?.(figures, () => process.exit(0));
} else {
  const builds = (process.env.BENCH_BUILDS ?? "this=dist").split(",").map((pair) => {
    const [name, path] = pair.split("=") as [string, string];
    return { name, path };
  });
  const runs = new Map<string, Figures[]>(builds.map(({ name }) => [name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const { name, path } of order) runs.get(name)?.push(await runBuild(path));
  }
  const [one, five] = loadavg();
  console.log(
    `load average ${one?.toFixed(1)} (1 min) ${five?.toFixed(1)} (5 min); ${2 * PAIRS} orders, one commit each, ${ROUNDS} rounds, medians\n`,
  );
  console.log("| build | bytes written per order | CPU µs per order (server and client, one process) |");
  console.log("| --- | ---: | ---: |");
  for (const [name, figures] of runs) {
    const bytes = median(figures.map((f) => f.bytesPerOrder));
    const cpu = median(figures.map((f) => f.cpuUsPerOrder));
    console.log(`| ${name} | ${fmt(bytes)} | ${fmt(cpu)} |`);
  }
}
