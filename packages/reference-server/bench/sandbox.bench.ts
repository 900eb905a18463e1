// The sandbox's figures, in-process on a paused sandbox clock that the bench advances:
//
// 1. The price path over a simulated day (the default market, seed 1): per symbol the first and
//    last trade price, the day's low and high, the realised daily volatility (the standard
//    deviation of one-minute log returns of the last trade price, times √1440) against the model's
//    2 %, the same of the fair price itself, the trades, and the spread at each minute's end
//    (median, in basis points).
// 2. Fills per minute for a resting order at the touch: a bot keeps one BUY and one SELL of 0.001
//    BTCUSDT at the best price (joining the touch, or one tick better): each second it moves an
//    order the touch has left back to it (cancel and place), and places a new one when one is
//    filled, for BENCH_TOUCH_MINUTES simulated minutes; the wait runs from when the bot first wanted
//    that side filled to the fill, across its moves.
// 3. A simulated day at the fastest clock: one advance of 24 hours (every tick run back to back,
//    the API still served between slices), in memory and on a state database (sync normal): wall
//    and CPU time, and the state file's size after it (main file plus write-ahead log).
//
// Run: npm run bench:sandbox -w @marketapi/reference-server (BENCH_SEEDS=1,2,3 for more days;
// BENCH_PARTS=path,touch,day picks figures).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, type StartServerOptions, startServer } from "../src/index.js";
import { fmt, median } from "./support.js";

const DAY = 86_400_000;
const MINUTE = 60_000;
const SEEDS = (process.env.BENCH_SEEDS ?? "1").split(",").map(Number);
const TOUCH_MINUTES = Number(process.env.BENCH_TOUCH_MINUTES ?? 60);
/** Which figures to measure (default all): path, touch, day. */
const PARTS = (process.env.BENCH_PARTS ?? "path,touch,day").split(",");
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
  fair: number[];
  spreadsBp: number[];
}

/** The standard deviation of one-minute log returns, scaled to a day (√1440), in %. */
function dailyVolatility(prices: readonly number[]): number {
  const returns = prices.slice(1).map((price, i) => Math.log(price / (prices[i] as number)));
  const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
  const variance = returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (returns.length - 1);
  return Math.sqrt(variance * 1440) * 100;
}

async function priceDay(seed: number): Promise<string[]> {
  const server = await market({ seed });
  const ex = server.exchange;
  const paths = new Map<string, Path>(
    ex.symbols().map((symbol) => [symbol, { prices: [], fair: [], spreadsBp: [] }]),
  );
  const firstTrade = new Map(ex.symbols().map((symbol) => [symbol, ex.tradeVersion(symbol)]));
  for (let minute = 0; minute < 1440; minute += 1) {
    await sandboxOf(server).advance({ ms: MINUTE });
    const fair = sandboxOf(server).status().market?.fairPrices ?? {};
    for (const [symbol, path] of paths) {
      path.prices.push(Number(ex.tickerPrice(symbol).price));
      path.fair.push(fair[symbol] as number);
      const { bidPrice, askPrice } = ex.bookTicker(symbol);
      const [bid, ask] = [Number(bidPrice), Number(askPrice)];
      path.spreadsBp.push(((ask - bid) / ((ask + bid) / 2)) * 10_000);
    }
  }
  const rows = [...paths].map(([symbol, { prices, fair, spreadsBp }]) => {
    const trades = ex.tradeVersion(symbol) - (firstTrade.get(symbol) as number);
    const first = prices[0] as number;
    const last = prices.at(-1) as number;
    return (
      `| ${seed} | ${symbol} | ${first} | ${last} | ${(((last - first) / first) * 100).toFixed(2)} % | ` +
      `${Math.min(...prices)} | ${Math.max(...prices)} | ${dailyVolatility(prices).toFixed(2)} % | ` +
      `${dailyVolatility(fair).toFixed(2)} % | ` +
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
  const resting = new Map<"BUY" | "SELL", { orderId: number; price: string }>();
  const wanted = new Map<"BUY" | "SELL", number>();
  let fills = 0;
  let moves = 0;
  const waits: number[] = [];
  const target = (side: "BUY" | "SELL") => {
    const ticker = ex.bookTicker("BTCUSDT");
    const touch = Number(side === "BUY" ? ticker.bidPrice : ticker.askPrice);
    return (touch + (side === "BUY" ? 1 : -1) * improveTicks * 0.01).toFixed(2);
  };
  const place = (side: "BUY" | "SELL", price: string) => {
    const order = ex.newOrder("demo", {
      symbol: "BTCUSDT",
      side,
      type: "LIMIT",
      timeInForce: "GTC",
      price,
      quantity: "0.00100",
    });
    resting.set(side, { orderId: order.orderId, price });
    if (!wanted.has(side)) wanted.set(side, ex.time());
  };
  place("BUY", target("BUY"));
  place("SELL", target("SELL"));
  for (let second = 0; second < TOUCH_MINUTES * 60; second += 1) {
    await sandboxOf(server).advance({ ms: 1000 });
    for (const side of ["BUY", "SELL"] as const) {
      const { orderId, price } = resting.get(side) as { orderId: number; price: string };
      if (ex.queryOrder("demo", { symbol: "BTCUSDT", orderId }).status === "FILLED") {
        fills += 1;
        waits.push(ex.time() - (wanted.get(side) as number));
        wanted.delete(side);
        place(side, target(side));
        continue;
      }
      // The touch moved past the order (while the order is the touch, or at it, it stays).
      const ticker = ex.bookTicker("BTCUSDT");
      const touch = Number(side === "BUY" ? ticker.bidPrice : ticker.askPrice);
      if (side === "BUY" ? touch <= Number(price) : touch >= Number(price)) continue;
      const now = target(side);
      ex.cancelOrder("demo", { symbol: "BTCUSDT", orderId });
      moves += 1;
      place(side, now);
    }
  }
  await server.close();
  const how = improveTicks === 0 ? "joining the touch" : `${improveTicks} tick better than the touch`;
  return (
    `| ${how} | ${TOUCH_MINUTES} | ${fills} | ${(fills / TOUCH_MINUTES).toFixed(2)} | ` +
    `${(median(waits) / 1000).toFixed(0)} | ${fmt(moves)} |`
  );
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
  if (PARTS.includes("path")) for (const seed of SEEDS) pathRows.push(...(await priceDay(seed)));
  const touchRows = PARTS.includes("touch") ? [await touchFills(0), await touchFills(1)] : [];
  const dayRows = PARTS.includes("day") ? [await fastestDay(false), await fastestDay(true)] : [];
  console.log(`${host()}\n`);
  if (pathRows.length > 0) {
    console.log(
      "| seed | symbol | first | last | change | low | high | realised volatility / day: trades | fair price | trades | median spread bp |",
    );
    console.log("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const row of pathRows) console.log(row);
  }
  if (touchRows.length > 0) {
    console.log(
      "\n| resting order (0.001 BTCUSDT), kept at the touch | minutes | fills | fills / minute | median wait s | moves back to the touch |",
    );
    console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (const row of touchRows) console.log(row);
  }
  if (dayRows.length > 0) {
    console.log(
      "\n| a day at the fastest clock | wall s | CPU s | participants' orders | trades | state file MiB | RSS MiB |",
    );
    console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const row of dayRows) console.log(row);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
