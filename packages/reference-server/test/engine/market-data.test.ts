import { describe, expect, test } from "vitest";
import { bareExchange, limit, market, T0 } from "./support.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function setup() {
  const { ex, clock } = bareExchange();
  ex.addAccount("maker", { USDT: "10000000", BTC: "1000" });
  ex.addAccount("taker", { USDT: "10000000", BTC: "1000" });
  return { ex, clock };
}

describe("depth", () => {
  test("aggregates per price level, bids descending and asks ascending", () => {
    const { ex } = setup();
    ex.newOrder("maker", limit("BUY", "59990", "0.1"));
    ex.newOrder("maker", limit("BUY", "59995", "0.2"));
    ex.newOrder("taker", limit("BUY", "59990", "0.3"));
    ex.newOrder("maker", limit("SELL", "60010", "0.4"));
    ex.newOrder("maker", limit("SELL", "60005", "0.5"));
    expect(ex.depth("BTCUSDT")).toEqual({
      lastUpdateId: 6,
      bids: [
        ["59995.00000000", "0.20000000"],
        ["59990.00000000", "0.40000000"],
      ],
      asks: [
        ["60005.00000000", "0.50000000"],
        ["60010.00000000", "0.40000000"],
      ],
    });
    expect(ex.depth("BTCUSDT", 1).bids).toEqual([["59995.00000000", "0.20000000"]]);
  });

  test("lastUpdateId grows with every book change and only then", () => {
    const { ex } = setup();
    const seen = [ex.depth("BTCUSDT").lastUpdateId];
    const order = ex.newOrder("maker", limit("BUY", "59990", "0.1"));
    seen.push(ex.depth("BTCUSDT").lastUpdateId);
    ex.newOrder("taker", market("SELL", { quantity: "0.01" }));
    seen.push(ex.depth("BTCUSDT").lastUpdateId);
    ex.cancelOrder("maker", { symbol: "BTCUSDT", orderId: order.orderId });
    seen.push(ex.depth("BTCUSDT").lastUpdateId);
    ex.trades("BTCUSDT");
    seen.push(ex.depth("BTCUSDT").lastUpdateId);
    expect(seen).toEqual([1, 2, 3, 4, 4]);
  });
});

describe("trades", () => {
  function withTrades(count: number) {
    const env = setup();
    for (let i = 0; i < count; i += 1) {
      env.ex.newOrder("maker", limit("SELL", `${60000 + i}`, "0.01"));
      env.ex.newOrder("taker", market("BUY", { quantity: "0.01" }));
      env.clock.advance(MINUTE);
    }
    return env;
  }

  test("recent trades are the newest, oldest first", () => {
    const { ex } = withTrades(5);
    expect(ex.trades("BTCUSDT", 2)).toEqual([
      {
        id: 4,
        price: "60003.00000000",
        qty: "0.01000000",
        quoteQty: "600.03000000",
        time: T0 + 3 * MINUTE,
        isBuyerMaker: false,
        isBestMatch: true,
      },
      {
        id: 5,
        price: "60004.00000000",
        qty: "0.01000000",
        quoteQty: "600.04000000",
        time: T0 + 4 * MINUTE,
        isBuyerMaker: false,
        isBestMatch: true,
      },
    ]);
    expect(ex.trades("BTCUSDT")).toHaveLength(5);
  });

  test("historicalTrades pages from fromId", () => {
    const { ex } = withTrades(5);
    expect(ex.historicalTrades("BTCUSDT", { fromId: 2, limit: 2 }).map((t) => t.id)).toEqual([2, 3]);
    expect(ex.historicalTrades("BTCUSDT", { limit: 2 }).map((t) => t.id)).toEqual([4, 5]);
    expect(ex.historicalTrades("BTCUSDT", { fromId: 9 })).toEqual([]);
  });

  test("aggTrades filter by fromId, startTime and endTime", () => {
    const { ex } = withTrades(5);
    const ids = (q: Parameters<typeof ex.aggTrades>[1]) => ex.aggTrades("BTCUSDT", q).map((a) => a.a);
    expect(ids({})).toEqual([1, 2, 3, 4, 5]);
    expect(ids({ limit: 2 })).toEqual([4, 5]);
    expect(ids({ fromId: 3 })).toEqual([3, 4, 5]);
    expect(ids({ startTime: T0 + MINUTE, limit: 2 })).toEqual([2, 3]);
    expect(ids({ endTime: T0 + 2 * MINUTE, limit: 2 })).toEqual([2, 3]);
    expect(ids({ startTime: T0 + MINUTE, endTime: T0 + 2 * MINUTE })).toEqual([2, 3]);
    expect(ex.aggTrades("BTCUSDT", { limit: 1 })[0]).toEqual({
      a: 5,
      p: "60004.00000000",
      q: "0.01000000",
      f: 5,
      l: 5,
      T: T0 + 4 * MINUTE,
      m: false,
      M: true,
    });
  });

  test("avgPrice is the 5-minute volume-weighted price, else the last price", () => {
    const { ex, clock } = withTrades(3);
    ex.newOrder("maker", limit("SELL", "61000", "0.03"));
    ex.newOrder("taker", market("BUY", { quantity: "0.03" }));
    // window holds 60000..60002 (0.01 each) and 61000 (0.03)
    expect(ex.avgPrice("BTCUSDT")).toEqual({ mins: 5, price: "60500.50000000", closeTime: T0 + 3 * MINUTE });
    clock.advance(HOUR);
    expect(ex.avgPrice("BTCUSDT")).toEqual({ mins: 5, price: "61000.00000000", closeTime: T0 + 3 * MINUTE });
  });

  test("avgPrice follows the sliding window as trades keep arriving (running totals)", () => {
    const { ex, clock } = setup();
    const expected = () => {
      const recent = ex.trades("BTCUSDT", 1000).filter((t) => t.time >= clock.now() - 5 * MINUTE);
      const volume = recent.reduce((sum, t) => sum + Number(t.qty), 0);
      const quote = recent.reduce((sum, t) => sum + Number(t.quoteQty), 0);
      return volume === 0 ? undefined : quote / volume;
    };
    for (let i = 0; i < 40; i += 1) {
      const price = String(60000 + ((i * 7) % 13));
      ex.newOrder("maker", limit("SELL", price, "0.01"));
      ex.newOrder("taker", market("BUY", { quantity: "0.01" }));
      clock.advance(37_000);
      const want = expected();
      const got = Number(ex.avgPrice("BTCUSDT").price);
      if (want !== undefined) expect(Math.abs(got - want)).toBeLessThan(1e-6);
    }
  });

  test("an empty symbol reports zeros", () => {
    const { ex } = setup();
    expect(ex.trades("ETHBTC")).toEqual([]);
    expect(ex.aggTrades("ETHBTC")).toEqual([]);
    expect(ex.avgPrice("ETHBTC")).toEqual({ mins: 5, price: "0.00000000", closeTime: T0 });
    expect(ex.tickerPrice("ETHBTC")).toEqual({ symbol: "ETHBTC", price: "0.00000000" });
    expect(ex.bookTicker("ETHBTC")).toEqual({
      symbol: "ETHBTC",
      bidPrice: "0.00000000",
      bidQty: "0.00000000",
      askPrice: "0.00000000",
      askQty: "0.00000000",
    });
  });
});

describe("tickers", () => {
  test("24hr FULL statistics over the rolling window", () => {
    const { ex, clock } = setup();
    ex.newOrder("maker", limit("SELL", "50000", "0.1"));
    ex.newOrder("taker", market("BUY", { quantity: "0.1" }));
    clock.advance(2 * HOUR);
    for (const [price, qty] of [
      ["60000", "0.1"],
      ["62000", "0.2"],
      ["59000", "0.1"],
    ] as const) {
      ex.newOrder("maker", limit("SELL", price, qty));
      ex.newOrder("taker", market("BUY", { quantity: qty }));
    }
    ex.newOrder("maker", limit("BUY", "58000", "1.5"));
    ex.newOrder("maker", limit("SELL", "63000", "2"));
    clock.advance(23 * HOUR);
    const now = T0 + 25 * HOUR;
    expect(ex.ticker24hr("BTCUSDT")).toEqual({
      symbol: "BTCUSDT",
      priceChange: "-1000.00000000",
      priceChangePercent: "-1.666",
      weightedAvgPrice: "60750.00000000",
      prevClosePrice: "50000.00000000",
      lastPrice: "59000.00000000",
      lastQty: "0.10000000",
      bidPrice: "58000.00000000",
      bidQty: "1.50000000",
      askPrice: "63000.00000000",
      askQty: "2.00000000",
      openPrice: "60000.00000000",
      highPrice: "62000.00000000",
      lowPrice: "59000.00000000",
      volume: "0.40000000",
      quoteVolume: "24300.00000000",
      openTime: now - 24 * HOUR,
      closeTime: now,
      firstId: 2,
      lastId: 4,
      count: 3,
    });
    expect(ex.ticker24hr("BTCUSDT", "MINI")).toEqual({
      symbol: "BTCUSDT",
      openPrice: "60000.00000000",
      highPrice: "62000.00000000",
      lowPrice: "59000.00000000",
      lastPrice: "59000.00000000",
      volume: "0.40000000",
      quoteVolume: "24300.00000000",
      openTime: now - 24 * HOUR,
      closeTime: now,
      firstId: 2,
      lastId: 4,
      count: 3,
    });
    expect(ex.bookTicker("BTCUSDT")).toMatchObject({ bidPrice: "58000.00000000", askQty: "2.00000000" });
    expect(ex.tickerPrice("BTCUSDT")).toEqual({ symbol: "BTCUSDT", price: "59000.00000000" });
  });

  test("24hr with no trade in the window: ids -1, count 0, zero statistics", () => {
    const { ex, clock } = setup();
    expect(ex.ticker24hr("BTCUSDT")).toMatchObject({
      priceChange: "0.00000000",
      priceChangePercent: "0.000",
      weightedAvgPrice: "0.00000000",
      prevClosePrice: "0.00000000",
      lastPrice: "0.00000000",
      lastQty: "0.00000000",
      openPrice: "0.00000000",
      highPrice: "0.00000000",
      lowPrice: "0.00000000",
      volume: "0.00000000",
      quoteVolume: "0.00000000",
      firstId: -1,
      lastId: -1,
      count: 0,
    });
    ex.newOrder("maker", limit("SELL", "50000", "0.1"));
    ex.newOrder("taker", market("BUY", { quantity: "0.1" }));
    clock.advance(25 * HOUR);
    expect(ex.ticker24hr("BTCUSDT")).toMatchObject({
      lastPrice: "50000.00000000",
      prevClosePrice: "50000.00000000",
      openPrice: "0.00000000",
      volume: "0.00000000",
      firstId: -1,
      lastId: -1,
      count: 0,
    });
  });
});
