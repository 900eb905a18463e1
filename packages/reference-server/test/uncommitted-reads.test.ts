// Every read and decision of a server with a state database sees the engine's own state, not the
// last committed rows: a script of orders, fills and cancels runs within one turn of the event loop
// (so nothing is committed in between) against an in-memory server and a durable one, and every
// view after every step must be the same on both.
import { mkdtempSync, rmSync } from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Exchange, type RunningServer, startServer } from "../src/index.js";
import { sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-uncommitted-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const SYMBOL = "BTCUSDT";
const ACCOUNTS = [
  { id: "maker", apiKey: "maker-key", apiSecret: "maker-secret", balances: { USDT: "1000000", BTC: "100" } },
  { id: "taker", apiKey: "taker-key", apiSecret: "taker-secret", balances: { USDT: "1000000", BTC: "100" } },
];

type Step = (ex: Exchange) => unknown;

const limit = (side: "BUY" | "SELL", price: string, qty: string, extra: Record<string, unknown> = {}) => ({
  symbol: SYMBOL,
  side,
  type: "LIMIT" as const,
  timeInForce: "GTC" as const,
  price,
  quantity: qty,
  ...extra,
});

const SCRIPT: Step[] = [
  (ex) => ex.newOrder("maker", limit("SELL", "60000", "0.01", { newClientOrderId: "a" })),
  (ex) => ex.newOrder("maker", limit("SELL", "60001", "0.02", { newClientOrderId: "b" })),
  (ex) => ex.newOrder("maker", limit("SELL", "60002", "0.03", { newClientOrderId: "c" })),
  (ex) => ex.newOrder("taker", limit("BUY", "60001", "0.02", { timeInForce: "IOC" })),
  // "a" is filled and "b" half filled in the uncommitted batch: neither may be cancelled as NEW.
  (ex) => ex.cancelOrder("maker", { symbol: SYMBOL, orderId: 1 }),
  (ex) => ex.cancelOrder("maker", { symbol: SYMBOL, origClientOrderId: "a" }),
  (ex) => ex.cancelOrder("maker", { symbol: SYMBOL, origClientOrderId: "b" }),
  (ex) => ex.cancelOrder("maker", { symbol: SYMBOL, origClientOrderId: "b" }),
  // A client order id used again once its order is closed: the newest wins.
  (ex) => ex.newOrder("maker", limit("SELL", "60003", "0.01", { newClientOrderId: "a" })),
  (ex) => ex.newOrder("taker", limit("BUY", "60003", "0.05", { timeInForce: "IOC" })),
  (ex) => ex.cancelAllOrders("maker", SYMBOL),
  (ex) => ex.newOrder("maker", limit("SELL", "60004", "0.01", { newClientOrderId: "d" })),
  (ex) => ex.cancelAllOrders("maker", SYMBOL),
  (ex) => ex.cancelOrder("maker", { symbol: SYMBOL, origClientOrderId: "d" }),
];

function views(ex: Exchange): unknown {
  const orders = [1, 2, 3, 4, 5, 6, 7, 8].map((orderId) =>
    attempt(() => ex.queryOrder("maker", { symbol: SYMBOL, orderId })),
  );
  const byClientId = ["a", "b", "c", "d"].map((id) =>
    attempt(() => ex.queryOrder("maker", { symbol: SYMBOL, origClientOrderId: id })),
  );
  return {
    orders,
    byClientId,
    all: ["maker", "taker"].map((id) => ex.allOrders(id, { symbol: SYMBOL })),
    allFrom: ex.allOrders("maker", { symbol: SYMBOL, orderId: 2, limit: 2 }),
    allNewest: ex.allOrders("maker", { symbol: SYMBOL, limit: 2 }),
    myTrades: ["maker", "taker"].map((id) => ex.myTrades(id, { symbol: SYMBOL })),
    myTradesOfOrder: ex.myTrades("maker", { symbol: SYMBOL, orderId: 2 }),
    trades: ex.trades(SYMBOL, 2),
    historical: ex.historicalTrades(SYMBOL, { fromId: 1, limit: 2 }),
    agg: ex.aggTrades(SYMBOL, {}),
    aggFrom: ex.aggTrades(SYMBOL, { fromId: 2, limit: 1 }),
    ticker: ex.ticker24hr(SYMBOL),
    open: ["maker", "taker"].map((id) => ex.openOrders(id)),
    balances: ["maker", "taker"].map((id) => ex.balances(id)),
    fees: ex.feesCollected(),
  };
}

function attempt(read: () => unknown): unknown {
  try {
    return read();
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function server(statePath: string | undefined, clock: { now: number }): Promise<RunningServer> {
  return startServer({
    config: { symbols: [SYMBOL], accounts: ACCOUNTS },
    empty: true,
    statePath,
    now: () => clock.now,
  });
}

describe("reads with a state database before the batch is committed", () => {
  it("see every order, trade and client order id as the in-memory server does", async () => {
    const clock = { now: 1_800_000_000_000 };
    const memory = await server(undefined, clock);
    const durable = await server(join(folder, "uncommitted.db"), clock);
    try {
      const seen: { step: number; memory: unknown; durable: unknown }[] = [];
      // No await from here on: nothing is committed before the last view is taken.
      SCRIPT.forEach((step, i) => {
        clock.now += 1;
        seen.push({
          step: i,
          memory: attempt(() => step(memory.exchange)),
          durable: attempt(() => step(durable.exchange)),
        });
        seen.push({ step: i, memory: views(memory.exchange), durable: views(durable.exchange) });
      });
      for (const { step, memory: want, durable: got } of seen)
        expect(got, `after step ${step}`).toEqual(want);
    } finally {
      await memory.close();
      await durable.close();
    }
  });
});

describe("answers with a state database", () => {
  it("a read that shows changes not committed yet is answered only once they are", async () => {
    const statePath = join(folder, "held.db");
    const durable = await startServer({
      config: { symbols: [SYMBOL], accounts: ACCOUNTS },
      empty: true,
      statePath,
    });
    const { default: Driver } = await import("better-sqlite3");
    const holder = new Driver(statePath);
    try {
      // Another connection holds the write lock: the commit (on the main thread with sync normal,
      // which tries again without blocking) waits for it.
      holder.exec("BEGIN IMMEDIATE");
      const maker = ACCOUNTS[0] as (typeof ACCOUNTS)[number];
      const answered: string[] = [];
      const placed = sendSigned(durable.url, {
        ...maker,
        method: "POST",
        path: "/api/v3/order",
        query: `symbol=${SYMBOL}&side=SELL&type=LIMIT&timeInForce=GTC&quantity=0.01&price=61000`,
      }).then((r) => {
        answered.push("order");
        return r;
      });
      // The order is in the live state (not committed) once the server has taken it: only then is
      // the read sent, however long a loaded machine takes to get there.
      await expect.poll(() => durable.exchange.openOrders(maker.id).length).toBe(1);
      const open = sendSigned(
        durable.url,
        { ...maker, method: "GET", path: "/api/v3/openOrders", query: `symbol=${SYMBOL}` },
        new Agent({ keepAlive: false }),
      ).then((r) => {
        answered.push("openOrders");
        return r;
      });
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(answered).toEqual([]);
      holder.exec("COMMIT");
      const [order, list] = await Promise.all([placed, open]);
      expect(order.status).toBe(200);
      expect((list.json as { orderId: number }[]).map((o) => o.orderId)).toEqual([
        (order.json as { orderId: number }).orderId,
      ]);
    } finally {
      if (holder.inTransaction) holder.exec("ROLLBACK");
      holder.close();
      await durable.close();
    }
  });
});
