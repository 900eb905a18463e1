// Reads of the in-memory history are map lookups and binary searches plus the rows they return:
// the fields each read touches grow with the logarithm of the history, not with its length. The
// history keeps its records as rows of numbers and of objects (src/engine/history-rows.ts);
// every read of a row's field is counted here, whichever code reads it. Counted, never timed.
// The state database's reads: test/query-plans.test.ts.
import { afterAll, describe, expect, it } from "vitest";
import { NumberList, NumberRows, ObjectRows } from "../../src/engine/history-rows.js";
import { type AggTrade, MemoryHistory, type Order, type Trade } from "../../src/engine/index.js";

const SYMBOL = "BTCUSDT";

/** Reads of any field of any row of the history, by anyone. */
let touched = 0;
const rowTypes = [NumberRows, ObjectRows, NumberList] as const;
const plainReads = rowTypes.map((type) => type.prototype.at);
// Counting from the start: the histories below are read while the tests are collected.
for (const [i, type] of rowTypes.entries()) {
  const read = plainReads[i] as (row: number, field: number) => unknown;
  type.prototype.at = function counted(this: unknown, row: number, field: number) {
    touched += 1;
    return read.call(this, row, field);
  } as never;
}
afterAll(() => {
  for (const [i, type] of rowTypes.entries()) type.prototype.at = plainReads[i] as never;
});

const T0 = 1_700_000_000_000;

function order(orderId: number, accountId: string): Order {
  return {
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
  };
}

function trade(id: number): Trade {
  const party = (accountId: string, orderId: number) => ({
    accountId,
    orderId,
    commission: 0n,
    commissionAsset: "BTC",
  });
  return {
    symbol: SYMBOL,
    id,
    price: 1n,
    qty: 1n,
    quoteQty: 1n,
    time: T0 + id * 20,
    isBuyerMaker: false,
    buyer: party("a", 2 * id - 1),
    seller: party("b", 2 * id),
  };
}

function aggTrade(id: number): AggTrade {
  return {
    symbol: SYMBOL,
    id,
    price: 1n,
    qty: 1n,
    firstTradeId: id,
    lastTradeId: id,
    time: T0 + id * 20,
    isBuyerMaker: false,
    takerOrderId: 2 * id,
  };
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

/** Each read asked of a history of `size` orders, with the row fields it read. */
function visits(size: number, reads: Record<string, (history: MemoryHistory, mid: number) => unknown>) {
  const history = historyOf(size);
  const mid = Math.floor(size / 2);
  return Object.fromEntries(
    Object.entries(reads).map(([name, read]) => {
      touched = 0;
      const result = read(history, mid);
      const count = touched;
      expect(result === undefined || (Array.isArray(result) && result.length === 0)).toBe(false);
      return [name, count];
    }),
  );
}

const READS: Record<string, (history: MemoryHistory, mid: number) => unknown> = {
  "query order by orderId": (h, mid) => h.order(SYMBOL, mid + 1),
  "query order by client order id": (h, mid) => h.latestByClientOrderId("a", SYMBOL, `c-${mid + 1}`),
  "all orders, newest": (h) => h.orders("a", SYMBOL, {}, 10),
  "all orders from an orderId": (h, mid) => h.orders("a", SYMBOL, { fromId: mid }, 10),
  "all orders with time bounds": (h, mid) =>
    h.orders("a", SYMBOL, { startTime: T0 + mid * 10, endTime: T0 + mid * 10 + 500 }, 10),
  "all orders before an endTime": (h, mid) => h.orders("a", SYMBOL, { endTime: T0 + mid * 10 }, 10),
  "trades by fromId": (h, mid) => h.trades(SYMBOL, Math.floor(mid / 2), 10),
  "recent trades": (h) => h.trades(SYMBOL, undefined, 10),
  "trades between two times": (h, mid) => h.tradesBetween(SYMBOL, T0 + mid * 10, T0 + mid * 10 + 200),
  "the last trade before a time": (h, mid) => h.lastTradeBefore(SYMBOL, T0 + mid * 10),
  "aggTrades by time": (h, mid) =>
    h.aggTrades(SYMBOL, { startTime: T0 + mid * 10, endTime: T0 + mid * 10 + 1000 }, 10),
  "aggTrades newest": (h) => h.aggTrades(SYMBOL, {}, 10),
  "account trades": (h, mid) => h.accountTrades("a", SYMBOL, { startTime: T0 + mid * 10 }, 10),
};

// log2(100) ≈ 6.6 more probes per binary search; a page does at most three searches, and a
// probe reads two fields (the account's list, then the key in the symbol's rows).
const MORE_READS_FOR_100X = 3 * 7 * 2;

describe("reads of the in-memory history", () => {
  const small = visits(1000, READS);
  const large = visits(100_000, READS);

  it.each(Object.keys(READS))("%s reads O(log n) slots: 100x the history, a few more probes", (name) => {
    expect(small[name]).toBeGreaterThan(0);
    expect((large[name] as number) - (small[name] as number)).toBeLessThanOrEqual(MORE_READS_FOR_100X);
    // The rows returned (ten at most, under 12 slots each) and three searches of 17 probes.
    expect(large[name]).toBeLessThanOrEqual(10 * 12 + 3 * 18 * 2);
  });

  it("the count sees a read that walks the history (myTrades filtered by orderId filters them all)", () => {
    const walk = {
      "account trades of one order": (h: MemoryHistory) => h.accountTrades("a", SYMBOL, { orderId: 1 }, 10),
    };
    const grown =
      (visits(100_000, walk)["account trades of one order"] as number) -
      (visits(1000, walk)["account trades of one order"] as number);
    expect(grown).toBeGreaterThan(100 * MORE_READS_FOR_100X);
  });
});
