import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import {
  Exchange,
  importLegacySnapshot,
  initialState,
  type LegacySnapshot,
  legacySettings,
  MemoryHistory,
  stateFaults,
} from "../../src/engine/index.js";
import { testClock } from "./support.js";

// Written by the JSON-snapshot version of the engine (before the state database), with the answers
// that version gave for the same exchange.
const LEGACY = JSON.parse(
  readFileSync(new URL("../fixtures/legacy-state.json", import.meta.url), "utf8"),
) as {
  exchange: LegacySnapshot;
};
const EXPECTED = JSON.parse(
  readFileSync(new URL("../fixtures/legacy-state.views.json", import.meta.url), "utf8"),
) as { now: number; views: Record<string, unknown> };

function imported(snapshot: LegacySnapshot = LEGACY.exchange) {
  const clock = testClock(EXPECTED.now);
  const settings = legacySettings(snapshot);
  const history = new MemoryHistory();
  const ex = new Exchange(initialState({ ...settings, history }, settings.symbols), clock.now);
  const changes = importLegacySnapshot(ex, snapshot);
  history.record(changes, clock.now());
  return { ex, clock, changes };
}

function views(ex: Exchange) {
  return {
    depth: ex.depth("BTCUSDT", 20),
    open: ex.openOrders("alice"),
    all: ex.allOrders("bob", { symbol: "BTCUSDT" }),
    balances: [ex.balances("alice"), ex.balances("bob")],
    fees: ex.feesCollected(),
    agg: ex.aggTrades("BTCUSDT", { limit: 10 }),
    trades: ex.trades("BTCUSDT", 5),
    ticker: ex.ticker24hr("ETHUSDT"),
    avg: ex.avgPrice("BTCUSDT"),
  };
}

const clone = (): LegacySnapshot => structuredClone(LEGACY.exchange);

describe("legacy JSON snapshots", () => {
  test("an imported snapshot answers exactly as the version that wrote it did", () => {
    const { ex } = imported();
    expect(JSON.parse(JSON.stringify(views(ex)))).toEqual(EXPECTED.views);
    expect(stateFaults(ex.internalState())).toEqual([]);
  });

  test("the change set of an import holds every order, trade and balance", () => {
    const { changes } = imported();
    const snapshot = LEGACY.exchange;
    expect(changes.orders).toHaveLength(snapshot.markets.reduce((n, m) => n + m.orders.length, 0));
    expect(changes.trades).toHaveLength(snapshot.markets.reduce((n, m) => n + m.trades.length, 0));
    expect(changes.accounts.map((a) => a.id)).toEqual(snapshot.accounts.map((a) => a.id));
  });

  test("an imported exchange goes on trading", () => {
    const { ex, clock } = imported();
    clock.advance(500);
    ex.newOrder("bob", { symbol: "BTCUSDT", side: "SELL", type: "MARKET", quantity: "0.8" });
    ex.newOrder("bob", { symbol: "ETHUSDT", side: "SELL", type: "MARKET", quantity: "15" });
    const trailing = ex.allOrders("alice", { symbol: "ETHUSDT" }).find((o) => o.type === "TAKE_PROFIT");
    expect(trailing?.status).toBe("FILLED");
    expect(stateFaults(ex.internalState())).toEqual([]);
  });

  test("faults are named: negative balance, wrong lock, duplicate ids, counters behind ids", () => {
    const negative = clone();
    const alice = negative.accounts.find((a) => a.id === "alice");
    if (alice?.balances.USDT) alice.balances.USDT.free = "-5";
    expect(stateFaults(imported(negative).ex.internalState())).toContain(
      'account "alice" USDT: free balance is negative (-5)',
    );

    const lock = clone();
    const bob = lock.accounts.find((a) => a.id === "bob");
    if (bob?.balances.USDT) bob.balances.USDT.locked = "1";
    expect(stateFaults(imported(lock).ex.internalState()).join("\n")).toMatch(
      /account "bob" USDT: locked balance 1 but its open orders lock 11900/,
    );

    const duplicate = clone();
    const market = duplicate.markets[0];
    if (market?.orders[0]) market.orders.push(market.orders[0]);
    expect(() => imported(duplicate)).toThrow(/order BTCUSDT#1 is listed twice/);

    const counters = clone();
    if (counters.markets[0]) counters.markets[0].nextOrderId = 2;
    expect(stateFaults(imported(counters).ex.internalState()).join("\n")).toMatch(
      /is not below the symbol's next order id 2/,
    );
  });
});

describe("live snapshot", () => {
  test("toJSON holds the live state only and survives JSON", () => {
    const { ex } = imported();
    const live = ex.toJSON();
    expect(JSON.parse(JSON.stringify(live))).toEqual(live);
    expect(live.markets.map((m) => m.symbol)).toEqual(["BTCUSDT", "ETHUSDT", "ETHBTC"]);
    expect(
      live.markets[0]?.openOrders.every((o) => o.status === "NEW" || o.status === "PARTIALLY_FILLED"),
    ).toBe(true);
  });
});
