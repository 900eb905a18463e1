/**
 * The read statements of reads.ts on the main thread's connection, each prepared when first used
 * (per symbol for the SQL that names a symbol's own tables), with a count of the rows they read;
 * and the keys of a symbol's rows (its position × 2^40 + the id, see rows.ts).
 */
import type { Database, Statement } from "./driver.js";
import { HISTORY_READS, OTHER_READS } from "./reads.js";
import { ID_SPAN, rowKey } from "./rows.js";
import { onSymbolTables, statementsOn } from "./schema.js";

/** Rows read since the last load began, to show that loading does not depend on the size of the history. */
export interface LoadStats {
  rows: number;
}

/** The tables whose time bounds are found through their ids (statements `<table>IdFrom`, `<table>IdLast`). */
export type IdTable = "order" | "trade" | "aggTrade";

export interface IdTime {
  id: number;
  time: number;
}

const READS: Record<string, string> = { ...HISTORY_READS, ...OTHER_READS };

/** The reads on a symbol's own tables. */
const SYMBOL_READS = new Set(Object.keys(READS).filter((name) => onSymbolTables(READS[name] as string)));

export class TableReads {
  readonly loadStats: LoadStats = { rows: 0 };
  /** Each symbol's position, which names its tables and leads its rows' keys. */
  readonly symbolPositions = new Map<string, number>();
  private readonly statementOf: (sql: string, position: number) => Statement;

  constructor(readonly db: Database) {
    this.statementOf = statementsOn(db);
  }

  /** The key of the symbol's row with this id (orders, trades, aggregate trades). */
  key(symbol: string, id: number): number {
    return rowKey(this.symbolPositions.get(symbol) ?? -1, id);
  }

  /** The keys of the symbol's rows: [first, above the last]. */
  span(symbol: string): [number, number] {
    return [this.key(symbol, 0), this.key(symbol, ID_SPAN)];
  }

  /** The keys of the symbol's ids [lowest, above the last]. */
  keys(symbol: string, [low, high]: [number, number]): [number, number] {
    return [this.key(symbol, low), this.key(symbol, high)];
  }

  metaValue(key: string): string | undefined {
    return (this.statement("metaValue").get(key) as { value: string } | undefined)?.value;
  }

  /** The symbol's newest row of the table, with its id and time. */
  lastIdTime(table: IdTable, symbol: string): IdTime | undefined {
    return this.row<IdTime, IdTime>(`${table}IdLast`, this.span(symbol), (r) => r, symbol);
  }

  all<R>(name: string, params: unknown[], symbol?: string): R[] {
    const rows = this.statement(name, symbol).all(...params) as R[];
    this.loadStats.rows += rows.length;
    return rows;
  }

  rows<R, T>(name: string, params: unknown[], map: (row: R) => T, symbol?: string): T[] {
    const rows = this.statement(name, symbol).all(...params) as R[];
    this.loadStats.rows += rows.length;
    return rows.map(map);
  }

  row<R, T>(name: string, params: unknown[], map: (row: R) => T, symbol?: string): T | undefined {
    const row = this.statement(name, symbol).get(...params) as R | undefined;
    this.loadStats.rows += row ? 1 : 0;
    return row === undefined ? undefined : map(row);
  }

  /**
   * The read statement `name` (of HISTORY_READS or OTHER_READS); on the tables of `symbol` when
   * its SQL names a symbol's tables. Prepared when first used.
   */
  private statement(name: string, symbol?: string): Statement {
    const sql = READS[name];
    if (sql === undefined) throw new Error(`no read statement named ${name}`);
    if (!SYMBOL_READS.has(name)) return this.statementOf(sql, 0);
    const position = this.symbolPositions.get(symbol ?? "");
    if (position === undefined)
      throw new Error(`read ${name} is on a symbol's tables, and symbol ${symbol} has none`);
    return this.statementOf(sql, position);
  }
}
