import { describe, expect, test } from "vitest";
import { MemoryHistory, TradeStats } from "../../src/engine/index.js";
import { bareExchange, limit, market } from "./support.js";

const HOUR = 3_600_000;

describe("MemoryHistory retention", () => {
  test("forgets trades and closed orders older than the retention, keeps open orders", () => {
    const history = new MemoryHistory(25 * HOUR);
    const { ex, clock } = bareExchange({ history });
    ex.addAccount("a", { USDT: "1000000", BTC: "100" });
    ex.newOrder("a", limit("SELL", "60000", "0.5"));
    const resting = ex.newOrder("a", limit("BUY", "50000", "0.1"));
    ex.newOrder("a", market("BUY", { quantity: "0.2" }));
    expect(ex.trades("BTCUSDT")).toHaveLength(1);
    clock.advance(26 * HOUR);
    ex.newOrder("a", market("BUY", { quantity: "0.1" }));
    expect(ex.trades("BTCUSDT").map((t) => t.id)).toEqual([2]);
    const orders = ex.allOrders("a", { symbol: "BTCUSDT" }).map((o) => [o.orderId, o.status]);
    // #1 is still open (partly filled), #2 rests; the closed market order #3 is forgotten.
    expect(orders).toEqual([
      [1, "PARTIALLY_FILLED"],
      [resting.orderId, "NEW"],
      [4, "FILLED"],
    ]);
  });
});

describe("TradeStats", () => {
  test("memory is bounded by the windows: minute buckets of one day, totals of five minutes", () => {
    const stats = new TradeStats();
    let id = 1;
    const start = 1_700_000_000_000;
    for (let t = 0; t < 3 * 24 * 60; t += 1) {
      for (let k = 0; k < 3; k += 1) {
        const time = start + t * 60_000 + k * 1000;
        stats.add({
          symbol: "X",
          id: id++,
          price: 1n,
          qty: 1n,
          quoteQty: 1n,
          time,
          isBuyerMaker: false,
          buyer: { accountId: "a", orderId: 1, commission: 0n, commissionAsset: "X" },
          seller: { accountId: "b", orderId: 2, commission: 0n, commissionAsset: "X" },
        });
      }
    }
    const size = stats.size();
    expect(size.minutes).toBeLessThanOrEqual(24 * 60 + 2);
    expect(size.totals).toBeLessThanOrEqual(5 * 3 + 1);
  });
});
