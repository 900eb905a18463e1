// A reference server for the durability bench, in its own process: started with or without a
// state database, it measures its own event loop (perf_hooks.monitorEventLoopDelay) and answers
// the bench over IPC: "reset" starts a measurement, "report" returns the longest stall since,
// and { seed: N } rests N orders away from the touch (see restAwayFromTouch) before it answers.
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [port, config, statePath, stateSync] = process.argv.slice(2);
// BENCH_DIST names another build's dist/ folder (bench/builds.bench.ts runs builds side by side).
const built = process.env.BENCH_DIST
  ? pathToFileURL(join(process.env.BENCH_DIST, "index.js"))
  : new URL("../dist/index.js", import.meta.url);
const { startServer } = (await import(
  (await import("node:fs")).existsSync(built) ? built.href : new URL("../src/index.ts", import.meta.url).href
)) as typeof import("../src/index.js");
type StartOptions = NonNullable<Parameters<typeof startServer>[0]>;
// BENCH_SANDBOX: sandbox options as JSON (the ceiling bench's market figures: `{"market":true}`).
const sandbox = JSON.parse(process.env.BENCH_SANDBOX ?? "{}") as Pick<StartOptions, "market" | "clock">;
const server = await startServer({
  port: Number(port),
  host: "127.0.0.1",
  seed: 1,
  config: JSON.parse(config ?? "{}"),
  ...sandbox,
  ...(statePath ? { statePath, stateSync: stateSync === "full" ? "full" : "normal" } : {}),
});
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
/**
 * N resting BTCUSDT orders, half bids below the best bid and half asks above the best ask, each at
 * a price of its own (so each side holds N/2 levels), from 200 orders per account (the default
 * cap per account), placed through the engine directly: set-up, not what the bench measures.
 */
function restAwayFromTouch(count: number): number {
  const exchange = server.exchange;
  const { bidPrice, askPrice } = exchange.bookTicker("BTCUSDT");
  const bidCents = Math.round(Number(bidPrice) * 100) - 10_000;
  const askCents = Math.round(Number(askPrice) * 100) + 10_000;
  let accountId = "";
  for (let i = 0; i < count; i += 1) {
    if (i % 200 === 0) {
      accountId = `resting-${i / 200}`;
      exchange.addAccount(accountId, { BTC: "10", USDT: "1000000" });
    }
    const level = Math.floor(i / 2);
    const buy = i % 2 === 0;
    exchange.newOrder(accountId, {
      symbol: "BTCUSDT",
      side: buy ? "BUY" : "SELL",
      type: "LIMIT",
      timeInForce: "GTC",
      quantity: "0.001",
      price: ((buy ? bidCents - level : askCents + level) / 100).toFixed(2),
    });
  }
  return count;
}

process.on("message", (message: string | { seed: number }) => {
  if (typeof message === "object") {
    process.send?.({ seeded: restAwayFromTouch(message.seed) });
    return;
  }
  if (message === "reset") loop.reset();
  if (message === "report") {
    process.send?.({ maxStallMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6 });
  }
});
process.on("SIGTERM", () => {
  server.close().then(() => process.exit(0));
});
process.send?.("ready");
