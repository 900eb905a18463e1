/**
 * Loading the state: the live state only (accounts, balances, ledger totals, counters, open
 * orders, the last trade and the rolling statistics' minute buckets), whatever the length of the
 * history, checked against the engine's invariants before the server uses it.
 *
 * All of it is read in one read transaction, so from one snapshot of the database: a commit that
 * lands while the load runs (the writer thread's, with sync "full") is either wholly seen or not
 * at all. Read piece by piece, the counters of one commit and the trades of a later one read as
 * damage ("trade id 68 is not below the next trade id 65").
 */
import {
  Account as AccountClass,
  decimal as dec,
  type ExchangeState,
  type History,
  initialState,
  registerOpenOrder,
  restoreBooks,
  type SymbolConfig,
  stateFaults,
  type TradeBucket,
  type TradeReader,
  type TradeVolume,
} from "../engine/index.js";
import type { RecentClientIds } from "./recent-client-ids.js";
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
  return tables.db.transaction(() => loadSnapshot(tables, recent, history, path))();
}

function loadSnapshot(
  tables: TableReads,
  recent: RecentClientIds,
  history: History,
  path: string,
): LoadedState {
  tables.loadStats.rows = 0;
  const symbols = tables.all<{ symbol: string; config: string } & Record<string, number>>("symbols", []);
  const meta = new Map(tables.all<{ key: string; value: string }>("meta", []).map((r) => [r.key, r.value]));
  const configs = symbols.map((row) => JSON.parse(row.config) as SymbolConfig);
  for (const row of symbols) tables.symbolPositions.set(row.symbol, row.position as number);
  const state = initialState(
    {
      maxOpenOrdersPerAccount: Number(meta.get("max_open_orders") ?? 200),
      commission: { maker: meta.get("commission_maker"), taker: meta.get("commission_taker") },
      history,
    },
    configs,
  );
  state.random.state = Number(meta.get("random_state") ?? state.random.state);
  state.lastEventTime = Number(meta.get("last_event_time") ?? 0);
  for (const row of symbols) {
    const market = state.markets.get(row.symbol);
    if (!market) continue;
    if (typeof row.next_order_id !== "number")
      throw new StateFileError(`state file ${path}: symbol ${row.symbol} has no counters`);
    market.nextOrderId = row.next_order_id as number;
    market.nextTradeId = row.next_trade_id as number;
    market.nextAggTradeId = row.next_agg_trade_id as number;
    market.nextBookSeq = row.next_book_seq as number;
    market.lastUpdateId = row.last_update_id as number;
  }
  recent.load(
    tables,
    symbols.map((row) => [row.symbol, row.client_ids_below as number]),
  );
  const accounts = loadAccounts(tables, state, path);
  for (const { symbol } of symbols) {
    for (const row of tables.all<OrderRow>("openOrders", [], symbol)) {
      try {
        registerOpenOrder(state, orderFromRow(row));
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

/** Accounts, balances and the ledger's totals; the number of accounts. */
function loadAccounts(tables: TableReads, state: ExchangeState, path: string): number {
  let count = 0;
  for (const row of tables.all<{ id: string; exempt_from_order_limits: number }>("accounts", [])) {
    state.accounts.set(
      row.id,
      new AccountClass(row.id, { exemptFromOrderLimits: row.exempt_from_order_limits === 1 }),
    );
    count += 1;
  }
  for (const row of tables.all<{
    account: string;
    asset: string;
    free: string;
    locked: string;
    update_time: number;
  }>("balances", [])) {
    const account = state.accounts.get(row.account);
    if (!account) {
      throw new StateFileError(
        `state file ${path}: balance of ${row.asset} for unknown account "${row.account}"`,
      );
    }
    account.balances.set(row.asset, { free: dec.fromPlain(row.free), locked: dec.fromPlain(row.locked) });
    account.updateTime = Math.max(account.updateTime, row.update_time);
  }
  for (const row of tables.all<{ asset: string; total: string }>("fees", [])) {
    state.ledger.fees.set(row.asset, dec.fromPlain(row.total));
  }
  for (const row of tables.all<{ asset: string; total: string }>("deposits", [])) {
    state.ledger.deposits.set(row.asset, dec.fromPlain(row.total));
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
    const bucket = bucketFromRow(row);
    market.stats.restoreMinute(bucket);
    if (bucket.minute + MINUTE_MS > last.time - AVG_WINDOW_MS) recent.push(bucket);
  }
  // Only the columns the average price needs: a minute may hold hundreds of thousands of trades.
  const read: TradeReader = (fromId, toId, limit) =>
    tables.rows<VolumeRow, TradeVolume>(
      "volumesInIds",
      [tables.key(symbol, fromId), tables.key(symbol, toId), limit],
      (r) => ({
        id: r.id,
        time: r.time,
        qty: dec.fromPlain(r.qty),
        quoteQty: dec.fromPlain(r.quote_qty),
      }),
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
