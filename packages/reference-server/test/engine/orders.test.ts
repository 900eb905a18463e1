import { describe, expect, test } from "vitest";
import { defaultNewOrderRespType, shapeNewOrderResponse } from "../../src/engine/index.js";
import { balance, bareExchange, expectRejected, limit, market, T0 } from "./support.js";

function setup() {
  const { ex, clock } = bareExchange();
  ex.addAccount("alice", { USDT: "100000", BTC: "2" });
  ex.addAccount("bob", { USDT: "100000", BTC: "2" });
  return { ex, clock };
}

const HOUR = 60 * 60 * 1000;

describe("cancel", () => {
  test("restores the reservation and reports the canceled order", () => {
    const { ex, clock } = setup();
    const order = ex.newOrder("alice", limit("BUY", "50000", "0.5", { newClientOrderId: "mine-1" }));
    expect(balance(ex, "alice", "USDT")).toEqual({ free: "75000.00000000", locked: "25000.00000000" });
    clock.advance(5);
    const report = ex.cancelOrder("alice", {
      symbol: "BTCUSDT",
      orderId: order.orderId,
      newClientOrderId: "undo",
    });
    expect(report).toEqual({
      symbol: "BTCUSDT",
      origClientOrderId: "mine-1",
      orderId: order.orderId,
      orderListId: -1,
      clientOrderId: "undo",
      transactTime: T0 + 5,
      price: "50000.00000000",
      origQty: "0.50000000",
      executedQty: "0.00000000",
      origQuoteOrderQty: "0.00000000",
      cummulativeQuoteQty: "0.00000000",
      status: "CANCELED",
      timeInForce: "GTC",
      type: "LIMIT",
      side: "BUY",
      selfTradePreventionMode: "NONE",
    });
    expect(balance(ex, "alice", "USDT")).toEqual({ free: "100000.00000000", locked: "0.00000000" });
    expect(ex.depth("BTCUSDT").bids).toEqual([]);
    const after = ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: order.orderId });
    expect([after.status, after.updateTime, after.time]).toEqual(["CANCELED", T0 + 5, T0]);
  });

  test("a partly filled order keeps what it traded and frees the rest", () => {
    const { ex } = setup();
    const order = ex.newOrder("alice", limit("BUY", "50000", "0.5"));
    ex.newOrder("bob", market("SELL", { quantity: "0.2" }));
    ex.cancelOrder("alice", { symbol: "BTCUSDT", origClientOrderId: order.clientOrderId });
    expect(balance(ex, "alice", "USDT")).toEqual({ free: "90000.00000000", locked: "0.00000000" });
    expect(balance(ex, "alice", "BTC").free).toBe("2.19980000");
  });

  test("lookup errors", () => {
    const { ex } = setup();
    const order = ex.newOrder("alice", limit("BUY", "50000", "0.1", { newClientOrderId: "a1" }));
    const symbol = "BTCUSDT";
    expectRejected(
      () => ex.cancelOrder("alice", { symbol }),
      -1102,
      "Param 'origClientOrderId' or 'orderId' must be sent, but both were empty/null!",
    );
    expectRejected(() => ex.cancelOrder("alice", { symbol, orderId: 999 }), -2011, "Unknown order sent.");
    expectRejected(
      () => ex.cancelOrder("alice", { symbol, origClientOrderId: "nope" }),
      -2011,
      "Unknown order sent.",
    );
    expectRejected(
      () => ex.cancelOrder("alice", { symbol, orderId: order.orderId, origClientOrderId: "other" }),
      -2039,
      "Client order ID is not correct for this order ID.",
    );
    expectRejected(
      () =>
        ex.cancelOrder("alice", {
          symbol,
          orderId: order.orderId,
          cancelRestrictions: "ONLY_PARTIALLY_FILLED",
        }),
      -2011,
      "Order was not canceled due to cancel restrictions.",
    );
    ex.cancelOrder("alice", {
      symbol,
      orderId: order.orderId,
      origClientOrderId: "a1",
      cancelRestrictions: "ONLY_NEW",
    });
    expectRejected(
      () => ex.cancelOrder("alice", { symbol, orderId: order.orderId }),
      -2011,
      "Unknown order sent.",
    );
    expectRejected(() => ex.queryOrder("alice", { symbol, orderId: 999 }), -2013, "Order does not exist.");
    expectRejected(() => ex.queryOrder("alice", { symbol: "XYZ", orderId: 1 }), -1121, "Invalid symbol.");
  });

  test("cancelAllOrders cancels every open order of the account on the symbol", () => {
    const { ex } = setup();
    ex.newOrder("alice", limit("BUY", "50000", "0.1"));
    ex.newOrder("alice", limit("SELL", "70000", "0.1"));
    ex.newOrder("alice", limit("BUY", "2000", "0.1", { symbol: "ETHUSDT" }));
    ex.newOrder("bob", limit("BUY", "50000", "0.1"));
    const reports = ex.cancelAllOrders("alice", "BTCUSDT");
    expect(reports.map((r) => [r.orderId, r.status])).toEqual([
      [1, "CANCELED"],
      [2, "CANCELED"],
    ]);
    expect(ex.openOrders("alice").map((o) => o.symbol)).toEqual(["ETHUSDT"]);
    expect(ex.openOrders("bob", "BTCUSDT")).toHaveLength(1);
    expectRejected(() => ex.cancelAllOrders("alice", "BTCUSDT"), -2011, "Unknown order sent.");
  });
});

describe("accounts are isolated", () => {
  test("one account can neither see nor cancel another's orders", () => {
    const { ex } = setup();
    const order = ex.newOrder("alice", limit("BUY", "50000", "0.1", { newClientOrderId: "shared" }));
    const symbol = "BTCUSDT";
    expectRejected(() => ex.queryOrder("bob", { symbol, orderId: order.orderId }), -2013);
    expectRejected(() => ex.queryOrder("bob", { symbol, origClientOrderId: "shared" }), -2013);
    expectRejected(() => ex.cancelOrder("bob", { symbol, orderId: order.orderId }), -2011);
    expectRejected(() => ex.cancelAllOrders("bob", symbol), -2011);
    expect(ex.openOrders("bob")).toEqual([]);
    expect(ex.allOrders("bob", { symbol })).toEqual([]);
    expect(ex.newOrder("bob", limit("BUY", "50000", "0.1", { newClientOrderId: "shared" })).status).toBe(
      "NEW",
    );
    expect(ex.openOrders("alice")).toHaveLength(1);
  });
});

describe("client order ids", () => {
  test("must be unique among open orders and may be reused once the order is closed", () => {
    const { ex } = setup();
    ex.newOrder("alice", limit("BUY", "50000", "0.1", { newClientOrderId: "dup" }));
    expectRejected(
      () => ex.newOrder("alice", limit("BUY", "51000", "0.1", { newClientOrderId: "dup" })),
      -2010,
      "Duplicate order sent.",
    );
    ex.cancelOrder("alice", { symbol: "BTCUSDT", origClientOrderId: "dup" });
    const again = ex.newOrder("alice", limit("BUY", "51000", "0.1", { newClientOrderId: "dup" }));
    expect(ex.queryOrder("alice", { symbol: "BTCUSDT", origClientOrderId: "dup" }).orderId).toBe(
      again.orderId,
    );
  });

  test("are generated when absent (22 characters)", () => {
    const { ex } = setup();
    const ids = [1, 2, 3].map(() => ex.newOrder("alice", limit("BUY", "50000", "0.1")).clientOrderId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(new Set(ids).size).toBe(3);
  });
});

describe("order ids and responses", () => {
  test("order ids increase per symbol", () => {
    const { ex } = setup();
    const ids = [
      ex.newOrder("alice", limit("BUY", "50000", "0.1")).orderId,
      ex.newOrder("bob", limit("BUY", "50000", "0.1")).orderId,
      ex.newOrder("alice", limit("BUY", "2000", "0.1", { symbol: "ETHUSDT" })).orderId,
    ];
    expect(ids).toEqual([1, 2, 1]);
  });

  test("ACK / RESULT / FULL shapes and the per-type default", () => {
    const { ex } = setup();
    const full = ex.newOrder("alice", limit("BUY", "50000", "0.1", { strategyId: 7, strategyType: 1000000 }));
    const ack = shapeNewOrderResponse(full, "ACK");
    expect(Object.keys(ack)).toEqual(["symbol", "orderId", "orderListId", "clientOrderId", "transactTime"]);
    const result = shapeNewOrderResponse(full, "RESULT");
    expect(Object.keys(result)).toEqual([
      "symbol",
      "orderId",
      "orderListId",
      "clientOrderId",
      "transactTime",
      "price",
      "origQty",
      "executedQty",
      "origQuoteOrderQty",
      "cummulativeQuoteQty",
      "status",
      "timeInForce",
      "type",
      "side",
      "workingTime",
      "selfTradePreventionMode",
      "strategyId",
      "strategyType",
    ]);
    expect(shapeNewOrderResponse(full, "FULL")).toHaveProperty("fills", []);
    expect(defaultNewOrderRespType("LIMIT")).toBe("FULL");
    expect(defaultNewOrderRespType("MARKET")).toBe("FULL");
    expect(defaultNewOrderRespType("STOP_LOSS_LIMIT")).toBe("ACK");
    expect(defaultNewOrderRespType("LIMIT_MAKER")).toBe("ACK");
  });

  test("query responses carry every Order field", () => {
    const { ex } = setup();
    const order = ex.newOrder("alice", limit("BUY", "50000", "0.1"));
    expect(ex.queryOrder("alice", { symbol: "BTCUSDT", orderId: order.orderId })).toEqual({
      symbol: "BTCUSDT",
      orderId: order.orderId,
      orderListId: -1,
      clientOrderId: order.clientOrderId,
      price: "50000.00000000",
      origQty: "0.10000000",
      executedQty: "0.00000000",
      cummulativeQuoteQty: "0.00000000",
      status: "NEW",
      timeInForce: "GTC",
      type: "LIMIT",
      side: "BUY",
      stopPrice: "0.00000000",
      icebergQty: "0.00000000",
      time: T0,
      updateTime: T0,
      isWorking: true,
      workingTime: T0,
      origQuoteOrderQty: "0.00000000",
      selfTradePreventionMode: "NONE",
    });
  });
});

describe("allOrders paging (§1.6)", () => {
  function history() {
    const { ex, clock } = setup();
    for (let i = 0; i < 5; i += 1) {
      ex.newOrder("alice", limit("BUY", `${50000 + i}`, "0.1"));
      clock.advance(HOUR);
    }
    ex.cancelOrder("alice", { symbol: "BTCUSDT", orderId: 2 });
    return ex;
  }
  const ids = (orders: { orderId: number }[]) => orders.map((o) => o.orderId);
  const symbol = "BTCUSDT";

  test("defaults: the newest `limit` orders, oldest first, of every status", () => {
    const ex = history();
    expect(ids(ex.allOrders("alice", { symbol }))).toEqual([1, 2, 3, 4, 5]);
    expect(ids(ex.allOrders("alice", { symbol, limit: 2 }))).toEqual([4, 5]);
    expect(ex.allOrders("alice", { symbol }).map((o) => o.status)).toContain("CANCELED");
  });

  test("orderId returns orders from that id on", () => {
    const ex = history();
    expect(ids(ex.allOrders("alice", { symbol, orderId: 2, limit: 2 }))).toEqual([2, 3]);
    expect(ids(ex.allOrders("alice", { symbol, orderId: 6 }))).toEqual([]);
  });

  test("startTime gives the oldest from then, endTime the newest up to then", () => {
    const ex = history();
    expect(ids(ex.allOrders("alice", { symbol, startTime: T0 + 2 * HOUR }))).toEqual([3, 4, 5]);
    expect(ids(ex.allOrders("alice", { symbol, startTime: T0 + 2 * HOUR, limit: 1 }))).toEqual([3]);
    expect(ids(ex.allOrders("alice", { symbol, endTime: T0 + 2 * HOUR, limit: 2 }))).toEqual([2, 3]);
    expect(ids(ex.allOrders("alice", { symbol, startTime: T0 + HOUR, endTime: T0 + 3 * HOUR }))).toEqual([
      2, 3, 4,
    ]);
    expect(ids(ex.allOrders("alice", { symbol, startTime: T0 + HOUR, endTime: T0 + HOUR }))).toEqual([2]);
  });

  test("a window over 24 hours is -1127", () => {
    const ex = history();
    expectRejected(
      () => ex.allOrders("alice", { symbol, startTime: T0, endTime: T0 + 24 * HOUR + 1 }),
      -1127,
      "More than 24 hours between startTime and endTime.",
    );
    expect(ex.allOrders("alice", { symbol, startTime: T0, endTime: T0 + 24 * HOUR })).toHaveLength(5);
  });
});

describe("myTrades", () => {
  test("lists the account's side of each trade with its commission", () => {
    const { ex } = setup();
    const maker = ex.newOrder("alice", limit("SELL", "60000", "0.1"));
    ex.newOrder("bob", market("BUY", { quantity: "0.1" }));
    expect(ex.myTrades("alice", { symbol: "BTCUSDT" })).toEqual([
      {
        symbol: "BTCUSDT",
        id: 1,
        orderId: maker.orderId,
        orderListId: -1,
        price: "60000.00000000",
        qty: "0.10000000",
        quoteQty: "6000.00000000",
        commission: "6.00000000",
        commissionAsset: "USDT",
        time: T0,
        isBuyer: false,
        isMaker: true,
        isBestMatch: true,
      },
    ]);
    expect(ex.myTrades("bob", { symbol: "BTCUSDT" })[0]).toMatchObject({ isBuyer: true, isMaker: false });
  });
});
