import { describe, expect, test } from "vitest";
import { createExchange, decimal as dec, MARKET_MAKER_ID } from "../../src/engine/index.js";
import { testClock } from "./support.js";

const seeded = (seed: number) => createExchange({ seed, now: testClock().now });

describe("seeded liquidity", () => {
  const ex = seeded(42);

  test.each(["BTCUSDT", "ETHUSDT", "ETHBTC"])(
    "%s has a full default depth of 100 levels per side",
    (symbol) => {
      const book = ex.depth(symbol);
      expect(book.bids).toHaveLength(100);
      expect(book.asks).toHaveLength(100);
      expect(ex.depth(symbol, 5000).bids.length).toBeGreaterThanOrEqual(120);
      expect(ex.depth(symbol, 5000).asks.length).toBeGreaterThanOrEqual(120);
      const prices = (levels: [string, string][]) => levels.map(([p]) => dec.parse(p));
      const bids = prices(book.bids);
      const asks = prices(book.asks);
      expect([...bids].sort((a, b) => dec.compare(b, a))).toEqual(bids);
      expect([...asks].sort(dec.compare)).toEqual(asks);
      expect(bids[0]).toBeLessThan(asks[0] ?? 0n);
    },
  );

  test("prices sit around the reference price", () => {
    const mid = (symbol: string) => {
      const t = ex.bookTicker(symbol);
      return Number(t.bidPrice) / 2 + Number(t.askPrice) / 2;
    };
    expect(mid("BTCUSDT")).toBeGreaterThan(59_000);
    expect(mid("BTCUSDT")).toBeLessThan(61_000);
    expect(mid("ETHUSDT")).toBeGreaterThan(2_950);
    expect(mid("ETHBTC")).toBeGreaterThan(0.049);
  });

  test("every symbol has a trade history inside the last 24 hours", () => {
    for (const symbol of ex.symbols()) {
      expect(ex.trades(symbol).length).toBeGreaterThan(0);
      expect(ex.ticker24hr(symbol).count).toBeGreaterThan(0);
      expect(ex.avgPrice(symbol).price).not.toBe("0.00000000");
      expect(ex.aggTrades(symbol).length).toBeGreaterThan(0);
    }
  });

  test("the market maker is an ordinary account with many open orders", () => {
    expect(ex.accountIds()).toEqual([MARKET_MAKER_ID]);
    expect(ex.openOrders(MARKET_MAKER_ID).length).toBeGreaterThan(700);
  });

  test("same seed and clock give identical state; another seed does not", () => {
    expect(seeded(42).toJSON()).toEqual(seeded(42).toJSON());
    expect(seeded(43).depth("BTCUSDT")).not.toEqual(seeded(42).depth("BTCUSDT"));
  });

  test("bare mode starts empty", () => {
    const bare = createExchange({ liquidity: false, now: testClock().now });
    expect(bare.accountIds()).toEqual([]);
    expect(bare.depth("BTCUSDT")).toEqual({ lastUpdateId: 1, bids: [], asks: [] });
    expect(bare.trades("BTCUSDT")).toEqual([]);
  });
});
