/**
 * Runs write operations with few statements: consecutive operations of one kind whose statement
 * inserts one row (`INSERT … VALUES (?, …)`, upserts included) run as one multi-row INSERT, in the
 * same order, so a batch of ten orders runs one statement for its orders instead of ten. Each
 * statement run costs a call into SQLite, a bind and a reset besides its B-tree work.
 *
 * A write on a symbol's own tables (its SQL names them with placeholders) runs on the tables of
 * the symbol its first parameter, a key, belongs to; its statements are prepared per symbol.
 */
import { defineClientIdFunctions } from "./client-ids.js";
import type { Database, Statement } from "./driver.js";
import { keyPosition, type Param, WRITES, type WriteName, type WriteOp } from "./rows.js";
import { onSymbolTables, statementsOn } from "./schema.js";

/**
 * Rows in one statement at most (25 columns × 64 = 1,600 parameters, far below SQLite's limit and
 * the number of arguments a call may spread).
 */
const MOST_ROWS = 64;

/** `INSERT INTO t (…) VALUES (?, …)` then anything after the tuple (ON CONFLICT …). */
const ONE_ROW = /^(\s*INSERT INTO[^(]+\([^)]*\)\s*VALUES\s*)(\([?,\s]+\))([\s\S]*)$/;

export type WriteRunner = (ops: readonly WriteOp[]) => void;

/** The writes on a symbol's own tables. */
const ON_SYMBOL_TABLES = new Set(
  (Object.keys(WRITES) as WriteName[]).filter((name) => onSymbolTables(WRITES[name])),
);

/** The symbol position a write applies to (0 for a write that names no symbol's tables). */
function positionOf(op: WriteOp): number {
  return ON_SYMBOL_TABLES.has(op[0]) ? keyPosition(op[1] as number) : 0;
}

/** The SQL of `rows` writes named `name` in one statement; null when the write is not one row's INSERT. */
const manyRowsSql = new Map<string, string | null>();
function sqlOfRows(name: WriteName, rows: number): string | null {
  if (rows === 1) return WRITES[name];
  const key = `${name}:${rows}`;
  let sql = manyRowsSql.get(key);
  if (sql === undefined) {
    const parts = ONE_ROW.exec(WRITES[name]);
    sql = parts ? `${parts[1]}${Array(rows).fill(parts[2]).join(", ")}${parts[3]}` : null;
    manyRowsSql.set(key, sql);
  }
  return sql;
}

export function writeRunner(db: Database): WriteRunner {
  const statementOf = statementsOn(db);
  defineClientIdFunctions(db);
  /** The statement of `rows` writes named `name` on the tables of the symbol at `position`. */
  const statement = (name: WriteName, position: number, rows: number): Statement | null => {
    const sql = sqlOfRows(name, rows);
    return sql === null ? null : statementOf(sql, position);
  };
  return (ops) => {
    let i = 0;
    while (i < ops.length) {
      const op = ops[i] as WriteOp;
      const name = op[0];
      const position = positionOf(op);
      let end = i + 1;
      while (
        end < ops.length &&
        end - i < MOST_ROWS &&
        (ops[end] as WriteOp)[0] === name &&
        positionOf(ops[end] as WriteOp) === position
      )
        end += 1;
      const many = end - i > 1 ? statement(name, position, end - i) : null;
      if (!many) {
        (statement(name, position, 1) as Statement).run(...op.slice(1));
        i += 1;
        continue;
      }
      const params: Param[] = [];
      for (let k = i; k < end; k += 1) {
        const row = ops[k] as WriteOp;
        for (let j = 1; j < row.length; j += 1) params.push(row[j] as Param);
      }
      // Spread, not one array: better-sqlite3 reads an array's elements through the V8 API one by
      // one, which costs about half again as much as taking each argument.
      many.run(...params);
      i = end;
    }
  };
}
