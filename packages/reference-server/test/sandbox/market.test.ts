// The simulated market, in-process on a paused sandbox clock that the tests advance: same seed,
// same market; the price moves and the books refresh; a resting order at the touch is filled by
// someone else within seconds; the participants go through the engine and its limits; a replayed
// series drives the price; a stopped market stands still.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stateFaults } from "../../src/engine/invariants.js";
import { type RunningServer, type StartServerOptions, startServer } from "../../src/index.js";
import { PARTICIPANT_IDS } from "../../src/sandbox/participants.js";

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
/** Ten-minute advances a test of answers mid-advance tries before it gives up. */
const MAX_ADVANCE_ROUNDS = 40;
const scratch = mkdtempSync(join(tmpdir(), "sandbox-market-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A server with the market on and the clock paused at T0 (the tests move it). */
function marketServer(options: StartServerOptions = {}): Promise<RunningServer> {
  return startServer({ port: 0, seed: 7, now: () => T0, clock: { rate: 0 }, market: true, ...options });
}

function sandboxOf(server: RunningServer) {
  const sandbox = server.sandbox;
  if (!sandbox) throw new Error("no sandbox");
  return sandbox;
}

/** What a market did: every trade of every symbol, the books, the fair prices. */
function marketRecord(server: RunningServer) {
  const ex = server.exchange;
  return {
    trades: ex.symbols().map((symbol) => ex.historicalTrades(symbol, { fromId: 1, limit: 1000 })),
    books: ex.symbols().map((symbol) => ex.depth(symbol, 50)),
    fair: sandboxOf(server).status().market?.fairPrices,
    time: ex.time(),
  };
}

describe("same seed, same market", () => {
  it("two servers of one seed make the same trades, books and prices over 15 minutes; another seed does not", async () => {
    const runs = [];
    for (const seed of [7, 7, 8]) {
      const server = await marketServer({ seed });
      try {
        await sandboxOf(server).advance({ ms: 15 * MINUTE });
        runs.push(marketRecord(server));
      } finally {
        await server.close();
      }
    }
    const [first, second, other] = runs;
    expect(first?.trades.flat().length).toBeGreaterThan(300);
    expect(second).toEqual(first);
    expect(other?.trades).not.toEqual(first?.trades);
  });

  it("the price path depends on the seed alone, not on what clients do", async () => {
    const quiet = await marketServer();
    const busy = await marketServer();
    try {
      for (let i = 0; i < 10; i += 1) {
        busy.exchange.newOrder("demo", {
          symbol: "BTCUSDT",
          side: i % 2 ? "SELL" : "BUY",
          type: "MARKET",
          quantity: "0.05",
        });
        await sandboxOf(busy).advance({ ms: 30_000 });
      }
      await sandboxOf(quiet).advance({ ms: 5 * MINUTE });
      expect(sandboxOf(busy).status().market?.fairPrices).toEqual(
        sandboxOf(quiet).status().market?.fairPrices,
      );
      expect(marketRecord(busy).trades).not.toEqual(marketRecord(quiet).trades);
    } finally {
      await Promise.all([quiet.close(), busy.close()]);
    }
  });
});

describe("a moving market", () => {
  it("moves the price, refreshes the books and keeps every participant within the engine's rules", async () => {
    const server = await marketServer();
    const ex = server.exchange;
    try {
      const touches = new Set<string>();
      const lastPrices = new Set<string>();
      for (let minute = 0; minute < 30; minute += 1) {
        await sandboxOf(server).advance({ ms: MINUTE });
        const ticker = ex.bookTicker("BTCUSDT");
        touches.add(`${ticker.bidPrice}/${ticker.askPrice}`);
        lastPrices.add(ex.tickerPrice("BTCUSDT").price);
        expect(Number(ticker.bidPrice)).toBeLessThan(Number(ticker.askPrice));
      }
      expect(touches.size).toBeGreaterThan(25);
      expect(lastPrices.size).toBeGreaterThan(25);
      const state = ex.internalState();
      expect(stateFaults(state)).toEqual([]);
      for (const id of PARTICIPANT_IDS) {
        const account = state.accounts.get(id);
        expect(account?.exemptFromOrderLimits, id).toBe(false);
        expect(account?.openOrders.size ?? 0, id).toBeLessThanOrEqual(200);
      }
      // The seeded ladder made way for the participants' quotes.
      expect(ex.openOrders("market-maker")).toEqual([]);
      const activity = sandboxOf(server).status().market?.activity;
      expect(activity?.refused, JSON.stringify(activity)).toBe(0);
      // Every participant's order is an order of the exchange, with its own id and history.
      const takerOrders = ex.allOrders("sim-taker-1", { symbol: "BTCUSDT", limit: 1000 });
      expect(takerOrders.length).toBeGreaterThan(10);
      expect(takerOrders.every((order) => order.timeInForce === "IOC")).toBe(true);
    } finally {
      await server.close();
    }
  });

  it.each([
    { how: "improving the touch by a tick", improve: 1 },
    { how: "joining the touch", improve: 0 },
  ])(
    "a bot's resting order at the touch ($how) is filled by someone else within seconds",
    async ({ improve }) => {
      const server = await marketServer();
      const ex = server.exchange;
      try {
        await sandboxOf(server).advance({ ms: MINUTE });
        const waits: number[] = [];
        for (let order = 0; order < 6; order += 1) {
          const side = order % 2 === 0 ? "BUY" : "SELL";
          const ticker = ex.bookTicker("BTCUSDT");
          const touch = Number(side === "BUY" ? ticker.bidPrice : ticker.askPrice);
          const price = (touch + (side === "BUY" ? improve : -improve) * 0.01).toFixed(2);
          const placed = ex.newOrder("demo", {
            symbol: "BTCUSDT",
            side,
            type: "LIMIT",
            timeInForce: "GTC",
            price,
            quantity: "0.00100",
          });
          let waited = 0;
          while (
            ex.queryOrder("demo", { symbol: "BTCUSDT", orderId: placed.orderId }).status !== "FILLED" &&
            waited < 10 * MINUTE
          ) {
            await sandboxOf(server).advance({ ms: 1000 });
            waited += 1000;
          }
          waits.push(waited);
          if (ex.openOrders("demo", "BTCUSDT").length > 0) ex.cancelAllOrders("demo", "BTCUSDT");
        }
        waits.sort((a, b) => a - b);
        // The median order: filled within seconds (a tick is one second of sandbox time).
        expect(waits[3], JSON.stringify(waits)).toBeLessThanOrEqual(improve ? 20_000 : 90_000);
        expect(waits.at(-1), JSON.stringify(waits)).toBeLessThan(10 * MINUTE);
      } finally {
        await server.close();
      }
    },
  );

  it("a stopped market stands still; started again, it moves on", async () => {
    const server = await marketServer();
    const ex = server.exchange;
    try {
      await sandboxOf(server).advance({ ms: MINUTE });
      await sandboxOf(server).stopMarket();
      const stopped = marketRecord(server);
      await sandboxOf(server).advance({ ms: 10 * MINUTE });
      expect({ ...marketRecord(server), time: stopped.time }).toEqual(stopped);
      expect(ex.time()).toBe(stopped.time + 10 * MINUTE);
      await sandboxOf(server).startMarket();
      await sandboxOf(server).advance({ ms: MINUTE });
      expect(marketRecord(server).trades).not.toEqual(stopped.trades);
    } finally {
      await server.close();
    }
  });

  it("participants are held to the order-rate limits like any client", async () => {
    const server = await marketServer({ config: { rateLimits: { ordersPer10s: 5 } } });
    const ex = server.exchange;
    try {
      await sandboxOf(server).advance({ ms: 5 * MINUTE });
      expect(sandboxOf(server).status().market?.activity.refused).toBeGreaterThan(0);
      for (const id of PARTICIPANT_IDS) {
        const perWindow = new Map<number, number>();
        for (const symbol of ex.symbols()) {
          for (const order of ex.allOrders(id, { symbol, limit: 1000 })) {
            const window = Math.floor(order.time / 10_000);
            perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
          }
        }
        expect(Math.max(0, ...perWindow.values()), id).toBeLessThanOrEqual(5);
      }
    } finally {
      await server.close();
    }
  });
});

describe("serving while the clock is advanced", () => {
  it("the API keeps answering during a long advance, and its time moves along with the ticks", async () => {
    const server = await marketServer();
    try {
      // Answers that arrive while an advance is still running. How many fit into one advance
      // depends on the machine's load, so advances follow one another until three distinct times
      // were seen mid-advance; an advance answered only at its end never adds one.
      const times: number[] = [];
      let rounds = 0;
      while (new Set(times).size < 3 && rounds < MAX_ADVANCE_ROUNDS) {
        rounds += 1;
        let advancing = true;
        const advanced = sandboxOf(server)
          .advance({ ms: 10 * MINUTE })
          .finally(() => {
            advancing = false;
          });
        const target = T0 + rounds * 10 * MINUTE;
        while (advancing) {
          const answer = await fetch(`${server.url}/api/v3/time`);
          const { serverTime } = (await answer.json()) as { serverTime: number };
          if (advancing && serverTime < target) times.push(serverTime);
        }
        await advanced;
      }
      expect(
        new Set(times).size,
        `${rounds} advances: ${JSON.stringify(times.slice(0, 20))}`,
      ).toBeGreaterThanOrEqual(3);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      expect(times.every((time) => time >= T0 && time < T0 + rounds * 10 * MINUTE)).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe("a replayed price series", () => {
  it("drives the fair price: the trades follow the series, and the symbols it leaves out walk", async () => {
    const csv = join(scratch, "btc.csv");
    const rows = Array.from({ length: 11 }, (_, i) => `${T0 + i * MINUTE},BTCUSDT,${60000 + i * 600}`);
    writeFileSync(csv, `time,symbol,price\n${rows.join("\n")}\n`);
    const server = await marketServer({ market: { replay: csv } });
    const ex = server.exchange;
    try {
      await sandboxOf(server).advance({ ms: 10 * MINUTE });
      const fair = sandboxOf(server).status().market?.fairPrices ?? {};
      expect(fair.BTCUSDT).toBeCloseTo(66000, 6);
      expect(Number(ex.tickerPrice("BTCUSDT").price)).toBeGreaterThan(65000);
      expect(fair.ETHUSDT).not.toBe(3000);
      await sandboxOf(server).advance({ ms: 5 * MINUTE });
      // After its last row the series holds its last price.
      expect(sandboxOf(server).status().market?.fairPrices.BTCUSDT).toBeCloseTo(66000, 6);
    } finally {
      await server.close();
    }
  });
});
