// Client order ids in the state database: the recent ones are held in memory and reach
// client_order_ids a chunk at a time (sorted, so a chunk writes each page once). Across chunks,
// restarts and client order ids used again, a query by origClientOrderId answers as the in-memory
// server does, and a restart reads only the tail that is not in client_order_ids yet.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Exchange, type RunningServer, startServer } from "../src/index.js";
import { loadDriver } from "../src/store/driver.js";
import { StateDatabase } from "../src/store/state-database.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-client-ids-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const SYMBOL = "BTCUSDT";
const ACCOUNTS = [{ id: "maker", apiKey: "maker-key", apiSecret: "maker-secret", balances: { BTC: "1000" } }];
/** Client order ids reach client_order_ids a chunk of this many orders at a time. */
const CHUNK = 16_384;
/** More orders than a chunk, with client order ids used again across its edge. */
const ORDERS = CHUNK + 3700;
const IDS = 3000;

function server(
  statePath: string | undefined,
  clock: { now: number },
  stateSync: "normal" | "full" = "normal",
): Promise<RunningServer> {
  return startServer({
    config: { symbols: [SYMBOL], accounts: ACCOUNTS },
    empty: true,
    statePath,
    stateSync,
    now: () => clock.now,
  });
}

/** Every seventh order is sent without a client order id (it gets a generated one, which names it). */
const isGenerated = (i: number) => i % 7 === 6;

/**
 * Places and cancels an order per client order id in turn; lets batches commit now and then.
 * Returns the generated ids, the first of which a last order reuses as its own.
 */
async function trade(ex: Exchange, clock: { now: number }): Promise<string[]> {
  const generated: string[] = [];
  for (let i = 0; i < ORDERS; i += 1) {
    clock.now += 1;
    const placed = ex.newOrder("maker", {
      symbol: SYMBOL,
      side: "SELL",
      type: "LIMIT",
      timeInForce: "GTC",
      price: String(70_000 + (i % 50)),
      quantity: "0.001",
      newClientOrderId: isGenerated(i) ? undefined : `c${i % IDS}`,
    }) as { orderId: number; clientOrderId: string };
    if (isGenerated(i)) generated.push(placed.clientOrderId);
    // Every third order stays open (the newest of its client order id is then NEW, else CANCELED).
    if (i % 3 !== 0) ex.cancelOrder("maker", { symbol: SYMBOL, orderId: placed.orderId });
    else if (i >= 300) ex.cancelOrder("maker", { symbol: SYMBOL, orderId: placed.orderId - 300 });
    if (i % 97 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  clock.now += 1;
  const reused = ex.newOrder("maker", {
    symbol: SYMBOL,
    side: "SELL",
    type: "LIMIT",
    timeInForce: "GTC",
    price: "70000",
    quantity: "0.001",
    newClientOrderId: generated[0],
  }) as { orderId: number };
  ex.cancelOrder("maker", { symbol: SYMBOL, orderId: reused.orderId });
  return generated;
}

function byClientIds(ex: Exchange, generated: string[]): unknown[] {
  const ids: string[] = [];
  for (let i = 0; i < IDS + 5; i += 7) ids.push(`c${i}`);
  for (let i = 0; i < generated.length; i += 29) ids.push(generated[i] as string);
  ids.push(generated.at(-1) as string);
  return ids.map((origClientOrderId) => {
    try {
      return ex.queryOrder("maker", { symbol: SYMBOL, origClientOrderId });
    } catch (error) {
      return { error: (error as Error).message };
    }
  });
}

const T0 = 1_800_000_000_000;

/**
 * Pages of the account's orders, several across the edge between the orders in account_orders
 * (chunks, like client_order_ids) and the recent ones held by id in memory.
 */
function accountPages(ex: Exchange): unknown[] {
  const queries = [
    {},
    { orderId: 1 },
    { orderId: CHUNK - 400 },
    { orderId: CHUNK + 200 },
    { orderId: ORDERS - 300 },
    { startTime: T0 + CHUNK - 300, endTime: T0 + CHUNK + 600 },
    { endTime: T0 + CHUNK + 100 },
    { endTime: T0 + ORDERS - 200 },
  ];
  return queries.map((query) => ex.allOrders("maker", { symbol: SYMBOL, limit: 1000, ...query }));
}

describe.each(["normal", "full"] as const)("client order ids with a state database, sync %s", (sync) => {
  it("answer as in memory across chunks, client order ids used again and a restart", async () => {
    const path = join(folder, `ids-${sync}.db`);
    const clock = { now: T0 };
    const memoryClock = { ...clock };
    const memory = await server(undefined, memoryClock);
    const durable = await server(path, clock, sync);
    try {
      const generated = await trade(memory.exchange, memoryClock);
      expect(await trade(durable.exchange, clock)).toEqual(generated);
      const want = byClientIds(memory.exchange, generated);
      expect(want.filter((o) => (o as { orderId?: number }).orderId !== undefined)).toHaveLength(
        want.length - 1,
      );
      // The first generated id was used again by the last order, which the query answers.
      expect((want[Math.ceil((IDS + 5) / 7)] as { orderId: number }).orderId).toBe(ORDERS + 1);
      expect(byClientIds(durable.exchange, generated)).toEqual(want);
      const pages = accountPages(memory.exchange);
      expect(pages.map((p) => (p as unknown[]).length)).toEqual([
        1000, 1000, 1000, 1000, 302, 901, 1000, 1000,
      ]);
      expect(accountPages(durable.exchange)).toEqual(pages);
      await durable.close();
      const db = new (loadDriver())(path, { readonly: true });
      const below = db.prepare("SELECT client_ids_below AS n FROM symbols").get() as { n: number };
      const indexed = db.prepare("SELECT count(*) AS n FROM client_order_ids").get() as { n: number };
      db.close();
      // A chunk went in once the symbol's next order id was CHUNK or more past its mark (0 for a new
      // symbol, whose ids start at 1); the tail after it, shorter, did not. When the chunk is cut
      // depends on where the batches end, which the commits' timing decides, so only these bounds
      // are certain: a batch may end exactly at next id CHUNK.
      expect(below.n).toBeGreaterThanOrEqual(CHUNK);
      // Orders 1 to below - 1 are in; a generated id names its order and has no row.
      let generatedBelow = 0;
      for (let i = 0; i < below.n - 1; i += 1) if (isGenerated(i)) generatedBelow += 1;
      expect(indexed.n).toBe(below.n - 1 - generatedBelow);
      // Orders below.n on (the last one reuses a generated id) are the tail.
      const tail = ORDERS + 1 - (below.n - 1);
      expect(tail).toBeLessThan(CHUNK);
      const again = await server(path, clock, sync);
      try {
        expect(byClientIds(again.exchange, generated)).toEqual(want);
        expect(accountPages(again.exchange)).toEqual(pages);
      } finally {
        await again.close();
      }
      const reopened = await StateDatabase.open(path);
      try {
        reopened.load(() => clock.now);
        // The live state (about 100 open orders, balances, ...) and the tail.
        expect(reopened.loadStats.rows).toBeGreaterThanOrEqual(tail);
        expect(reopened.loadStats.rows).toBeLessThan(tail + 200);
      } finally {
        await reopened.close();
      }
    } finally {
      await memory.close();
      await durable.close();
    }
  });
});
