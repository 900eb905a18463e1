// A writer that opens a state file as the release before the file's claim did (the code of commit
// 9db9228^, store/state-database.ts open): no lock file, no claim, plain SQLite in WAL mode; it
// proves the file writable by writing opened_at, then reads its counters (its load), then writes
// orders the way its commits did (an upsert by key, the symbol's counters after it; each order
// cancelled, so that its account needs no balance). Run as a
// process of its own: `node --import tsx test/support/previous-release.ts FILE`; it prints one JSON
// line per event (ready, acked, closed) and takes the commands `order` and `close` on stdin.
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const require = createRequire(import.meta.url);
const Driver = require("better-sqlite3") as typeof import("better-sqlite3");

const path = process.argv[2];
if (!path) throw new Error("usage: previous-release.ts STATE-FILE");
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

// As it opened the file: SQLite's busy handler waits up to 10 s for another connection's commit
// (the release's own setting, part of what is imitated, not a limit of the test).
const busy = { timeout: 10_000 }; // time limit under test: the release before's busy wait
const db = new Driver(path, { ...busy, fileMustExist: true });
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma("wal_autocheckpoint = 0");
db.pragma("quick_check(5)");
db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('opened_at', ?)").run(String(Date.now()));
const counters = db.prepare("SELECT next_order_id AS next FROM symbol_counters WHERE symbol = 'BTCUSDT'");
let nextOrderId = (counters.get() as { next: number }).next;
say({ event: "ready", pid: process.pid, nextOrderId });

// Its order write: an upsert by key (the symbol's position 0 × 2^40 + the id), then the counters.
const upsert = db.prepare(`INSERT INTO orders_0 (key, symbol, order_id, account, client_order_id, side, type,
    time_in_force, price, orig_qty, orig_quote_order_qty, executed_qty, cummulative_quote_qty, stop_price,
    iceberg_qty, trailing, status, is_working, time, update_time, working_time, strategy_id, strategy_type,
    locked, book_seq)
  VALUES (?, 'BTCUSDT', ?, 'previous', ?, 'SELL', 'LIMIT', 'GTC', '90000', '0.001', '0', '0', '0', '0', '0',
    NULL, 'CANCELED', 0, ?, ?, ?, NULL, NULL, '0', 0)
  ON CONFLICT (key) DO UPDATE SET account = excluded.account, client_order_id = excluded.client_order_id,
    status = excluded.status`);
const advance = db.prepare("UPDATE symbol_counters SET next_order_id = ? WHERE symbol = 'BTCUSDT'");
const placeOrder = db.transaction(() => {
  const id = nextOrderId;
  const now = Date.now();
  upsert.run(id, id, `previous-${id}`, now, now, now);
  advance.run(id + 1);
  nextOrderId = id + 1;
  return id;
});

for await (const line of createInterface({ input: process.stdin })) {
  if (line === "order") say({ event: "acked", orderId: placeOrder.immediate() });
  if (line === "close") {
    db.close();
    say({ event: "closed" });
    process.exit(0);
  }
}
