// Every history read of the state database is an index search, never a scan or a sort: its cost
// grows with the logarithm of the history, not with its length. Asserted on SQLite's own query plans,
// for a new database and for ones written by release 0.1.0 and by schema version 2, migrated.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, loadDriver } from "../src/store/driver.js";
import { HISTORY_READS, OTHER_READS } from "../src/store/reads.js";
import { inSymbolTables, symbolTablesSql } from "../src/store/schema.js";
import { StateDatabase } from "../src/store/state-database.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-plans-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The plan of `sql`, on the tables of the symbol at position 0 where it names a symbol's tables. */
function plan(db: Database, sql: string): string[] {
  const params = Array.from(sql.matchAll(/\?/g), () => 1);
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${inSymbolTables(sql, 0)}`).all(...params) as {
    detail: string;
  }[];
  return rows.map((row) => row.detail);
}

/**
 * The plan each history read must have: an index search on every column the read constrains (a
 * search on a prefix only, such as the primary key by symbol, visits all of the symbol's rows).
 */
const WANT: Record<keyof typeof HISTORY_READS, string | string[]> = {
  order: "SEARCH {orders} USING INTEGER PRIMARY KEY (rowid=?)",
  orderIdByClientId:
    "SEARCH client_order_ids USING PRIMARY KEY (account=? AND symbol=? AND client_order_id=? AND order_id<?)",
  // The account's entries in the key range, then each order by its key.
  ordersAsc: [
    "SEARCH a USING PRIMARY KEY (account=? AND key>? AND key<?)",
    "SEARCH o USING INTEGER PRIMARY KEY (rowid=?)",
  ],
  ordersDesc: [
    "SEARCH a USING PRIMARY KEY (account=? AND key>? AND key<?)",
    "SEARCH o USING INTEGER PRIMARY KEY (rowid=?)",
  ],
  // Probes of the binary search from a time to an id: one row found by one search each.
  orderIdFrom: "SEARCH {orders} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  orderIdLast: "SEARCH {orders} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  aggTradesAsc: "SEARCH {aggTrades} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  aggTradesDesc: "SEARCH {aggTrades} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  aggTradeIdFrom: "SEARCH {aggTrades} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  aggTradeIdLast: "SEARCH {aggTrades} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  // Newest first with a LIMIT: the search starts at the symbol's last row and stops after LIMIT rows.
  recentTrades: "SEARCH {trades} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  tradesFrom: "SEARCH {trades} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  tradesBetween: "SEARCH {trades} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  tradeBefore: "SEARCH {trades} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  tradeIdFrom: "SEARCH {trades} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  tradeIdLast: "SEARCH {trades} USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  // The account's own trades in the key range (account_trades), then each trade by its key.
  accountTradesAsc: [
    "SEARCH a USING PRIMARY KEY (account=? AND key>? AND key<?)",
    "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)",
  ],
  accountTradesDesc: [
    "SEARCH a USING PRIMARY KEY (account=? AND key>? AND key<?)",
    "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)",
  ],
  candlesBetween: "SEARCH candles USING PRIMARY KEY (symbol=? AND level=? AND open_time>? AND open_time<?)",
  candleBefore: "SEARCH candles USING PRIMARY KEY (symbol=? AND level=? AND open_time<?)",
  firstCandle: "SEARCH candles USING PRIMARY KEY (symbol=? AND level=?)",
};

/** The database at `path` opened (migrated) by the server, with the tables of a symbol at position 0. */
async function opened(path: string): Promise<Database> {
  const database = await StateDatabase.open(path);
  await database.close();
  const writable = new (loadDriver())(path);
  writable.exec(symbolTablesSql(0));
  writable.close();
  return new (loadDriver())(path, { readonly: true });
}

const databases: [string, () => string, number][] = [
  ["a new database", () => join(folder, "new.db"), 1024],
  [
    "a database of release 0.1.0, migrated",
    () => {
      const path = join(folder, "v1.db");
      writeFileSync(path, gunzipSync(readFileSync(new URL("./fixtures/state-v1.db.gz", import.meta.url))));
      return path;
    },
    4096,
  ],
  [
    "a database of schema version 2, migrated",
    () => {
      const path = join(folder, "v2.db");
      writeFileSync(path, gunzipSync(readFileSync(new URL("./fixtures/state-v2.db.gz", import.meta.url))));
      return path;
    },
    1024,
  ],
];

describe.each(databases)("query plans of %s", (_, makePath, pageSize) => {
  let db: Database;
  beforeAll(async () => {
    db = await opened(makePath());
  });
  afterAll(() => db.close());

  it.each(Object.entries(HISTORY_READS))(
    "%s searches an index on every column it constrains",
    (name, sql) => {
      const want = [WANT[name as keyof typeof HISTORY_READS]].flat();
      expect(plan(db, sql)).toEqual(want.map((line) => inSymbolTables(line, 0)));
    },
  );

  it(`has ${pageSize}-byte pages (a new database's are small: each commit writes whole pages)`, () => {
    expect(db.pragma("page_size", { simple: true })).toBe(pageSize);
  });

  it("loading reads the open orders from their partial index, not every order", () => {
    expect(plan(db, OTHER_READS.openOrders)).toEqual([
      inSymbolTables("SCAN {orders} USING INDEX {ordersOpen}", 0),
    ]);
  });

  it("the check fails for the client order id lookup of release 0.1.0 (all the account's orders, sorted)", () => {
    const before =
      "SELECT * FROM {orders} WHERE account = ? AND symbol = ? AND client_order_id = ? ORDER BY order_id DESC LIMIT 1";
    expect(plan(db, before)).toEqual(["SCAN orders_0", "USE TEMP B-TREE FOR ORDER BY"]);
    expect(plan(db, before)).not.toEqual([WANT.orderIdByClientId]);
  });
});
