/**
 * Loading the state: the live state only (accounts, balances, ledger totals, counters, open
 * orders, the last trade and the rolling statistics' minute buckets), whatever the length of the
 * history, checked against the engine's invariants before the server uses it.
 *
 * All of it is read in one read transaction, so from one snapshot of the database: a commit that
 * lands while the load runs (the writer thread's, with sync "full") is either wholly seen or not
 * at all. Read piece by piece, the counters of one commit and the trades of a later one read as
 * damage ("trade id 68 is not below the next trade id 65").
 *
 * Every value read is checked to be one the engine takes (row-checks.ts): a row that is not is
 * refused, naming its table, row and column.
 */
import {
  Account as AccountClass,
  type ExchangeState,
  type History,
  initialState,
  registerOpenOrder,
  restoreBooks,
  stateFaults,
  type TradeBucket,
  type TradeReader,
  type TradeVolume,
} from "../engine/index.js";
import type { RecentClientIds } from "./recent-client-ids.js";
import { Columns, checkedSymbolConfig, DamagedRow } from "./row-checks.js";
import {
  aggTradeFromRow,
  type BucketRow,
  bucketFromRow,
  type OrderRow,
  orderFromRow,
  tradeFromRow,
} from "./rows.js";
import { StateFileError } from "./state-file-error.js";
import type { IdTable, TableReads } from "./table-reads.js";

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const AVG_WINDOW_MS = 5 * MINUTE_MS;

interface VolumeRow {
  id: number;
  time: number;
  qty: string;
  quote_qty: string;
}

export interface LoadedState {
  state: ExchangeState;
  /** The number of accounts stored (the next account's position). */
  accounts: number;
}

/**
 * Reads the saved exchange from one snapshot; refuses (StateFileError) a state that breaks an
 * invariant, naming every fault. `history` is the history the state's exchange will read.
 */
export function loadState(
  tables: TableReads,
  recent: RecentClientIds,
  history: History,
  path: string,
): LoadedState {
  return refusingDamage(path, () =>
    tables.db.transaction(() => loadSnapshot(tables, recent, history, path))(),
  );
}

/** Runs a read of the state file at `path`; a row it cannot take (DamagedRow) refuses the file. */
export function refusingDamage<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof DamagedRow)
      throw new StateFileError(
        `state file ${path}: is damaged: ${error.message}. It was not loaded: restore a backup (marketapi-server restore)`,
      );
    throw error;
  }
}

/** The settings of meta the load uses, each checked (the other keys are informational). */
function settingsOf(rows: { key: unknown; value: unknown }[]) {
  const meta = new Map<string, string>();
  for (const row of rows) {
    const c = new Columns(row, () => `table meta, key ${JSON.stringify(row.key)}`);
    if (typeof row.key !== "string") c.refuse("key", "a text");
    // Any text: the keys the load reads are checked below; the others are their readers' to check
    // (of any length: a state kept as JSON, say).
    meta.set(row.key as string, c.text("value", /^/, "a text"));
  }
  const setting = (key: string, pattern: RegExp, what: string): string | undefined => {
    const value = meta.get(key);
    if (value === undefined || pattern.test(value)) return value;
    throw new DamagedRow(
      `table meta, key "${key}": value holds ${JSON.stringify(value.slice(0, 40))}, where the engine takes ${what}`,
    );
  };
  const whole = /^(0|[1-9][0-9]{0,14})$/;
  return {
    maxOpenOrders: Number(setting("max_open_orders", /^[1-9][0-9]{0,6}$/, "a whole number from 1") ?? 200),
    maker: setting("commission_maker", /^[0-9]{1,20}(\.[0-9]{1,20})?$/, "a decimal"),
    taker: setting("commission_taker", /^[0-9]{1,20}(\.[0-9]{1,20})?$/, "a decimal"),
    randomState: setting("random_state", whole, "a whole number"),
    lastEventTime: setting("last_event_time", whole, "a whole number"),
  };
}

function loadSnapshot(
  tables: TableReads,
  recent: RecentClientIds,
  history: History,
  path: string,
): LoadedState {
  tables.loadStats.rows = 0;
  const symbols = tables.all<Record<string, unknown>>("symbols", []).map(checkedSymbol);
  const meta = settingsOf(tables.all<{ key: unknown; value: unknown }>("meta", []));
  for (const row of symbols) tables.symbolPositions.set(row.symbol, row.position);
  const state = initialState(
    {
      maxOpenOrdersPerAccount: meta.maxOpenOrders,
      commission: { maker: meta.maker, taker: meta.taker },
      history,
    },
    symbols.map((row) => row.config),
  );
  state.random.state = Number(meta.randomState ?? state.random.state);
  state.lastEventTime = Number(meta.lastEventTime ?? 0);
  for (const row of symbols) {
    const market = state.markets.get(row.symbol);
    if (!market) continue;
    market.nextOrderId = row.nextOrderId;
    market.nextTradeId = row.nextTradeId;
    market.nextAggTradeId = row.nextAggTradeId;
    market.nextBookSeq = row.nextBookSeq;
    market.lastUpdateId = row.lastUpdateId;
  }
  recent.load(
    tables,
    symbols.map((row) => [row.symbol, row.clientIdsBelow]),
  );
  const accounts = loadAccounts(tables, state, path);
  for (const { symbol } of symbols) {
    for (const row of tables.all<OrderRow>("openOrders", [], symbol)) {
      const order = orderFromRow(row);
      try {
        registerOpenOrder(state, order);
      } catch (error) {
        throw new StateFileError(`state file ${path}: ${(error as Error).message}`);
      }
    }
  }
  restoreBooks(state);
  for (const market of state.markets.values()) loadMarketData(tables, state, market.config.symbol);
  const faults = [...stateFaults(state), ...idFaults(tables, state)];
  if (faults.length > 0) {
    throw new StateFileError(
      `state file ${path}: is inconsistent and was not loaded:\n${faults.map((f) => `  ${f}`).join("\n")}`,
    );
  }
  return { state, accounts };
}

/** A symbol's row with its counters, each checked. */
function checkedSymbol(row: Record<string, unknown>) {
  const where = () => `table symbols, symbol ${JSON.stringify(row.symbol)}`;
  const c = new Columns(row, where);
  const symbol = c.symbol("symbol");
  if (row.next_order_id === null)
    throw new DamagedRow(`symbol ${symbol} has no counters (table symbol_counters has no row of it)`);
  const counters = new Columns(row, () => `table symbol_counters, symbol ${symbol}`);
  return {
    symbol,
    position: c.whole("position"),
    config: checkedSymbolConfig(row.config, symbol, where),
    clientIdsBelow: c.id("client_ids_below"),
    // Whole numbers in range; whether they are above the ids in use is the consistency check's.
    nextOrderId: counters.id("next_order_id"),
    nextTradeId: counters.id("next_trade_id"),
    nextAggTradeId: counters.id("next_agg_trade_id"),
    nextBookSeq: counters.whole("next_book_seq"),
    lastUpdateId: counters.whole("last_update_id"),
  };
}

/** Accounts, balances and the ledger's totals; the number of accounts. */
function loadAccounts(tables: TableReads, state: ExchangeState, path: string): number {
  let count = 0;
  for (const row of tables.all<Record<string, unknown>>("accounts", [])) {
    const c = new Columns(row, () => `table accounts, account ${JSON.stringify(row.id)}`);
    const id = c.account("id");
    state.accounts.set(
      id,
      new AccountClass(id, { exemptFromOrderLimits: c.flag("exempt_from_order_limits") }),
    );
    count += 1;
  }
  for (const row of tables.all<Record<string, unknown>>("balances", [])) {
    const c = new Columns(
      row,
      () => `table balances, account ${JSON.stringify(row.account)} ${String(row.asset)}`,
    );
    const [accountId, asset] = [c.account("account"), c.asset("asset")];
    const account = state.accounts.get(accountId);
    if (!account) {
      throw new StateFileError(`state file ${path}: balance of ${asset} for unknown account "${accountId}"`);
    }
    // Not checked to be at least 0 here: the ledger's checks name a negative balance as such.
    account.balances.set(asset, {
      free: c.decimal("free", null),
      locked: c.decimal("locked", null),
    });
    account.updateTime = Math.max(account.updateTime, c.time("update_time"));
  }
  for (const [table, totals] of [
    ["fees", state.ledger.fees],
    ["deposits", state.ledger.deposits],
  ] as const) {
    for (const row of tables.all<Record<string, unknown>>(table, [])) {
      const c = new Columns(row, () => `table ${table}, asset ${JSON.stringify(row.asset)}`);
      totals.set(c.asset("asset"), c.decimal("total", null));
    }
  }
  return count;
}

/**
 * The last trade and the rolling statistics' minute buckets. The trades of the last five minutes
 * are not read here: the average price counts them through their buckets and reads the one
 * partly expired minute later, a chunk at a time (so start-up reads as many rows for a million
 * recent trades as for ten).
 */
function loadMarketData(tables: TableReads, state: ExchangeState, symbol: string): void {
  const market = state.markets.get(symbol);
  if (!market) return;
  const last = tables.row("lastTrade", tables.span(symbol), tradeFromRow, symbol);
  market.lastTrade = last;
  market.lastAggTrade = tables.row("lastAggTrade", tables.span(symbol), aggTradeFromRow, symbol);
  if (!last) return;
  const recent: TradeBucket[] = [];
  for (const row of tables.all<BucketRow>("minutes", [symbol, last.time - DAY_MS - MINUTE_MS])) {
    const bucket = bucketFromRow(row, symbol);
    market.stats.restoreMinute(bucket);
    if (bucket.minute + MINUTE_MS > last.time - AVG_WINDOW_MS) recent.push(bucket);
  }
  // Only the columns the average price needs: a minute may hold hundreds of thousands of trades.
  const read: TradeReader = (fromId, toId, limit) =>
    tables.rows<VolumeRow, TradeVolume>(
      "volumesInIds",
      [tables.key(symbol, fromId), tables.key(symbol, toId), limit],
      (r) => {
        const c = new Columns(
          r as unknown as Record<string, unknown>,
          () => `table trades_${tables.symbolPositions.get(symbol)}, trade ${r.id}`,
        );
        return {
          id: c.id("id"),
          time: c.time("time"),
          qty: c.decimal("qty"),
          quoteQty: c.decimal("quote_qty"),
        };
      },
      symbol,
    );
  market.stats.restoreBacklog(recent, read);
}

/** Ids the database holds must be below the counters that hand out the next ones. */
function idFaults(tables: TableReads, state: ExchangeState): string[] {
  const faults: string[] = [];
  for (const market of state.markets.values()) {
    const symbol = market.config.symbol;
    const max = (table: IdTable) => tables.lastIdTime(table, symbol)?.id ?? 0;
    const checks: [string, number, number][] = [
      ["order", max("order"), market.nextOrderId],
      ["trade", max("trade"), market.nextTradeId],
      ["aggregate trade", max("aggTrade"), market.nextAggTradeId],
    ];
    for (const [what, highest, next] of checks) {
      if (highest >= next)
        faults.push(`symbol ${symbol}: ${what} id ${highest} is not below the next ${what} id ${next}`);
    }
  }
  return faults;
}
