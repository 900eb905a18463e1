import { describe, expect, test } from "vitest";
import { createExchange, Exchange, type NewOrderParams } from "../../src/engine/index.js";
import { limit, market, testClock } from "./support.js";

/** A seeded exchange with resting, partly filled, iceberg, pending-stop and trailing orders. */
function busyExchange() {
  const clock = testClock();
  const ex = createExchange({ seed: 9, now: clock.now, maxOpenOrdersPerAccount: 50 });
  ex.addAccount("alice", { USDT: "500000", BTC: "5", ETH: "40" });
  ex.addAccount("bob", { USDT: "500000", BTC: "5", ETH: "20" });
  ex.newOrder("alice", limit("BUY", "59000", "0.5", { newClientOrderId: "resting" }));
  ex.newOrder("alice", limit("SELL", "60100", "1", { icebergQty: "0.2" }));
  ex.newOrder("bob", market("BUY", { quoteOrderQty: "5000" }));
  clock.advance(1000);
  ex.newOrder("alice", {
    symbol: "BTCUSDT",
    side: "SELL",
    type: "STOP_LOSS",
    quantity: "0.1",
    stopPrice: "55000",
  });
  ex.newOrder("alice", {
    symbol: "ETHUSDT",
    side: "SELL",
    type: "TAKE_PROFIT",
    quantity: "1",
    trailingDelta: 10,
  });
  ex.newOrder("bob", limit("BUY", "59500", "0.2", { strategyId: 3, strategyType: 1000001 }));
  ex.cancelOrder("alice", { symbol: "BTCUSDT", origClientOrderId: "resting" });
  return { ex, clock };
}

describe("toJSON / fromJSON", () => {
  test("a JSON round trip reproduces the snapshot exactly", () => {
    const { ex, clock } = busyExchange();
    const snapshot = ex.toJSON();
    const restored = Exchange.fromJSON(JSON.parse(JSON.stringify(ex)), { now: clock.now });
    expect(restored.toJSON()).toEqual(snapshot);
  });

  test("a restored exchange answers and behaves exactly like the original", () => {
    const { ex, clock } = busyExchange();
    const restored = Exchange.fromJSON(JSON.parse(JSON.stringify(ex.toJSON())), { now: clock.now });
    const views = (e: Exchange) => ({
      depth: e.depth("BTCUSDT", 20),
      open: e.openOrders("alice"),
      all: e.allOrders("bob", { symbol: "BTCUSDT" }),
      balances: [e.balances("alice"), e.balances("bob")],
      fees: e.feesCollected(),
      agg: e.aggTrades("BTCUSDT", { limit: 10 }),
      ticker: e.ticker24hr("ETHUSDT"),
    });
    expect(views(restored)).toEqual(views(ex));

    clock.advance(500);
    const next: NewOrderParams[] = [
      market("SELL", { quantity: "0.8" }),
      limit("BUY", "60500", "0.3"),
      { symbol: "ETHUSDT", side: "SELL", type: "MARKET", quantity: "15" },
    ];
    for (const params of next) {
      expect(restored.newOrder("bob", params)).toEqual(ex.newOrder("bob", params));
    }
    expect(restored.toJSON()).toEqual(ex.toJSON());
    const trailing = restored.allOrders("alice", { symbol: "ETHUSDT" }).find((o) => o.type === "TAKE_PROFIT");
    expect(trailing?.status).toBe("FILLED");
  });

  test("an unknown snapshot format is refused", () => {
    const { ex } = busyExchange();
    const snapshot = { ...ex.toJSON(), format: "other/2" } as unknown as ReturnType<Exchange["toJSON"]>;
    expect(() => Exchange.fromJSON(snapshot)).toThrow(/snapshot format/);
  });
});
