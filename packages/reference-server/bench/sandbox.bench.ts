// The sandbox's figures, in-process on a paused sandbox clock that the bench advances:
//
// 1. The price path over a simulated day (the default market, seed 1): per symbol the first and
//    last trade price, the day's low and high, the realised daily volatility (the standard
//    deviation of one-minute log returns of the last trade price, times √1440) against the model's
//    2 %, the trades, and the spread at each minute's end (median, in basis points).
// 2. Fills per minute for a resting order at the touch: a bot keeps one BUY and one SELL of 0.001
//    BTCUSDT at the best price (joining the touch, or one tick better), placing a new one at the
//    touch whenever one is filled, for BENCH_TOUCH_MINUTES simulated minutes in one-second steps.
// 3. A simulated day at the fastest clock: one advance of 24 hours (every tick run back to back,
//    the API still served between slices), in memory and on a state database (sync normal): wall
//    and CPU time, and the state file's size after it (main file plus write-ahead log).
//
// Run: npm run bench:sandbox -w @marketapi/reference-server (BENCH_SEEDS=1,2,3 for more days).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, type StartServerOptions, startServer } from "../src/index.js";
import { fmt, median } from "./support.js";

const DAY = 86_400_000;
const MINUTE = 60_000;
const SEEDS = (process.env.BENCH_SEEDS ?? "1").split(",").map(Number);
const TOUCH_MINUTES = Number(process.env.BENCH_TOUCH_MINUTES ?? 60);
const scratch = mkdtempSync(join(tmpdir(), "sandbox-bench-"));

function market(options: StartServerOptions = {}): Promise<RunningServer> {
  return startServer({ port: 0, market: true, clock: { rate: 0 }, ...options });
}

function sandboxOf(server: RunningServer) {
  if (!server.sandbox) throw new Error("no sandbox");
  return server.sandbox;
}

interface Path {
  prices: number[];
  spreadsBp: number[];
}

async function priceDay(seed: number): Promise<string[]> {
  const server = await market({ seed });
  const ex = server.exchange;
  const paths = new Map<string, Path>(ex.symbols().map((symbol) => [symbol, { prices: [], spreadsBp: [] }]));
  const firstTrade = new Map(ex.symbols().map((symbol) => [symbol, ex.tradeVersion(symbol)]));
  for (let minute = 0; minute < 1440; minute += 1) {
    await sandboxOf(server).advance({ ms: MINUTE });
    for (const [symbol, path] of paths) {
      path.prices.push(Number(ex.tickerPrice(symbol).price));
      const { bidPrice, askPrice } = ex.bookTicker(symbol);
      const [bid, ask] = [Number(bidPrice), Number(askPrice)];
      path.spreadsBp.push(((ask - bid) / ((ask + bid) / 2)) * 10_000);
    }
  }
  const rows = [...paths].map(([symbol, { prices, spreadsBp }]) => {
    const returns = prices.slice(1).map((price, i) => Math.log(price / (prices[i] as number)));
    const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
    const variance = returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (returns.length - 1);
    const trades = ex.tradeVersion(symbol) - (firstTrade.get(symbol) as number);
    const first = prices[0] as number;
    const last = prices.at(-1) as number;
    return (
      `| ${seed} | ${symbol} | ${first} | ${last} | ${(((last - first) / first) * 100).toFixed(2)} % | ` +
      `${Math.min(...prices)} | ${Math.max(...prices)} | ${(Math.sqrt(variance * 1440) * 100).toFixed(2)} % | ` +
      `${fmt(trades)} | ${median(spreadsBp).toFixed(2)} |`
    );
  });
  await server.close();
  return rows;
}

async function touchFills(improveTicks: number): Promise<string> {
  const server = await market({ seed: 1 });
  const ex = server.exchange;
  await sandboxOf(server).advance({ ms: MINUTE });
  const resting = new Map<"BUY" | "SELL", number>();
  let fills = 0;
  let waitMs = 0;
  const placed = new Map<number, number>();
  const place = (side: "BUY" | "SELL") => {
    const ticker = ex.bookTicker("BTCUSDT");
    const touch = Number(side === "BUY" ? ticker.bidPrice : ticker.askPrice);
    const price = (touch + (side === "BUY" ? 1 : -1) * improveTicks * 0.01).toFixed(2);
    const order = ex.newOrder("demo", {
      symbol: "BTCUSDT",
      side,
      type: "LIMIT",
      timeInForce: "GTC",
      price,
      quantity: "0.00100",
    });
    resting.set(side, order.orderId);
    placed.set(order.orderId, ex.time());
  };
  place("BUY");
  place("SELL");
  for (let second = 0; second < TOUCH_MINUTES * 60; second += 1) {
    await sandboxOf(server).advance({ ms: 1000 });
    for (const side of ["BUY", "SELL"] as const) {
      const orderId = resting.get(side) as number;
      if (ex.queryOrder("demo", { symbol: "BTCUSDT", orderId }).status !== "FILLED") continue;
      fills += 1;
      waitMs += ex.time() - (placed.get(orderId) as number);
      place(side);
    }
  }
  await server.close();
  const how = improveTicks === 0 ? "joining the touch" : `${improveTicks} tick better than the touch`;
  return `| ${how} | ${TOUCH_MINUTES} | ${fills} | ${(fills / TOUCH_MINUTES).toFixed(2)} | ${(waitMs / Math.max(1, fills) / 1000).toFixed(1)} |`;
}

async function fastestDay(durable: boolean): Promise<string> {
  const statePath = durable ? join(scratch, "day.db") : undefined;
  const server = await market({ seed: 1, ...(statePath ? { statePath } : {}) });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await sandboxOf(server).advance({ ms: DAY });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const activity = sandboxOf(server).status().market?.activity;
  const trades = server.exchange
    .symbols()
    .reduce((n, symbol) => n + server.exchange.tradeVersion(symbol) - 1, 0);
  const rss = process.memoryUsage().rss;
  await server.close();
  const size = statePath
    ? ["", "-wal"].reduce(
        (n, suffix) => n + (statSync(`${statePath}${suffix}`, { throwIfNoEntry: false })?.size ?? 0),
        0,
      )
    : undefined;
  return (
    `| ${durable ? "state database (--state, sync normal)" : "memory"} | ${(wallMs / 1000).toFixed(1)} | ` +
    `${((cpu.user + cpu.system) / 1e6).toFixed(1)} | ${fmt(activity?.orders ?? 0)} | ${fmt(trades)} | ` +
    `${size === undefined ? "–" : (size / 2 ** 20).toFixed(1)} | ${(rss / 2 ** 20).toFixed(0)} |`
  );
}

function host(): string {
  const [one, five] = loadavg();
  return `host: ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), Node ${process.version}, load average ${one?.toFixed(2)} (1 min) ${five?.toFixed(2)} (5 min)`;
}

try {
  const pathRows: string[] = [];
  for (const seed of SEEDS) pathRows.push(...(await priceDay(seed)));
  const touchRows = [await touchFills(0), await touchFills(1)];
  const dayRows = [await fastestDay(false), await fastestDay(true)];
  console.log(`${host()}\n`);
  console.log(
    "| seed | symbol | first | last | change | low | high | realised volatility / day | trades | median spread bp |",
  );
  console.log("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const row of pathRows) console.log(row);
  console.log("\n| resting order (0.001 BTCUSDT) | minutes | fills | fills / minute | mean wait s |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const row of touchRows) console.log(row);
  console.log(
    "\n| a day at the fastest clock | wall s | CPU s | participants' orders | trades | state file MiB | RSS MiB |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const row of dayRows) console.log(row);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
