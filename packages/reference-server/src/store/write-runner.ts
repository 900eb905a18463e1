/**
 * Runs write operations with few statements: consecutive operations of one kind whose statement
 * inserts one row (`INSERT … VALUES (?, …)`, upserts included) run as one multi-row INSERT, in the
 * same order, so a batch of ten orders runs one statement for its orders instead of ten. Each
 * statement run costs a call into SQLite, a bind and a reset besides its B-tree work.
 */
import { defineClientIdFunctions } from "./client-ids.js";
import type { Database, Statement } from "./driver.js";
import { type Param, WRITES, type WriteName, type WriteOp } from "./rows.js";

/** Rows in one statement at most (25 columns × 64 = 1,600 parameters, far below SQLite's limit). */
const MOST_ROWS = 64;

/** `INSERT INTO t (…) VALUES (?, …)` then anything after the tuple (ON CONFLICT …). */
const ONE_ROW = /^(\s*INSERT INTO[^(]+\([^)]*\)\s*VALUES\s*)(\([?,\s]+\))([\s\S]*)$/;

export type WriteRunner = (ops: readonly WriteOp[]) => void;

export function writeRunner(db: Database): WriteRunner {
  const single = new Map<WriteName, Statement>();
  const multi = new Map<string, Statement>();
  defineClientIdFunctions(db);
  for (const [name, sql] of Object.entries(WRITES)) single.set(name as WriteName, db.prepare(sql));
  const rowsStatement = (name: WriteName, rows: number): Statement | undefined => {
    const key = `${name}:${rows}`;
    const known = multi.get(key);
    if (known) return known;
    const parts = ONE_ROW.exec(WRITES[name]);
    if (!parts) return undefined;
    const [, head, tuple, tail] = parts as unknown as [string, string, string, string];
    const statement = db.prepare(`${head}${Array(rows).fill(tuple).join(", ")}${tail}`);
    multi.set(key, statement);
    return statement;
  };
  return (ops) => {
    let i = 0;
    while (i < ops.length) {
      const op = ops[i] as WriteOp;
      const name = op[0];
      let end = i + 1;
      while (end < ops.length && end - i < MOST_ROWS && (ops[end] as WriteOp)[0] === name) end += 1;
      const statement = end - i > 1 ? rowsStatement(name, end - i) : undefined;
      if (!statement) {
        (single.get(name) as Statement).run(op.slice(1));
        i += 1;
        continue;
      }
      const params: Param[] = [];
      for (let k = i; k < end; k += 1) {
        const row = ops[k] as WriteOp;
        for (let j = 1; j < row.length; j += 1) params.push(row[j] as Param);
      }
      statement.run(params);
      i = end;
    }
  };
}
