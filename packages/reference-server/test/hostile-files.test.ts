// A state file is data, never code. Hostile files made from a real backup (a server that traded,
// some orders resting, then a backup of its file), each changed with plain SQL: a trigger
// that deletes orders as they close, triggers on a balance and on meta (which fire at start and
// stop), a view, a table, an index, an index or a table defined otherwise, the planner's
// statistics, a virtual table; and rows the engine cannot take (a negative quantity on an open
// order, a client order id of a megabyte, text in an integer column, a symbol's configuration that is
// not one, a balance that is not a decimal, a candle row that is not one, …). Each is refused by start-up, by `restore` and by
// `backup`, naming the file and what differs or the table and row, and is left byte for byte as
// it was: nothing it holds ran. Every third file is started by `marketapi-server --state` (exit 2);
// the others in this process, where the refusal must be a StateFileError, which the command exits
// 2 with (each command start costs about a second of CPU).
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StateFileError, startServer } from "../src/index.js";
import { backupStateFile, restoreStateFile } from "../src/store/backup.js";
import { loadDriver } from "../src/store/driver.js";
import { SCHEMA_VERSION } from "../src/store/schema.js";
import { exitOrStart, runCli } from "./support/cli.js";

const folder = realpathSync(mkdtempSync(join(tmpdir(), "marketapi-hostile-")));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const ACCOUNTS = [{ id: "bot", apiKey: "bot-key", apiSecret: "bot-secret" }];
const CONFIG = { symbols: ["BTCUSDT"], accounts: ACCOUNTS };
const backup = join(folder, "backup.db");

beforeAll(async () => {
  const statePath = join(folder, "served.db");
  const server = await startServer({ statePath, config: CONFIG, empty: true });
  const order = (side: "BUY" | "SELL", price: string) =>
    server.exchange.newOrder("bot", {
      symbol: "BTCUSDT",
      side,
      type: "LIMIT",
      timeInForce: "GTC",
      price,
      quantity: "0.01",
    });
  for (let i = 0; i < 5; i += 1) order("SELL", "60000");
  for (let i = 0; i < 3; i += 1) order("BUY", "60000"); // trades with three of them
  order("BUY", "59000"); // rests
  await server.close();
  await backupStateFile(statePath, backup);
});

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** A copy of the backup changed with `sql` (then closed cleanly: no log beside it). */
function hostile(name: string, sql: string): string {
  const path = join(folder, `${name.replace(/\W+/g, "-")}.db`);
  copyFileSync(backup, path);
  const db = new (loadDriver())(path);
  db.exec(sql);
  db.close();
  expect(existsSync(`${path}-wal`)).toBe(false);
  return path;
}

/**
 * The start-up's refusal of the file at `path`, as the command prints it (after its name): by the
 * command itself (exit 2), or in this process (a StateFileError, which the command exits 2 with).
 */
async function startRefusal(path: string, byCommand: boolean): Promise<string> {
  if (byCommand) {
    const start = runCli(["--port", "0", "--state", path]);
    expect(await exitOrStart(start)).toBe(2);
    expect(start.stderr()).toMatch(/^marketapi-server: /);
    return start.stderr().replace(/^marketapi-server: /, "");
  }
  const error = await startServer({ statePath: path }).then(
    async (server) => {
      await server.close();
      return new Error("the server started");
    },
    (e: Error) => e,
  );
  expect(error).toBeInstanceOf(StateFileError);
  return error.message;
}

/** Every third case by the command, the others in this process (see the file's comment). */
function alternately<T extends unknown[]>(rows: T[]): [...T, string][] {
  return rows.map((row, i) => [...row, i % 3 === 0 ? "marketapi-server" : "startServer"]);
}

/** [what, the SQL that makes it, what the refusal must say]. */
const SCHEMAS: [string, string, RegExp][] = [
  [
    "a trigger that deletes each order as it closes",
    `CREATE TRIGGER forget_closed AFTER UPDATE OF status ON orders_0 WHEN new.status IN ('FILLED', 'CANCELED')
     BEGIN DELETE FROM orders_0 WHERE key = new.key; END`,
    /trigger forget_closed on orders_0 \(CREATE TRIGGER forget_closed .*\) is not part of this server's schema/,
  ],
  [
    "a trigger on a balance",
    "CREATE TRIGGER balance_spy AFTER UPDATE ON balances BEGIN UPDATE fees SET total = '0'; END",
    /trigger balance_spy on balances/,
  ],
  [
    "triggers on meta, at start and at stop",
    `CREATE TRIGGER at_start AFTER INSERT ON meta BEGIN DELETE FROM balances; END;
     CREATE TRIGGER at_stop AFTER DELETE ON meta BEGIN DELETE FROM balances; END`,
    /trigger at_start on meta .*; trigger at_stop on meta/,
  ],
  ["a view", "CREATE VIEW every_order AS SELECT * FROM orders_0", /view every_order/],
  ["a table", "CREATE TABLE notes (text)", /table notes \(CREATE TABLE notes\(text\)\) is not part/],
  ["an index", "CREATE INDEX balances_by_free ON balances (free)", /index balances_by_free on balances/],
  [
    "an index defined otherwise",
    "DROP INDEX orders_open_0; CREATE INDEX orders_open_0 ON orders_0 (order_id) WHERE status = 'NEW'",
    /index orders_open_0 is defined as CREATE INDEX orders_open_0 ON orders_0\(order_id\) WHERE status = 'NEW', where this server's schema has/,
  ],
  ["a column added", "ALTER TABLE fees ADD COLUMN note TEXT", /table fees is defined as .*note TEXT/],
  ["the planner's statistics", "ANALYZE", /table sqlite_stat1/],
  [
    "a virtual table",
    "CREATE VIRTUAL TABLE search USING fts5(text)",
    /table search \(CREATE VIRTUAL TABLE search/,
  ],
];

const ROWS: [string, string, RegExp][] = [
  [
    "a negative quantity on an open order",
    "UPDATE orders_0 SET orig_qty = '-1' WHERE status = 'NEW'",
    /table orders_0, order \d+: orig_qty holds the text "-1", where the engine takes a decimal of at least 0/,
  ],
  [
    "a client order id of 1 MB (one of 8 MB was once accepted)",
    "UPDATE orders_0 SET client_order_id = hex(zeroblob(524288)) WHERE status = 'NEW'",
    /table orders_0, order \d+: client_order_id holds the text "0000.*… \(1048576 characters\)/,
  ],
  [
    "text in an integer column",
    "UPDATE symbol_counters SET next_trade_id = 'many'",
    /table symbol_counters, symbol BTCUSDT: next_trade_id holds the text "many", where the engine takes a whole number/,
  ],
  [
    "a symbol's configuration that is not one",
    `UPDATE symbols SET config = '{"symbol": "BTCUSDT"}'`,
    /table symbols, symbol "BTCUSDT": config has status undefined/,
  ],
  [
    "a balance that is not a decimal",
    "UPDATE balances SET free = 'plenty' WHERE account = 'bot' AND asset = 'USDT'",
    /table balances, account "bot" USDT: free holds the text "plenty", where the engine takes a decimal/,
  ],
  [
    "an account's flag that is a text",
    "UPDATE accounts SET exempt_from_order_limits = 'yes' WHERE id = 'bot'",
    /table accounts, account "bot": exempt_from_order_limits holds the text "yes"/,
  ],
  [
    "a blob for a setting",
    "UPDATE meta SET value = zeroblob(16) WHERE key = 'last_event_time'",
    /table meta, key "last_event_time": value holds a blob of 16 bytes/,
  ],
  [
    "a balance's update time that is a text",
    "UPDATE balances SET update_time = 'now' WHERE account = 'bot' AND asset = 'USDT'",
    /table balances, account "bot" USDT: update_time holds the text "now", where the engine takes a whole number/,
  ],
  [
    "a candle whose volume is not a decimal",
    `INSERT INTO candles VALUES ('BTCUSDT', 60000, 0, 1, 1, 1, '60000', '60000', '60000', '60000',
     'lots', '600', '0.01', '600')`,
    /table candles, BTCUSDT level 60000 open time 0: volume holds the text "lots", where the engine takes a decimal/,
  ],
  [
    "an order under another order's key",
    "UPDATE orders_0 SET key = key + 1000 WHERE status = 'NEW'",
    /table orders_0, order \d+: key holds the number \d+, where the engine takes the key of order/,
  ],
];

describe("a state file whose schema is not exactly this server's", () => {
  it.each(alternately(SCHEMAS))(
    "is refused by start-up, restore and backup, and left as it was: %s (%s)",
    async (name, sql, says, by) => {
      const path = hostile(name, sql);
      const hash = sha256(path);
      const refusal = await startRefusal(path, by === "marketapi-server");
      expect(refusal).toContain(
        `state file ${path}: is damaged: it is a marketapi state database (schema version ${SCHEMA_VERSION}) whose schema is not this server's:`,
      );
      expect(refusal).toMatch(says);
      expect(refusal).toContain("nothing it holds was run");
      const restored = join(folder, `restored-${name.replace(/\W+/g, "-")}.db`);
      await expect(restoreStateFile(path, restored)).rejects.toThrow(says);
      expect(existsSync(restored)).toBe(false);
      await expect(backupStateFile(path, join(folder, "never.db"))).rejects.toThrow(says);
      expect(existsSync(join(folder, "never.db"))).toBe(false);
      expect(sha256(path)).toBe(hash);
      expect(existsSync(`${path}-wal`)).toBe(false);
    },
  );

  it("restore and backup exit 2 naming the file and the trigger", async () => {
    const path = hostile("trigger for the commands", SCHEMAS[0]?.[1] as string);
    const restore = runCli(["restore", "--from", path, "--state", join(folder, "target.db")]);
    expect(await restore.exited).toBe(2);
    expect(restore.stderr()).toContain(`marketapi-server restore: state file ${path}: is damaged`);
    expect(restore.stderr()).toContain("trigger forget_closed");
    const backupOf = runCli(["backup", "--state", path, "--out", join(folder, "copy.db")]);
    expect(await backupOf.exited).toBe(2);
    expect(backupOf.stderr()).toContain("trigger forget_closed");
  });
});

describe("a state file with rows the engine cannot take", () => {
  it.each(alternately(ROWS))(
    "is refused by start-up, restore and backup, naming the table and row: %s (%s)",
    async (name, sql, says, by) => {
      const path = hostile(name, sql);
      const hash = sha256(path);
      const refusal = await startRefusal(path, by === "marketapi-server");
      expect(refusal).toContain(`state file ${path}: is damaged: `);
      expect(refusal).toMatch(says);
      const restored = join(folder, `restored-${name.replace(/\W+/g, "-")}.db`);
      await expect(restoreStateFile(path, restored)).rejects.toThrow(says);
      expect(existsSync(restored)).toBe(false);
      await expect(backupStateFile(path, join(folder, "never.db"))).rejects.toThrow(says);
      expect(sha256(path)).toBe(hash);
    },
  );
});
