// Reads of the in-memory history are map lookups and binary searches plus the rows they return:
// the items each read touches grow with the logarithm of the history, not with its length. Every
// order and trade here counts each read of its fields, whichever code reads them. Counted, never
// timed. The state database's reads: test/query-plans.test.ts.
import { describe, expect, it } from "vitest";
import { type AggTrade, MemoryHistory, type Order, type Trade } from "../../src/engine/index.js";

const SYMBOL = "BTCUSDT";

/** Reads of any field of any item of the history, by anyone. */
let touched = 0;
function counted<T extends object>(item: T): T {
  return new Proxy(item, {
    get(target, key, receiver) {
      touched += 1;
      return Reflect.get(target, key, receiver);
    },
  });
}
const T0 = 1_700_000_000_000;

function order(orderId: number, accountId: string): Order {
  return counted({
    accountId,
    symbol: SYMBOL,
    orderId,
    clientOrderId: `c-${orderId}`,
    side: orderId % 2 ? "BUY" : "SELL",
    type: "LIMIT",
    timeInForce: "GTC",
    price: 1n,
    origQty: 1n,
    origQuoteOrderQty: 0n,
    executedQty: 1n,
    cummulativeQuoteQty: 1n,
    stopPrice: 0n,
    icebergQty: 0n,
    trailing: undefined,
    status: "FILLED",
    isWorking: true,
    time: T0 + orderId * 10,
    updateTime: T0 + orderId * 10,
    workingTime: T0 + orderId * 10,
    strategyId: undefined,
    strategyType: undefined,
    locked: 0n,
    bookSeq: 0,
  });
}

function trade(id: number): Trade {
  const party = (accountId: string, orderId: number) => ({
    accountId,
    orderId,
    commission: 0n,
    commissionAsset: "BTC",
  });
  return counted({
    symbol: SYMBOL,
    id,
    price: 1n,
    qty: 1n,
    quoteQty: 1n,
    time: T0 + id * 20,
    isBuyerMaker: false,
    buyer: party("a", 2 * id - 1),
    seller: party("b", 2 * id),
  });
}

function aggTrade(id: number): AggTrade {
  return counted({
    symbol: SYMBOL,
    id,
    price: 1n,
    qty: 1n,
    firstTradeId: id,
    lastTradeId: id,
    time: T0 + id * 20,
    isBuyerMaker: false,
    takerOrderId: 2 * id,
  });
}

/** A history of `size` orders (alternating between accounts a and b) and size / 2 trades. */
function historyOf(size: number): MemoryHistory {
  const history = new MemoryHistory();
  const none = { balances: [], fees: [], deposits: [], accounts: [], markets: [] };
  for (let id = 1; id <= size; id += 1) {
    const isTrade = id % 2 === 0;
    history.record(
      {
        ...none,
        orders: [order(id, id % 2 ? "a" : "b")],
        trades: isTrade ? [trade(id / 2)] : [],
        aggTrades: isTrade ? [aggTrade(id / 2)] : [],
      },
      T0,
    );
  }
  return history;
}

/** Each read of the issue, asked of a history of `size` orders, with the items it visited. */
function visits(size: number): Record<string, number> {
  const history = historyOf(size);
  const mid = Math.floor(size / 2);
  const reads: Record<string, () => unknown> = {
    "query order by orderId": () => history.order(SYMBOL, mid + 1),
    "query order by client order id": () => history.latestByClientOrderId("a", SYMBOL, `c-${mid + 1}`),
    "all orders, newest": () => history.orders("a", SYMBOL, {}, 10),
    "all orders from an orderId": () => history.orders("a", SYMBOL, { fromId: mid }, 10),
    "all orders with time bounds": () =>
      history.orders("a", SYMBOL, { startTime: T0 + mid * 10, endTime: T0 + mid * 10 + 500 }, 10),
    "all orders before an endTime": () => history.orders("a", SYMBOL, { endTime: T0 + mid * 10 }, 10),
    "trades by fromId": () => history.trades(SYMBOL, Math.floor(mid / 2), 10),
    "recent trades": () => history.trades(SYMBOL, undefined, 10),
    "aggTrades by time": () =>
      history.aggTrades(SYMBOL, { startTime: T0 + mid * 10, endTime: T0 + mid * 10 + 1000 }, 10),
    "aggTrades newest": () => history.aggTrades(SYMBOL, {}, 10),
    "account trades": () => history.accountTrades("a", SYMBOL, { startTime: T0 + mid * 10 }, 10),
  };
  return Object.fromEntries(
    Object.entries(reads).map(([name, read]) => {
      touched = 0;
      const result = read();
      const count = touched;
      expect(result === undefined || (Array.isArray(result) && result.length === 0)).toBe(false);
      return [name, count];
    }),
  );
}

describe("reads of the in-memory history", () => {
  const small = visits(1000);
  const large = visits(100_000);

  it.each(Object.keys(small))("%s touches O(log n) items: 100x the history, a few more probes", (name) => {
    const grown = (large[name] as number) - (small[name] as number);
    // log2(100) ≈ 6.6 more probes per binary search; a page does at most three searches.
    expect(grown).toBeLessThanOrEqual(3 * 7);
    expect(large[name]).toBeLessThanOrEqual(3 * 18);
  });

  it("the count sees a read that walks the history (the client order id lookup of release 0.1.0)", () => {
    const history = historyOf(100_000);
    const all = history.orders("a", SYMBOL, { fromId: 1 }, 100_000);
    touched = 0;
    all.findLast((o) => o.clientOrderId === "c-1");
    expect(touched).toBeGreaterThan(3 * 18);
  });
});
