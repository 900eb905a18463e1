// Start-up reads one consistent snapshot. The load reads the counters first and the newest rows
// later; here another connection commits a trade (row and counter together, as a server's commit
// does) right after the load's first read. Read outside one transaction, the load would see the
// old counter and the new trade, and refuse a healthy database ("trade id … is not below the next
// trade id …"); read in one, it sees the state before that commit, whole.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryHistory, startServer } from "../src/index.js";
import { type Database, loadDriver, type Statement } from "../src/store/driver.js";
import { loadState } from "../src/store/load.js";
import { RecentClientIds } from "../src/store/recent-client-ids.js";
import { TableReads } from "../src/store/table-reads.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-load-snapshot-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const CONFIG = {
  symbols: ["BTCUSDT"],
  accounts: [
    { id: "bot", apiKey: "bot-key", apiSecret: "bot-secret", balances: { USDT: "1000000", BTC: "10" } },
  ],
};

/** The connection, with `afterFirstRead` run once, right after the first row any statement reads. */
function interleaved(db: Database, afterFirstRead: () => void): Database {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    afterFirstRead();
  };
  const wrap = (statement: Statement): Statement =>
    new Proxy(statement, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop !== "all" && prop !== "get") return typeof value === "function" ? value.bind(target) : value;
        return (...params: unknown[]) => {
          const result = (value as (...p: unknown[]) => unknown).apply(target, params);
          once();
          return result;
        };
      },
    });
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql));
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("loading the state", () => {
  it("reads one snapshot: a commit landing during the load is seen whole or not at all", async () => {
    const statePath = join(folder, "busy.db");
    const server = await startServer({ statePath, config: CONFIG, empty: true });
    const limit = (side: "BUY" | "SELL") =>
      ({
        symbol: "BTCUSDT",
        side,
        type: "LIMIT",
        timeInForce: "GTC",
        price: "60000",
        quantity: "0.01",
      }) as const;
    server.exchange.newOrder("bot", limit("SELL"));
    server.exchange.newOrder("bot", limit("BUY"));
    await server.close();

    const Driver = loadDriver();
    const db = new Driver(statePath);
    const other = new Driver(statePath);
    try {
      const { position } = other.prepare("SELECT position FROM symbols WHERE symbol = 'BTCUSDT'").get() as {
        position: number;
      };
      // The next trade, as a commit writes it: the row and the symbol's counter in one transaction.
      const commitTrade = other.transaction(() => {
        other
          .prepare(
            `INSERT INTO trades_${position} SELECT key + 1, symbol, id + 1, price, qty, quote_qty, time, is_buyer_maker,
              buyer, buyer_order_id, buyer_commission, buyer_commission_asset, seller, seller_order_id,
              seller_commission, seller_commission_asset FROM trades_${position} ORDER BY key DESC LIMIT 1`,
          )
          .run();
        other.prepare("UPDATE symbol_counters SET next_trade_id = next_trade_id + 1").run();
      });
      const trades = () =>
        (other.prepare(`SELECT count(*) AS n FROM trades_${position}`).get() as { n: number }).n;
      expect(trades()).toBe(1);

      const tables = new TableReads(interleaved(db, () => commitTrade()));
      const { state } = loadState(tables, new RecentClientIds(), new MemoryHistory(), statePath);
      expect(trades()).toBe(2); // the other commit did land during the load
      expect(state.markets.get("BTCUSDT")?.nextTradeId).toBe(2);
      expect(state.markets.get("BTCUSDT")?.lastTrade?.id).toBe(1);

      // A load after it sees the new trade and its counter together.
      const after = loadState(new TableReads(db), new RecentClientIds(), new MemoryHistory(), statePath);
      expect(after.state.markets.get("BTCUSDT")?.nextTradeId).toBe(3);
      expect(after.state.markets.get("BTCUSDT")?.lastTrade?.id).toBe(2);
    } finally {
      db.close();
      other.close();
    }
  });
});
