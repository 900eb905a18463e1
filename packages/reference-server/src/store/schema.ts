/**
 * The state database's schema, versioned with SQLite's `user_version` and identified by its
 * `application_id`. Each migration takes the schema from version i to i + 1; a database written by
 * a newer version of the server is refused rather than guessed at.
 *
 * Decimals are exact text (as `decimal.toPlain` writes them). Each symbol has tables of its own for
 * its orders, trades and aggregate trades (`orders_<position>`, see symbolTablesSql), keyed by
 * `key` = the symbol's position × 2^40 + the id (ids below 2^40), so new rows are always appended
 * at the end of their table; `orders_open_<position>` is a partial index, so loading the live
 * state reads the open orders only, however long the history.
 *
 * Every history read is an index search (test/query-plans.test.ts asserts each plan). Ids and times
 * of a symbol's orders, trades and aggregate trades grow together (the engine never stamps a change
 * earlier than the last), so a time bound becomes an id bound by a binary search over the key (a
 * logarithmic number of index searches), and no table has an index by time: each commit writes
 * every page it changes, once to the WAL and once at the checkpoint, so each B-tree fewer that
 * every order or trade touches is a page fewer per commit (see migration 2 → 3).
 */
import { CANDLE_LEVELS, type Candle, CandleFolder, decimal as dec } from "../engine/index.js";
import type { Database, Statement } from "./driver.js";
import { ID_SPAN } from "./rows.js";

/** "mkta": tells a marketapi state database from any other SQLite file. */
export const APPLICATION_ID = 0x6d6b7461;

/** A migration is SQL, or a function where it depends on the data (the symbols' own tables). */
type Migration = string | ((db: Database) => void);

const MIGRATIONS: readonly Migration[] = [
  // 0 → 1
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE symbols (
    symbol TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    config TEXT NOT NULL,
    next_order_id INTEGER NOT NULL,
    next_trade_id INTEGER NOT NULL,
    next_agg_trade_id INTEGER NOT NULL,
    next_book_seq INTEGER NOT NULL,
    last_update_id INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    exempt_from_order_limits INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE balances (
    account TEXT NOT NULL,
    asset TEXT NOT NULL,
    free TEXT NOT NULL,
    locked TEXT NOT NULL,
    PRIMARY KEY (account, asset)
  ) WITHOUT ROWID;
  CREATE TABLE deposits (asset TEXT PRIMARY KEY, total TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE fees (asset TEXT PRIMARY KEY, total TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE orders (
    symbol TEXT NOT NULL,
    order_id INTEGER NOT NULL,
    account TEXT NOT NULL,
    client_order_id TEXT NOT NULL,
    side TEXT NOT NULL,
    type TEXT NOT NULL,
    time_in_force TEXT NOT NULL,
    price TEXT NOT NULL,
    orig_qty TEXT NOT NULL,
    orig_quote_order_qty TEXT NOT NULL,
    executed_qty TEXT NOT NULL,
    cummulative_quote_qty TEXT NOT NULL,
    stop_price TEXT NOT NULL,
    iceberg_qty TEXT NOT NULL,
    trailing TEXT,
    status TEXT NOT NULL,
    is_working INTEGER NOT NULL,
    time INTEGER NOT NULL,
    update_time INTEGER NOT NULL,
    working_time INTEGER NOT NULL,
    strategy_id INTEGER,
    strategy_type INTEGER,
    locked TEXT NOT NULL,
    book_seq INTEGER NOT NULL,
    PRIMARY KEY (symbol, order_id)
  ) WITHOUT ROWID;
  CREATE INDEX orders_by_account ON orders (account, symbol, order_id);
  CREATE INDEX orders_by_account_time ON orders (account, symbol, time);
  CREATE INDEX orders_by_client_id ON orders (account, symbol, client_order_id, order_id);
  CREATE INDEX orders_open ON orders (symbol, order_id) WHERE status IN ('NEW', 'PARTIALLY_FILLED');
  CREATE INDEX orders_by_time ON orders (time);
  CREATE TABLE trades (
    symbol TEXT NOT NULL,
    id INTEGER NOT NULL,
    price TEXT NOT NULL,
    qty TEXT NOT NULL,
    quote_qty TEXT NOT NULL,
    time INTEGER NOT NULL,
    is_buyer_maker INTEGER NOT NULL,
    buyer TEXT NOT NULL,
    buyer_order_id INTEGER NOT NULL,
    buyer_commission TEXT NOT NULL,
    buyer_commission_asset TEXT NOT NULL,
    seller TEXT NOT NULL,
    seller_order_id INTEGER NOT NULL,
    seller_commission TEXT NOT NULL,
    seller_commission_asset TEXT NOT NULL,
    PRIMARY KEY (symbol, id)
  ) WITHOUT ROWID;
  CREATE INDEX trades_by_time ON trades (symbol, time);
  CREATE TABLE agg_trades (
    symbol TEXT NOT NULL,
    id INTEGER NOT NULL,
    price TEXT NOT NULL,
    qty TEXT NOT NULL,
    first_trade_id INTEGER NOT NULL,
    last_trade_id INTEGER NOT NULL,
    time INTEGER NOT NULL,
    is_buyer_maker INTEGER NOT NULL,
    taker_order_id INTEGER NOT NULL,
    PRIMARY KEY (symbol, id)
  ) WITHOUT ROWID;
  CREATE INDEX agg_trades_by_time ON agg_trades (symbol, time);
  CREATE TABLE trade_minutes (
    symbol TEXT NOT NULL,
    minute INTEGER NOT NULL,
    first_id INTEGER NOT NULL,
    last_id INTEGER NOT NULL,
    count INTEGER NOT NULL,
    open TEXT NOT NULL,
    high TEXT NOT NULL,
    low TEXT NOT NULL,
    close TEXT NOT NULL,
    close_qty TEXT NOT NULL,
    volume TEXT NOT NULL,
    quote_volume TEXT NOT NULL,
    PRIMARY KEY (symbol, minute)
  ) WITHOUT ROWID;
  `,
  // 1 → 2: all_orders' time bounds become order id bounds through orders_by_symbol_time (which also
  // serves pruning per symbol), so orders_by_account_time and the global orders_by_time go: one
  // index fewer written per order.
  `
  DROP INDEX orders_by_account_time;
  DROP INDEX orders_by_time;
  CREATE INDEX orders_by_symbol_time ON orders (symbol, time);
  `,
  // 2 → 3: each commit writes every page it changes, so the tables that grow with each order are
  // shaped to change few pages:
  // - each symbol's orders, trades and aggregate trades get tables of their own (symbolTablesSql),
  //   keyed by one integer, `key` = the symbol's position × 2^40 + the id. Ids and times of a
  //   symbol grow together, so every insert goes to the end of its table's B-tree, where SQLite
  //   starts a new page instead of rebalancing its neighbours; with the symbols in one table, all
  //   but the last symbol's rows were inserted in the middle (a fifth more pages per commit);
  // - no index by time: a time bound becomes a key bound by a binary search over the key;
  // - client order ids leave the index on orders (a random key: each order dirtied a page of its
  //   own in every commit) for client_order_ids, written in large sorted chunks; the symbol's
  //   orders from client_ids_below on are not in it yet (start-up reads them, a bounded tail);
  // - likewise each account's orders leave the index orders_by_account (its entries went in at as
  //   many places as accounts traded, each a page or more per commit) for account_orders, written
  //   in the same sorted chunks;
  // - the symbols' counters leave symbols (whose rows hold each symbol's configuration, over a
  //   kilobyte: every commit encoded and compared it, and wrote one of its overflow pages) for
  //   symbol_counters, a few bytes a symbol.
  (db) => {
    db.exec(`
    CREATE TABLE client_order_ids (
      account TEXT NOT NULL,
      symbol TEXT NOT NULL,
      client_order_id TEXT NOT NULL,
      order_id INTEGER NOT NULL,
      PRIMARY KEY (account, symbol, client_order_id, order_id)
    ) WITHOUT ROWID;
    INSERT INTO client_order_ids (account, symbol, client_order_id, order_id)
      SELECT account, symbol, client_order_id, order_id FROM orders ORDER BY account, symbol, client_order_id, order_id;
    ALTER TABLE symbols ADD COLUMN client_ids_below INTEGER NOT NULL DEFAULT 0;
    UPDATE symbols SET client_ids_below = next_order_id;
    CREATE TABLE account_orders (account TEXT NOT NULL, key INTEGER NOT NULL, PRIMARY KEY (account, key)) WITHOUT ROWID;
    INSERT INTO account_orders (account, key)
      SELECT o.account, s.position * ${ID_SPAN} + o.order_id FROM orders o JOIN symbols s ON s.symbol = o.symbol ORDER BY 1, 2;
    CREATE TABLE symbol_counters (
      symbol TEXT PRIMARY KEY,
      next_order_id INTEGER NOT NULL,
      next_trade_id INTEGER NOT NULL,
      next_agg_trade_id INTEGER NOT NULL,
      next_book_seq INTEGER NOT NULL,
      last_update_id INTEGER NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO symbol_counters (symbol, next_order_id, next_trade_id, next_agg_trade_id, next_book_seq, last_update_id)
      SELECT symbol, next_order_id, next_trade_id, next_agg_trade_id, next_book_seq, last_update_id FROM symbols;
    ALTER TABLE symbols DROP COLUMN next_order_id;
    ALTER TABLE symbols DROP COLUMN next_trade_id;
    ALTER TABLE symbols DROP COLUMN next_agg_trade_id;
    ALTER TABLE symbols DROP COLUMN next_book_seq;
    ALTER TABLE symbols DROP COLUMN last_update_id;
    `);
    const symbols = db.prepare("SELECT symbol, position FROM symbols ORDER BY position").all() as {
      symbol: string;
      position: number;
    }[];
    for (const { symbol, position } of symbols) {
      db.exec(symbolTablesSql(position));
      const key = `${position} * ${ID_SPAN} +`;
      const copy = (table: string, id: string) =>
        db
          .prepare(
            `INSERT INTO ${table}_${position} SELECT ${key} ${id}, t.* FROM ${table} t WHERE t.symbol = ? ORDER BY ${id}`,
          )
          .run(symbol);
      copy("orders", "order_id");
      copy("trades", "id");
      copy("agg_trades", "id");
    }
    db.exec("DROP TABLE orders; DROP TABLE trades; DROP TABLE agg_trades;");
  },
  // 3 → 4: the account views of the sandbox (its own OpenAPI document):
  // - candles: klines built from the trades, one row per symbol, stored level (candles.ts: 1 s, 1 min,
  //   15 min, 1 h, 1 day) and open time; a commit upserts the latest candle of each level it traded in
  //   (appended at the end of each (symbol, level) range as time goes on);
  // - account_trades: each trade's key under its buyer and its seller (once for a trade between two
  //   orders of one account), so that myTrades is an index search over the account's own trades,
  //   not a walk over every trade of the symbol;
  // - balances.update_time: the exchange time of the balance's last change (the account's updateTime).
  // An existing database gets both tables filled from its trades, in key order.
  (db) => {
    db.exec(`
    CREATE TABLE candles (
      symbol TEXT NOT NULL,
      level INTEGER NOT NULL,
      open_time INTEGER NOT NULL,
      first_id INTEGER NOT NULL,
      last_id INTEGER NOT NULL,
      count INTEGER NOT NULL,
      open TEXT NOT NULL,
      high TEXT NOT NULL,
      low TEXT NOT NULL,
      close TEXT NOT NULL,
      volume TEXT NOT NULL,
      quote_volume TEXT NOT NULL,
      taker_buy_volume TEXT NOT NULL,
      taker_buy_quote_volume TEXT NOT NULL,
      PRIMARY KEY (symbol, level, open_time)
    ) WITHOUT ROWID;
    CREATE TABLE account_trades (account TEXT NOT NULL, key INTEGER NOT NULL, PRIMARY KEY (account, key)) WITHOUT ROWID;
    ALTER TABLE balances ADD COLUMN update_time INTEGER NOT NULL DEFAULT 0;
    `);
    const symbols = db.prepare("SELECT symbol, position FROM symbols ORDER BY position").all() as {
      symbol: string;
      position: number;
    }[];
    for (const { symbol, position } of symbols) {
      db.exec(
        inSymbolTables(
          `INSERT OR IGNORE INTO account_trades (account, key)
            SELECT buyer, key FROM {trades} UNION SELECT seller, key FROM {trades} ORDER BY 1, 2`,
          position,
        ),
      );
      fillCandles(db, symbol, position);
    }
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** A database's schema version, checked to be marketapi's and not newer than this server's. */
export interface SchemaVersion {
  version: number;
  /** An SQLite file without tables or marks: a new exchange may be created in it. */
  isNew: boolean;
}

/**
 * The database's schema version; throws an Error naming the problem for a file that is another
 * application's, a newer version's, or marked as marketapi's without a version.
 */
export function schemaVersion(db: Database): SchemaVersion {
  const version = db.pragma("user_version", { simple: true }) as number;
  const application = db.pragma("application_id", { simple: true }) as number;
  const tables = db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number };
  const isNew = version === 0 && application === 0 && tables.n === 0;
  if (!isNew && application !== APPLICATION_ID) {
    throw new Error("is an SQLite database of another application (its application_id is not marketapi's)");
  }
  if (version > SCHEMA_VERSION) {
    throw new Error(
      `has schema version ${version}, newer than this server's ${SCHEMA_VERSION}; use a newer @marketapi/reference-server`,
    );
  }
  if (!isNew && version === 0)
    throw Object.assign(
      new Error("is damaged: it is marked as a marketapi state database but has no schema version"),
      { code: "DAMAGED" },
    );
  return { version, isNew };
}

/**
 * Brings the database to SCHEMA_VERSION, all migrations in one transaction. Returns false for a
 * database that was empty (new); throws an Error naming the problem for a file that is another
 * application's or a newer version's.
 */
export function migrate(db: Database): boolean {
  const { version, isNew } = schemaVersion(db);
  if (version < SCHEMA_VERSION) {
    db.transaction(() => {
      for (let v = version; v < SCHEMA_VERSION; v += 1) {
        const migration = MIGRATIONS[v] as Migration;
        if (typeof migration === "string") db.exec(migration);
        else migration(db);
      }
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
  }
  return !isNew;
}

/** Fills the candles of a symbol's stored trades (migration 3 → 4), a chunk of trades at a time. */
function fillCandles(db: Database, symbol: string, position: number): void {
  const read = db.prepare(
    inSymbolTables(
      "SELECT id, price, qty, quote_qty, time, is_buyer_maker FROM {trades} WHERE key >= ? ORDER BY key LIMIT 10000",
      position,
    ),
  );
  const write =
    db.prepare(`INSERT OR REPLACE INTO candles (symbol, level, open_time, first_id, last_id, count,
    open, high, low, close, volume, quote_volume, taker_buy_volume, taker_buy_quote_volume)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const folder = new CandleFolder();
  let from = position * ID_SPAN;
  for (;;) {
    const rows = read.all(from) as {
      id: number;
      price: string;
      qty: string;
      quote_qty: string;
      time: number;
      is_buyer_maker: number;
    }[];
    if (rows.length === 0) break;
    const trades = rows.map((r) => {
      const party = { accountId: "", orderId: 0, commission: 0n, commissionAsset: "" };
      return {
        symbol,
        id: r.id,
        price: dec.fromPlain(r.price),
        qty: dec.fromPlain(r.qty),
        quoteQty: dec.fromPlain(r.quote_qty),
        time: r.time,
        isBuyerMaker: r.is_buyer_maker === 1,
        buyer: party,
        seller: party,
      };
    });
    for (const [level, c] of folder.fold(trades)) write.run(symbol, level, ...candleValues(c));
    from = position * ID_SPAN + (rows.at(-1)?.id ?? 0) + 1;
  }
  // The latest candles too: the server writes a candle once complete, and rebuilds the latest.
  for (const level of CANDLE_LEVELS) {
    const current = folder.current(level);
    if (current) write.run(symbol, level, ...candleValues(current));
  }
}

/** A candle's columns from open_time on, as the candles table orders them. */
export function candleValues(c: Candle): (number | string)[] {
  return [
    c.openTime,
    c.firstId,
    c.lastId,
    c.count,
    dec.toPlain(c.open),
    dec.toPlain(c.high),
    dec.toPlain(c.low),
    dec.toPlain(c.close),
    dec.toPlain(c.volume),
    dec.toPlain(c.quoteVolume),
    dec.toPlain(c.takerBuyVolume),
    dec.toPlain(c.takerBuyQuoteVolume),
  ];
}

/** The schema version from which each symbol has tables of its own (migration 2 → 3). */
export const SYMBOL_TABLES_SINCE = 3;

/**
 * Writes into `db` (an empty database) the schema of `version`, with the own tables of the
 * symbols at `positions` (from SYMBOL_TABLES_SINCE on): what a state file of that version holds,
 * object for object (see schema-check.ts).
 */
export function buildSchema(db: Database, version: number, positions: readonly number[]): void {
  for (let v = 0; v < version && v < MIGRATIONS.length; v += 1) {
    const migration = MIGRATIONS[v] as Migration;
    if (typeof migration === "string") db.exec(migration);
    else migration(db);
  }
  if (version >= SYMBOL_TABLES_SINCE) for (const position of positions) db.exec(symbolTablesSql(position));
}

/** The names of a symbol's own tables (see symbolTablesSql), as placeholders in SQL text. */
const SYMBOL_TABLES = {
  "{orders}": "orders",
  "{ordersOpen}": "orders_open",
  "{trades}": "trades",
  "{aggTrades}": "agg_trades",
} as const;

const PLACEHOLDER = /\{orders\}|\{ordersOpen\}|\{trades\}|\{aggTrades\}/g;

/** The stems of the names of a symbol's own tables and indexes (each ends in `_<position>`). */
export const SYMBOL_OBJECT_STEMS: readonly string[] = Object.values(SYMBOL_TABLES);

/** Whether the SQL names a symbol's own tables (through placeholders such as `{orders}`). */
export function onSymbolTables(sql: string): boolean {
  return sql.search(PLACEHOLDER) >= 0;
}

/** The SQL with the placeholders of a symbol's tables replaced by the tables of the symbol at `position`. */
export function inSymbolTables(sql: string, position: number): string {
  if (!Number.isInteger(position) || position < 0) {
    throw new Error(`a symbol's position must be a whole number from 0, not ${position}`);
  }
  return sql.replace(
    PLACEHOLDER,
    (name) => `${SYMBOL_TABLES[name as keyof typeof SYMBOL_TABLES]}_${position}`,
  );
}

/**
 * A connection's statements, each prepared when first asked for: SQL that names a symbol's own
 * tables (placeholders) once for each symbol position, other SQL once whatever the position.
 * Asked for by the same SQL strings (the constants of rows.ts and reads.ts), so a lookup hashes
 * each text once.
 */
export function statementsOn(db: Database): (sql: string, position: number) => Statement {
  const prepared = new Map<string, { onSymbols: boolean; byPosition: Statement[] }>();
  return (sql, position) => {
    let entry = prepared.get(sql);
    if (!entry) {
      entry = { onSymbols: onSymbolTables(sql), byPosition: [] };
      prepared.set(sql, entry);
    }
    const at = entry.onSymbols ? position : 0;
    let statement = entry.byPosition[at];
    if (!statement) {
      statement = db.prepare(entry.onSymbols ? inSymbolTables(sql, position) : sql);
      entry.byPosition[at] = statement;
    }
    return statement;
  };
}

/**
 * The tables of the symbol at `position`: its orders, trades and aggregate trades, each keyed by
 * `key` (the position × 2^40 + the id), and the partial index of its open orders. Each symbol's
 * rows are a B-tree of their own, so a symbol's new rows are appended at its end whatever the
 * other symbols do. Made when the symbol is declared, before its first write (so IF NOT EXISTS:
 * a new exchange whose first commit was lost declares its symbols again).
 */
export function symbolTablesSql(position: number): string {
  return inSymbolTables(
    `
  CREATE TABLE IF NOT EXISTS {orders} (
    key INTEGER PRIMARY KEY,
    symbol TEXT NOT NULL,
    order_id INTEGER NOT NULL,
    account TEXT NOT NULL,
    client_order_id TEXT NOT NULL,
    side TEXT NOT NULL,
    type TEXT NOT NULL,
    time_in_force TEXT NOT NULL,
    price TEXT NOT NULL,
    orig_qty TEXT NOT NULL,
    orig_quote_order_qty TEXT NOT NULL,
    executed_qty TEXT NOT NULL,
    cummulative_quote_qty TEXT NOT NULL,
    stop_price TEXT NOT NULL,
    iceberg_qty TEXT NOT NULL,
    trailing TEXT,
    status TEXT NOT NULL,
    is_working INTEGER NOT NULL,
    time INTEGER NOT NULL,
    update_time INTEGER NOT NULL,
    working_time INTEGER NOT NULL,
    strategy_id INTEGER,
    strategy_type INTEGER,
    locked TEXT NOT NULL,
    book_seq INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS {ordersOpen} ON {orders} (order_id) WHERE status IN ('NEW', 'PARTIALLY_FILLED');
  CREATE TABLE IF NOT EXISTS {trades} (
    key INTEGER PRIMARY KEY,
    symbol TEXT NOT NULL,
    id INTEGER NOT NULL,
    price TEXT NOT NULL,
    qty TEXT NOT NULL,
    quote_qty TEXT NOT NULL,
    time INTEGER NOT NULL,
    is_buyer_maker INTEGER NOT NULL,
    buyer TEXT NOT NULL,
    buyer_order_id INTEGER NOT NULL,
    buyer_commission TEXT NOT NULL,
    buyer_commission_asset TEXT NOT NULL,
    seller TEXT NOT NULL,
    seller_order_id INTEGER NOT NULL,
    seller_commission TEXT NOT NULL,
    seller_commission_asset TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS {aggTrades} (
    key INTEGER PRIMARY KEY,
    symbol TEXT NOT NULL,
    id INTEGER NOT NULL,
    price TEXT NOT NULL,
    qty TEXT NOT NULL,
    first_trade_id INTEGER NOT NULL,
    last_trade_id INTEGER NOT NULL,
    time INTEGER NOT NULL,
    is_buyer_maker INTEGER NOT NULL,
    taker_order_id INTEGER NOT NULL
  );
  `,
    position,
  );
}
