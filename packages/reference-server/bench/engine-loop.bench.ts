// The engine alone, no HTTP: `newOrder` called in a loop with the ceiling bench's order load
// (crossing pairs at one price inside the spread, two accounts, every pair trades), each FULL answer
// turned to JSON as the server would send it. CPU µs per order includes garbage collection, so it
// shows what the history's kept orders and trades cost: BENCH_HISTORY=none runs the same loop with
// a history that keeps nothing. Loads dist/ when built (run `npm run build` first), else src/.
// Run: npm run bench:engine (in packages/reference-server); BENCH_ORDERS (default 300,000),
// BENCH_RUNS (default 3, each in a fresh process). "kept per order" is the memory (heap and array
// buffers) a full collection leaves after the loop, less what it left before, per order: what the
// history holds of each.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { CROSSING_PAIRS } from "./order-load.js";
import { median } from "./support.js";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 300_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WARM_UP = 20_000;
const built = new URL("../dist/engine/index.js", import.meta.url);
const entry = existsSync(built) ? built.href : new URL("../src/engine/index.ts", import.meta.url).href;

type Engine = typeof import("../src/engine/index.js");

/** A history that keeps nothing (what the engine costs without the past it hands over). */
const forgetful = {
  record() {},
  order: () => undefined,
  latestByClientOrderId: () => undefined,
  orders: () => [],
  trades: () => [],
  tradesBetween: () => [],
  lastTradeBefore: () => undefined,
  aggTrades: () => [],
  accountTrades: () => [],
  candles: () => [],
  candleBefore: () => undefined,
  firstCandle: () => undefined,
};

interface RunFigures {
  cpuUs: number;
  heapMb: number;
  /** Heap bytes still held per order once the loop is over and the heap collected. */
  keptBytes: number;
}

/**
 * The memory in use after a full collection (the child runs with --expose-gc): the heap and the
 * array buffers outside it (where typed arrays keep their numbers).
 */
function collectedHeap(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

async function oneRun(): Promise<RunFigures> {
  const { createExchange, shapeNewOrderResponse } = (await import(entry)) as Engine;
  const history = process.env.BENCH_HISTORY === "none" ? forgetful : undefined;
  const ex = createExchange({ seed: 1, maxOpenOrdersPerAccount: 1e9, history });
  for (const id of ["a", "b"]) ex.addAccount(id, { USDT: "1000000000", BTC: "1000000" });
  const { bidPrice, askPrice } = ex.bookTicker("BTCUSDT");
  const price = ((Number(bidPrice) + Number(askPrice)) / 2).toFixed(2);
  let bytes = 0;
  const run = (count: number) => {
    for (let i = 0; i < count; i += 1) {
      const [account, side] = CROSSING_PAIRS[i % CROSSING_PAIRS.length] as (typeof CROSSING_PAIRS)[number];
      const full = ex.newOrder(account, {
        symbol: "BTCUSDT",
        side,
        type: "LIMIT",
        timeInForce: "GTC",
        quantity: "0.001",
        price,
      });
      bytes += JSON.stringify(shapeNewOrderResponse(full, "FULL")).length;
    }
  };
  // Collected before the warm-up, not after: a collection just before the timed loop would change its garbage collection.
  const heapBefore = collectedHeap();
  run(WARM_UP);
  const before = process.cpuUsage();
  run(ORDERS);
  const cpu = process.cpuUsage(before);
  if (bytes === 0) throw new Error("no answers");
  const heapMb = process.memoryUsage().heapUsed / 1e6;
  return {
    cpuUs: (cpu.user + cpu.system) / ORDERS,
    heapMb,
    keptBytes: (collectedHeap() - heapBefore) / ORDERS,
  };
}

if (process.argv[2] === "--run") {
  process.stdout.write(JSON.stringify(await oneRun()));
} else {
  const runs = Array.from({ length: RUNS }, () => {
    const script = fileURLToPath(import.meta.url);
    const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", script, "--run"], {
      encoding: "utf8",
    });
    return JSON.parse(out) as RunFigures;
  });
  const cpu = runs.map((r) => r.cpuUs).sort((x, y) => x - y);
  const [load1] = loadavg();
  console.log(
    `${cpus().length} CPUs, Node ${process.version}, load average ${load1?.toFixed(2)}; ${ORDERS} orders per run, ` +
      `history: ${process.env.BENCH_HISTORY === "none" ? "keeps nothing" : "MemoryHistory"}, ${entry.includes("/dist/") ? "dist" : "src"}`,
  );
  console.log(
    `engine newOrder: CPU µs/order median ${median(cpu).toFixed(2)} (runs ${cpu.map((c) => c.toFixed(2)).join(", ")}), ` +
      `heap at the end ${Math.round(runs[0]?.heapMb ?? 0)} MB, ` +
      `kept per order after a full collection ${median(runs.map((r) => r.keptBytes)).toFixed(0)} bytes`,
  );
}
