// The write runner groups consecutive writes of one kind into multi-row statements: the tables
// must end up exactly as when each write runs on its own, with fewer statements run.
import { describe, expect, it } from "vitest";
import { defineClientIdFunctions } from "../src/store/client-ids.js";
import { type Database, loadDriver, type Statement } from "../src/store/driver.js";
import { ID_SPAN, keyPosition, WRITES, type WriteName, type WriteOp } from "../src/store/rows.js";
import { inSymbolTables, migrate, onSymbolTables, symbolTablesSql } from "../src/store/schema.js";
import { writeRunner } from "../src/store/write-runner.js";

const TABLES = ["meta", "symbols", "balances", "fees", "trade_minutes"];
const SYMBOL_TABLES = ["orders", "trades", "agg_trades"].flatMap((t) => [`${t}_0`, `${t}_1`]);

/** A database with the tables of the symbols at positions 0 and 1. */
function freshDb(): Database {
  const db = new (loadDriver())(":memory:");
  migrate(db);
  db.exec(symbolTablesSql(0));
  db.exec(symbolTablesSql(1));
  return db;
}

/** Counts the statements run on `db` from now on. */
function countRuns(db: Database): { runs: number } {
  const counter = { runs: 0 };
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql) as Statement;
    const run = statement.run.bind(statement);
    statement.run = ((...params: unknown[]) => {
      counter.runs += 1;
      return run(...params);
    }) as Statement["run"];
    return statement;
  }) as Database["prepare"];
  return counter;
}

function dump(db: Database): Record<string, unknown[]> {
  return Object.fromEntries(
    [...TABLES, ...SYMBOL_TABLES].map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all()]),
  );
}

/** A trade of the symbol at `position` (0: BTCUSDT, 1: ETHUSDT). */
function trade(id: number, position = 0): WriteOp {
  return [
    "trade",
    position * ID_SPAN + id,
    position === 0 ? "BTCUSDT" : "ETHUSDT",
    id,
    "1.5",
    "0.1",
    "0.15",
    1000 + id,
    id % 2,
    "a",
    2 * id,
    "0",
    "BTC",
    "b",
    2 * id + 1,
    "0",
    "USDT",
  ];
}

function order(id: number, status: string, executed: string): WriteOp {
  return [
    "order",
    id,
    "BTCUSDT",
    id,
    "a",
    `c${id}`,
    "BUY",
    "LIMIT",
    "GTC",
    "1.5",
    "0.1",
    "0",
    executed,
    "0",
    "0",
    "0",
    null,
    status,
    1,
    1000 + id,
    1000 + id,
    1000 + id,
    null,
    null,
    "0.15",
    id,
  ];
}

const batches: { given: string; ops: WriteOp[]; statements: number }[] = [
  {
    given: "orders, trades, balances and meta of a batch, each kind consecutive",
    ops: [
      order(1, "NEW", "0"),
      order(2, "FILLED", "0.1"),
      trade(1),
      trade(2),
      ["balance", "a", "BTC", "1", "0", 1001],
      ["balance", "a", "USDT", "2", "0.5", 1002],
      ["meta", "random_state", "7"],
      ["meta", "last_event_time", "1002"],
    ],
    statements: 4,
  },
  {
    given: "one key twice in a group (the later write wins, as one by one)",
    ops: [order(3, "NEW", "0"), order(3, "FILLED", "0.1"), ["meta", "k", "1"], ["meta", "k", "2"]],
    statements: 2,
  },
  {
    given: "a group larger than one statement's rows, and kinds that alternate",
    ops: [
      ...Array.from({ length: 150 }, (_, i) => trade(10 + i)),
      ["fee", "BTC", "1"],
      ["meta", "x", "1"],
      ["fee", "BTC", "2"],
      ["pruneMinutes", 0],
    ],
    statements: 3 + 4,
  },
  {
    given: "trades of two symbols: a group ends where the symbol changes (each has its own table)",
    ops: [trade(1), trade(2), trade(1, 1), trade(2, 1), trade(3)],
    statements: 3,
  },
];

describe("writeRunner", () => {
  it.each(batches)("$given: same rows as one write at a time", ({ ops, statements }) => {
    const oneByOne = freshDb();
    defineClientIdFunctions(oneByOne);
    const single = (name: WriteName, params: unknown[]): Statement =>
      oneByOne.prepare(
        onSymbolTables(WRITES[name])
          ? inSymbolTables(WRITES[name], keyPosition(params[0] as number))
          : WRITES[name],
      );
    for (const [name, ...params] of ops) single(name, params).run(...params);

    const grouped = freshDb();
    const counter = countRuns(grouped);
    writeRunner(grouped)(ops);

    expect(dump(grouped)).toEqual(dump(oneByOne));
    expect(counter.runs).toBe(statements);
    expect(counter.runs).toBeLessThan(ops.length);
  });
});
