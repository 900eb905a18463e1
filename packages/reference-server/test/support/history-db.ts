// A state database with a long history, written straight with SQL (the server would take minutes
// to trade a million times): for the history tests and the start-up bench.
import { CANDLE_LEVELS, CandleFolder, decimal as dec, type Trade } from "../../src/engine/index.js";
import { startServer } from "../../src/index.js";
import { candleValues } from "../../src/store/schema.js";

/** How the trades' times fall: over the last 30 days (the newest tenth in the last day), or all in the last five minutes. */
export type HistoryShape = "30-days" | "last-5-minutes";

/**
 * Writes `count` trades between two accounts' (closed) orders straight into a state database,
 * in the given shape, plus the minute buckets the server keeps for the last day, and the candles
 * and account trades it keeps of every trade.
 */
export async function databaseWithTrades(
  path: string,
  count: number,
  shape: HistoryShape = "30-days",
  now = Date.now(),
): Promise<void> {
  const NOW = now;
  const server = await startServer({ statePath: path, empty: true });
  await server.close();
  const { default: Driver } = await import("better-sqlite3");
  const db = new Driver(path);
  // Each symbol has tables of its own (orders_<position>), whose rows are keyed by the symbol's
  // position × 2^40 + the id (see src/store/schema.ts).
  const { position } = db.prepare("SELECT position FROM symbols WHERE symbol = 'BTCUSDT'").get() as {
    position: number;
  };
  const trade = db.prepare(
    `INSERT INTO trades_${position} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const order = db.prepare(
    `INSERT INTO orders_${position} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const key = (id: number) => position * 2 ** 40 + id;
  const minute = db.prepare(
    `INSERT OR REPLACE INTO trade_minutes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const recent = Math.floor(count / 10);
  const spread = (i: number) =>
    i <= count - recent
      ? NOW - 30 * 86_400_000 + Math.floor((i * 29 * 86_400_000) / (count - recent))
      : NOW - 86_000_000 + Math.floor(((i - (count - recent)) * 85_000_000) / recent);
  // The last five minutes: trades at (nearly) every millisecond, the newest at NOW - 1.
  const timeOf =
    shape === "30-days" ? spread : (i: number) => NOW - 1 - Math.floor(((count - i) * 299_000) / count);
  const buckets = new Map<number, { first: number; last: number; n: number }>();
  const candles = new CandleFolder();
  const candle = db.prepare(
    "INSERT OR REPLACE INTO candles VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const party = { accountId: "demo", orderId: 0, commission: 0n, commissionAsset: "BTC" };
  const [price, qty, quoteQty] = [dec.parse("60000"), dec.parse("0.001"), dec.parse("60")];
  db.transaction(() => {
    for (let i = 1; i <= count; i += 1) {
      const time = timeOf(i);
      trade.run(
        key(i),
        "BTCUSDT",
        i,
        "60000",
        "0.001",
        "60",
        time,
        1,
        "demo",
        2 * i,
        "0.000001",
        "BTC",
        "demo",
        2 * i - 1,
        "0.06",
        "USDT",
      );
      order.run(
        key(i),
        "BTCUSDT",
        i,
        "demo",
        `h${i}`,
        "BUY",
        "LIMIT",
        "GTC",
        "60000",
        "0.001",
        "0",
        "0.001",
        "60",
        "0",
        "0",
        null,
        "FILLED",
        1,
        time,
        time,
        time,
        null,
        null,
        "0",
        0,
      );
      const folded: Trade = {
        symbol: "BTCUSDT",
        id: i,
        price,
        qty,
        quoteQty,
        time,
        isBuyerMaker: true,
        buyer: party,
        seller: party,
      };
      for (const [level, done] of candles.fold([folded])) candle.run("BTCUSDT", level, ...candleValues(done));
      if (time >= NOW - 86_400_000 - 120_000) {
        const m = time - (time % 60_000);
        const b = buckets.get(m) ?? { first: i, last: i, n: 0 };
        b.last = i;
        b.n += 1;
        buckets.set(m, b);
      }
    }
    for (const [m, b] of buckets) {
      minute.run(
        "BTCUSDT",
        m,
        b.first,
        b.last,
        b.n,
        "60000",
        "60000",
        "60000",
        "60000",
        "0.001",
        (b.n * 0.001).toFixed(3),
        String(b.n * 60),
      );
    }
    for (const level of CANDLE_LEVELS) {
      const latest = candles.current(level);
      if (latest) candle.run("BTCUSDT", level, ...candleValues(latest));
    }
    db.prepare(
      `INSERT INTO account_trades SELECT buyer, key FROM trades_${position} UNION SELECT seller, key FROM trades_${position} ORDER BY 1, 2`,
    ).run();
    // As the server keeps them: the client order ids and account entries of the orders in their tables.
    db.prepare(`INSERT INTO account_orders SELECT account, key FROM orders_${position} ORDER BY 1, 2`).run();
    db.prepare(
      `INSERT INTO client_order_ids SELECT account, symbol, client_order_id, order_id FROM orders_${position} ORDER BY 1, 2, 3, 4`,
    ).run();
    db.prepare(
      "UPDATE symbol_counters SET next_trade_id = ?, next_order_id = ? WHERE symbol = 'BTCUSDT'",
    ).run(count + 1, count + 1);
    db.prepare("UPDATE symbols SET client_ids_below = ? WHERE symbol = 'BTCUSDT'").run(count + 1);
  })();
  db.close();
}
