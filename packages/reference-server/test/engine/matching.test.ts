import { describe, expect, test } from "vitest";
import { ApiError, type Exchange } from "../../src/engine/index.js";
import { balance, bareExchange, expectRejected, limit, market } from "./support.js";

/** A bare BTCUSDT market with two makers and two traders. */
function setup() {
  const { ex, clock } = bareExchange();
  for (const id of ["m1", "m2", "m3", "taker"]) ex.addAccount(id, { USDT: "1000000", BTC: "100" });
  ex.addAccount("alice", { USDT: "20000", BTC: "1" });
  return { ex, clock };
}

/** Makes one trade at `price` so the symbol has a last price. */
function printTrade(ex: Exchange, price: string): void {
  ex.newOrder("m1", limit("BUY", price, "0.001"));
  ex.newOrder("taker", market("SELL", { quantity: "0.001" }));
}

describe("limit orders", () => {
  test("fills in price-time priority and aggregates one taker's fills per price", () => {
    const { ex } = setup();
    const first = ex.newOrder("m1", limit("SELL", "60000", "0.1"));
    const second = ex.newOrder("m2", limit("SELL", "60000", "0.1"));
    ex.newOrder("m3", limit("SELL", "59990", "0.1"));
    const taker = ex.newOrder("alice", limit("BUY", "60000", "0.25"));

    expect(taker.status).toBe("FILLED");
    expect(taker.executedQty).toBe("0.25000000");
    expect(taker.cummulativeQuoteQty).toBe("14999.00000000");
    expect(taker.fills.map((f) => [f.price, f.qty, f.commission, f.commissionAsset, f.tradeId])).toEqual([
      ["59990.00000000", "0.10000000", "0.00010000", "BTC", 1],
      ["60000.00000000", "0.10000000", "0.00010000", "BTC", 2],
      ["60000.00000000", "0.05000000", "0.00005000", "BTC", 3],
    ]);
    expect(ex.queryOrder("m1", { symbol: "BTCUSDT", orderId: first.orderId }).status).toBe("FILLED");
    const partly = ex.queryOrder("m2", { symbol: "BTCUSDT", orderId: second.orderId });
    expect([partly.status, partly.executedQty]).toEqual(["PARTIALLY_FILLED", "0.05000000"]);
    expect(ex.depth("BTCUSDT").asks).toEqual([["60000.00000000", "0.05000000"]]);
    expect(ex.aggTrades("BTCUSDT").map((a) => [a.p, a.q, a.f, a.l, a.m])).toEqual([
      ["59990.00000000", "0.10000000", 1, 1, false],
      ["60000.00000000", "0.15000000", 2, 3, false],
    ]);
  });

  test("balances: the buyer pays the maker's price and commission comes out of what each side receives", () => {
    const { ex } = setup();
    ex.newOrder("m3", limit("SELL", "59990", "0.1"));
    ex.newOrder("m1", limit("SELL", "60000", "0.15"));
    ex.newOrder("alice", limit("BUY", "60000", "0.25"));
    expect(balance(ex, "alice", "USDT")).toEqual({ free: "5001.00000000", locked: "0.00000000" });
    expect(balance(ex, "alice", "BTC")).toEqual({ free: "1.24975000", locked: "0.00000000" });
    expect(balance(ex, "m3", "USDT").free).toBe("1005993.00100000");
    expect(balance(ex, "m3", "BTC").free).toBe("99.90000000");
    expect(ex.feesCollected()).toEqual({ BTC: "0.00025000", USDT: "14.99900000" });
  });

  test("a partial fill rests the remainder and keeps the reservation for it", () => {
    const { ex } = setup();
    ex.newOrder("m1", limit("SELL", "60000", "0.1"));
    const before = ex.depth("BTCUSDT").lastUpdateId;
    const order = ex.newOrder("alice", limit("BUY", "60000", "0.3"));
    expect([order.status, order.executedQty]).toEqual(["PARTIALLY_FILLED", "0.10000000"]);
    expect(ex.depth("BTCUSDT")).toMatchObject({ bids: [["60000.00000000", "0.20000000"]], asks: [] });
    expect(ex.depth("BTCUSDT").lastUpdateId).toBeGreaterThan(before);
    expect(balance(ex, "alice", "USDT")).toEqual({ free: "2000.00000000", locked: "12000.00000000" });
    expect(ex.openOrders("alice").map((o) => o.orderId)).toEqual([order.orderId]);
  });

  test("IOC expires its remainder and frees its reservation", () => {
    const { ex } = setup();
    ex.newOrder("m1", limit("SELL", "60000", "0.1"));
    const order = ex.newOrder("alice", limit("BUY", "60000", "0.3", { timeInForce: "IOC" }));
    expect([order.status, order.executedQty]).toEqual(["EXPIRED", "0.10000000"]);
    expect(balance(ex, "alice", "USDT")).toEqual({ free: "14000.00000000", locked: "0.00000000" });
    expect(ex.depth("BTCUSDT").bids).toEqual([]);
  });

  test("FOK is all or nothing", () => {
    const { ex } = setup();
    ex.newOrder("m1", limit("SELL", "60000", "0.1"));
    ex.newOrder("m2", limit("SELL", "60010", "0.1"));
    const tooBig = ex.newOrder("alice", limit("BUY", "60010", "0.25", { timeInForce: "FOK" }));
    expect([tooBig.status, tooBig.executedQty, tooBig.fills]).toEqual(["EXPIRED", "0.00000000", []]);
    expect(ex.trades("BTCUSDT")).toEqual([]);
    expect(balance(ex, "alice", "USDT").locked).toBe("0.00000000");
    const fits = ex.newOrder("alice", limit("BUY", "60010", "0.2", { timeInForce: "FOK" }));
    expect([fits.status, fits.cummulativeQuoteQty]).toEqual(["FILLED", "12001.00000000"]);
  });

  test("LIMIT_MAKER that would take is rejected and leaves nothing behind", () => {
    const { ex } = setup();
    ex.newOrder("m1", limit("SELL", "60000", "0.1"));
    expectRejected(
      () =>
        ex.newOrder("alice", limit("BUY", "60000", "0.1", { type: "LIMIT_MAKER", timeInForce: undefined })),
      -2010,
      "Order would immediately match and take.",
    );
    expect(ex.allOrders("alice", { symbol: "BTCUSDT" })).toEqual([]);
    expect(balance(ex, "alice", "USDT")).toEqual({ free: "20000.00000000", locked: "0.00000000" });
    const maker = ex.newOrder(
      "alice",
      limit("BUY", "59999.99", "0.1", { type: "LIMIT_MAKER", timeInForce: undefined }),
    );
    expect([maker.status, maker.timeInForce, maker.fills]).toEqual(["NEW", "GTC", []]);
  });

  test("an order the balance cannot cover is rejected with -2010", () => {
    const { ex } = setup();
    expectRejected(
      () => ex.newOrder("alice", limit("BUY", "60000", "0.34")),
      -2010,
      "Account has insufficient balance for requested action.",
    );
    expectRejected(() => ex.newOrder("alice", limit("SELL", "60000", "1.00001")), -2010);
    expect(ex.allOrders("alice", { symbol: "BTCUSDT" })).toEqual([]);
  });

  test("a rejected order leaves the whole state unchanged", () => {
    const { ex } = setup();
    ex.newOrder("m1", limit("SELL", "60000", "0.1"));
    ex.newOrder("alice", limit("BUY", "50000", "0.01", { newClientOrderId: "taken" }));
    const before = ex.toJSON();
    const attempts = [
      () => ex.newOrder("alice", limit("BUY", "60000", "1")),
      () => ex.newOrder("alice", limit("SELL", "1", "0.1", { symbol: "ETHBTC" })),
      () =>
        ex.newOrder("alice", limit("BUY", "60000", "0.01", { type: "LIMIT_MAKER", timeInForce: undefined })),
      () => ex.newOrder("alice", market("BUY", { quoteOrderQty: "1" })),
      () => ex.newOrder("alice", limit("BUY", "50000", "0.01", { newClientOrderId: "taken" })),
      () => ex.cancelOrder("alice", { symbol: "BTCUSDT", orderId: 1 }),
    ];
    for (const attempt of attempts) expect(attempt).toThrow(ApiError);
    expect(ex.toJSON()).toEqual(before);
  });

  test("self-trades are allowed (STP NONE): only commission changes the account", () => {
    const { ex } = setup();
    ex.newOrder("alice", limit("SELL", "60000", "0.1"));
    const buy = ex.newOrder("alice", limit("BUY", "60000", "0.1"));
    expect(buy.status).toBe("FILLED");
    expect(balance(ex, "alice", "BTC")).toEqual({ free: "0.99990000", locked: "0.00000000" });
    expect(balance(ex, "alice", "USDT")).toEqual({ free: "19994.00000000", locked: "0.00000000" });
  });

  test("iceberg orders show icebergQty in depth but trade their full remainder", () => {
    const { ex } = setup();
    ex.newOrder("m1", limit("SELL", "60000", "1", { icebergQty: "0.2" }));
    expect(ex.depth("BTCUSDT").asks).toEqual([["60000.00000000", "0.20000000"]]);
    const taken = ex.newOrder("taker", market("BUY", { quantity: "0.9" }));
    expect(taken.executedQty).toBe("0.90000000");
    expect(ex.depth("BTCUSDT").asks).toEqual([["60000.00000000", "0.10000000"]]);
    const query = ex.queryOrder("m1", { symbol: "BTCUSDT", orderId: 1 });
    expect(query.icebergQty).toBe("0.20000000");
  });
});

describe("market orders", () => {
  test("BUY by quoteOrderQty spends at most that amount, rounded down to stepSize", () => {
    const { ex } = setup();
    ex.newOrder("m1", limit("SELL", "60000", "0.1"));
    ex.newOrder("m2", limit("SELL", "60010", "0.1"));
    const order = ex.newOrder("alice", market("BUY", { quoteOrderQty: "10000" }));
    expect(order).toMatchObject({
      status: "FILLED",
      origQty: "0.16665000",
      executedQty: "0.16665000",
      origQuoteOrderQty: "10000.00000000",
      cummulativeQuoteQty: "9999.66650000",
      price: "0.00000000",
    });
    expect(balance(ex, "alice", "USDT")).toEqual({ free: "10000.33350000", locked: "0.00000000" });
  });

  test("SELL by quoteOrderQty receives at most that amount", () => {
    const { ex } = setup();
    ex.newOrder("m1", limit("BUY", "59990", "0.1"));
    const order = ex.newOrder("alice", market("SELL", { quoteOrderQty: "3000" }));
    expect(order).toMatchObject({
      status: "FILLED",
      executedQty: "0.05000000",
      cummulativeQuoteQty: "2999.50000000",
    });
    expect(order.fills[0]).toMatchObject({ commission: "2.99950000", commissionAsset: "USDT" });
  });

  test("a market order on an empty book expires without fills", () => {
    const { ex } = setup();
    const byQty = ex.newOrder("alice", market("SELL", { quantity: "0.5" }));
    expect([byQty.status, byQty.executedQty]).toEqual(["EXPIRED", "0.00000000"]);
    const byQuote = ex.newOrder("alice", market("BUY", { quoteOrderQty: "100" }));
    expect([byQuote.status, byQuote.origQty]).toEqual(["EXPIRED", "0.00000000"]);
    expect(balance(ex, "alice", "BTC")).toEqual({ free: "1.00000000", locked: "0.00000000" });
  });

  test("BUY by quantity takes what the book has and expires the rest", () => {
    const { ex } = setup();
    ex.newOrder("m1", limit("SELL", "60000", "0.1"));
    const order = ex.newOrder("alice", market("BUY", { quantity: "0.2" }));
    expect([order.status, order.executedQty, order.cummulativeQuoteQty]).toEqual([
      "EXPIRED",
      "0.10000000",
      "6000.00000000",
    ]);
  });

  test("BUY by quantity must be able to pay for the planned fills", () => {
    const { ex } = setup();
    ex.newOrder("m1", limit("SELL", "60000", "1"));
    expectRejected(
      () => ex.newOrder("alice", market("BUY", { quantity: "0.34" })),
      -2010,
      "Account has insufficient balance for requested action.",
    );
    expect(ex.newOrder("alice", market("BUY", { quantity: "0.33" })).status).toBe("FILLED");
  });
});

describe("stop orders", () => {
  test("STOP_LOSS SELL waits, then fires when a trade reaches stopPrice", () => {
    const { ex, clock } = setup();
    printTrade(ex, "60000");
    const stop = ex.newOrder("alice", {
      symbol: "BTCUSDT",
      side: "SELL",
      type: "STOP_LOSS",
      quantity: "0.05",
      stopPrice: "59000",
    });
    expect(stop).toMatchObject({ status: "NEW", workingTime: -1, stopPrice: "59000.00000000", fills: [] });
    expect(balance(ex, "alice", "BTC").locked).toBe("0.05000000");
    const pending = ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: stop.orderId });
    expect([pending.isWorking, pending.workingTime]).toEqual([false, -1]);

    ex.newOrder("m1", limit("BUY", "60000", "0.1"));
    ex.newOrder("m2", limit("BUY", "58900", "0.2"));
    ex.newOrder("taker", market("SELL", { quantity: "0.1" }));
    expect(ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: stop.orderId }).status).toBe("NEW");
    clock.advance(1000);
    ex.newOrder("taker", market("SELL", { quantity: "0.01" }));
    const fired = ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: stop.orderId });
    expect(fired).toMatchObject({
      status: "FILLED",
      isWorking: true,
      executedQty: "0.05000000",
      cummulativeQuoteQty: "2945.00000000",
    });
    expect(fired.workingTime).toBe(fired.updateTime);
    expect(balance(ex, "alice", "BTC")).toEqual({ free: "0.95000000", locked: "0.00000000" });
  });

  const wrongSide: [type: "STOP_LOSS" | "TAKE_PROFIT", side: "BUY" | "SELL", stopPrice: string][] = [
    ["STOP_LOSS", "SELL", "61000"],
    ["STOP_LOSS", "BUY", "59000"],
    ["TAKE_PROFIT", "SELL", "59000"],
    ["TAKE_PROFIT", "BUY", "61000"],
    ["STOP_LOSS", "SELL", "60000"],
  ];
  test.each(wrongSide)("%s %s at %s with last 60000 would trigger immediately", (type, side, stopPrice) => {
    const { ex } = setup();
    printTrade(ex, "60000");
    expectRejected(
      () => ex.newOrder("alice", { symbol: "BTCUSDT", side, type, quantity: "0.01", stopPrice }),
      -2010,
      "Order would trigger immediately.",
    );
  });

  test("STOP_LOSS_LIMIT BUY becomes a resting limit order when it fires", () => {
    const { ex } = setup();
    printTrade(ex, "60000");
    const stop = ex.newOrder("alice", {
      symbol: "BTCUSDT",
      side: "BUY",
      type: "STOP_LOSS_LIMIT",
      timeInForce: "GTC",
      quantity: "0.1",
      price: "60500",
      stopPrice: "60100",
    });
    expect(balance(ex, "alice", "USDT").locked).toBe("6050.00000000");
    ex.newOrder("m1", limit("SELL", "60100", "0.01"));
    ex.newOrder("m2", limit("SELL", "60600", "1"));
    ex.newOrder("taker", market("BUY", { quantity: "0.005" }));
    const fired = ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: stop.orderId });
    expect(fired).toMatchObject({ status: "PARTIALLY_FILLED", executedQty: "0.00500000", isWorking: true });
    expect(ex.depth("BTCUSDT").bids).toEqual([["60500.00000000", "0.09500000"]]);
    expect(balance(ex, "alice", "USDT")).toEqual({ free: "13952.00000000", locked: "5747.50000000" });
  });

  test("trailing STOP_LOSS SELL fires after a fall of trailingDelta bips from the high", () => {
    const { ex } = setup();
    printTrade(ex, "60000");
    const stop = ex.newOrder("alice", {
      symbol: "BTCUSDT",
      side: "SELL",
      type: "STOP_LOSS",
      quantity: "0.01",
      trailingDelta: 100,
    });
    expect(stop.trailingDelta).toBe(100);
    expect(stop.trailingTime).toBeGreaterThan(0);
    ex.newOrder("m1", limit("SELL", "61000", "0.01"));
    ex.newOrder("taker", market("BUY", { quantity: "0.01" }));
    ex.newOrder("m1", limit("BUY", "60400", "0.02"));
    ex.newOrder("taker", market("SELL", { quantity: "0.01" }));
    expect(ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: stop.orderId }).status).toBe("NEW");
    ex.newOrder("m2", limit("BUY", "60390", "0.05"));
    ex.newOrder("taker", market("SELL", { quantity: "0.02" }));
    const fired = ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: stop.orderId });
    expect(fired).toMatchObject({
      status: "FILLED",
      cummulativeQuoteQty: "603.90000000",
      trailingDelta: 100,
    });
  });

  test("TAKE_PROFIT with stopPrice and trailingDelta starts trailing at the activation price", () => {
    const { ex } = setup();
    printTrade(ex, "60000");
    const stop = ex.newOrder("alice", {
      symbol: "BTCUSDT",
      side: "SELL",
      type: "TAKE_PROFIT",
      quantity: "0.01",
      stopPrice: "61000",
      trailingDelta: 50,
    });
    expect(stop.trailingTime).toBe(-1);
    ex.newOrder("m1", limit("SELL", "61000", "0.01"));
    ex.newOrder("taker", market("BUY", { quantity: "0.01" }));
    const active = ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: stop.orderId });
    expect([active.status, active.trailingTime !== -1]).toEqual(["NEW", true]);
    ex.newOrder("m1", limit("BUY", "60695", "0.05"));
    ex.newOrder("taker", market("SELL", { quantity: "0.01" }));
    expect(ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: stop.orderId }).status).toBe("FILLED");
  });

  test("a fired BUY stop-market spends at most the free quote and expires the rest", () => {
    const { ex } = setup();
    printTrade(ex, "60000");
    ex.addAccount("carol", { USDT: "700" });
    const stop = ex.newOrder("carol", {
      symbol: "BTCUSDT",
      side: "BUY",
      type: "STOP_LOSS",
      quantity: "0.011",
      stopPrice: "60100",
    });
    expect(balance(ex, "carol", "USDT").locked).toBe("661.10000000");
    ex.newOrder("m1", limit("SELL", "60100", "1"));
    ex.newOrder("taker", market("BUY", { quantity: "0.001" }));
    const fired = ex.queryOrder("carol", { symbol: "BTCUSDT", orderId: stop.orderId });
    expect(fired).toMatchObject({ status: "FILLED", executedQty: "0.01100000" });
    expect(balance(ex, "carol", "USDT")).toEqual({ free: "38.90000000", locked: "0.00000000" });
  });

  test("cancelling a pending stop releases its reservation", () => {
    const { ex } = setup();
    printTrade(ex, "60000");
    const stop = ex.newOrder("alice", {
      symbol: "BTCUSDT",
      side: "SELL",
      type: "STOP_LOSS_LIMIT",
      timeInForce: "GTC",
      quantity: "0.5",
      price: "58000",
      stopPrice: "58500",
    });
    const report = ex.cancelOrder("alice", { symbol: "BTCUSDT", orderId: stop.orderId });
    expect(report).toMatchObject({
      status: "CANCELED",
      stopPrice: "58500.00000000",
      type: "STOP_LOSS_LIMIT",
    });
    expect(balance(ex, "alice", "BTC")).toEqual({ free: "1.00000000", locked: "0.00000000" });
    ex.newOrder("m1", limit("BUY", "58000", "1"));
    ex.newOrder("taker", market("SELL", { quantity: "0.01" }));
    expect(ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: stop.orderId }).status).toBe("CANCELED");
  });
});
