import { describe, expect, test } from "vitest";
import { MemoryHistory, type Order, TradeStats } from "../../src/engine/index.js";
import { ordersChanged } from "../support/change-sets.js";
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

describe("MemoryHistory orders by id", () => {
  const order = (orderId: number) =>
    ({ symbol: "BTCUSDT", accountId: "a", orderId, clientOrderId: `c${orderId}`, status: "NEW" }) as Order;
  const cases: [name: string, ids: number[]][] = [
    ["one after another", [1, 2, 3, 4]],
    ["starting late", [1000, 1001, 1002]],
    ["an id below the first", [5, 6, 2, 7]],
    ["a gap", [1, 2, 9, 3, 10]],
  ];
  for (const [name, ids] of cases) {
    test(`every recorded order is found by its id, no other: ${name}`, () => {
      const history = new MemoryHistory();
      for (const id of ids) history.record(ordersChanged([order(id)]), 0);
      for (const id of ids) expect(history.order("BTCUSDT", id)?.orderId).toBe(id);
      for (const id of [0, -1, 8, 11, 999, 1003, 1.5]) {
        if (!ids.includes(id)) expect(history.order("BTCUSDT", id)).toBeUndefined();
      }
      const held = history.contents()[0]?.orders.map((o) => o.orderId) ?? [];
      expect([...held].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    });
  }
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

describe("TradeStats restored after a restart", () => {
  const tradeAt = (id: number, time: number, qty: bigint, price: bigint) => ({
    symbol: "X",
    id,
    price,
    qty,
    quoteQty: qty * price,
    time,
    isBuyerMaker: false,
    buyer: { accountId: "a", orderId: 1, commission: 0n, commissionAsset: "X" },
    seller: { accountId: "b", orderId: 2, commission: 0n, commissionAsset: "X" },
  });

  for (const [shape, spanMs, count] of [
    ["spread over ten minutes", 600_000, 2000],
    ["all in one millisecond-dense minute", 60_000, 5000],
    ["a few trades", 400_000, 7],
  ] as const) {
    test(`the average price's volumes equal those of a server that never stopped (${shape})`, () => {
      const start = 1_700_000_000_000 + 17_123;
      let seed = 7;
      const random = () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const trades = Array.from({ length: count }, (_, i) =>
        tradeAt(
          i + 1,
          start + Math.floor((i * spanMs) / count),
          BigInt(1 + Math.floor(random() * 9)),
          BigInt(100 + Math.floor(random() * 50)),
        ),
      );
      const stopped = (trades.at(-1)?.time ?? start) + 1;
      const never = new TradeStats();
      const buckets = new TradeStats();
      for (const trade of trades) {
        never.add(trade);
        buckets.add(trade);
      }
      // Only the buckets cross the restart; the trades are read back by id when needed.
      const minutes = Array.from(new Set(trades.map((t) => t.time - (t.time % 60_000))))
        .map((m) => buckets.minuteOf(m))
        .filter((b) => b !== undefined);
      let rows = 0;
      const restored = new TradeStats();
      for (const bucket of minutes) restored.restoreMinute(bucket);
      restored.restoreBacklog(
        minutes.filter((b) => b.minute + 60_000 > stopped - 300_000),
        (fromId, toId, limit) => {
          const read = trades.filter((t) => t.id >= fromId && t.id <= toId).slice(0, limit);
          rows += read.length;
          return read;
        },
      );
      expect(rows).toBe(0);
      // The window moves on: trades after the restart join, older ones expire.
      for (let now = stopped; now <= stopped + 400_000; now += 997) {
        if (now % 3 === 0) {
          const extra = tradeAt(trades.length + 1 + now, now, 3n, 120n);
          never.add(extra);
          restored.add(extra);
        }
        expect(restored.volumeSince(now - 300_000), `at ${now - stopped} ms`).toEqual(
          never.volumeSince(now - 300_000),
        );
      }
      // Each stored trade was read at most once per pass over its minute.
      expect(rows).toBeLessThanOrEqual(count + 1000);
    });
  }
});
