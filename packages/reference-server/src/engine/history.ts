/**
 * Where an exchange keeps what it no longer needs to match: every order (for allOrders and
 * lookups of closed orders), every trade and aggregate trade. The engine itself keeps only live
 * state (books, open orders, balances, counters, rolling statistics). `MemoryHistory` keeps the
 * history in compact rows; the server's state database implements the same interface on SQLite.
 */
import { CANDLE_LEVELS, type Candle } from "./candles.js";
import { generatedOrderId } from "./client-order-ids.js";
import {
  AggTradeTable,
  CandleTable,
  Interner,
  NumberList,
  OrderTable,
  RECORDED,
  TradeTable,
} from "./history-rows.js";
import type { ChangeSet } from "./journal.js";
import { firstAtLeast, type PageQuery, pageRange } from "./paging.js";
import type { AggTrade, Order, Trade } from "./types.js";

export interface AccountTradesQuery extends PageQuery {
  orderId?: number | undefined;
  /**
   * Times every wanted trade lies in (inclusive): the lifetime of the order `orderId` names. It
   * narrows the search and leaves the paging rule alone (unlike startTime and endTime).
   */
  within?: { from: number; to: number } | undefined;
}

export interface History {
  /** Takes in what one operation changed. */
  record(changes: ChangeSet, now: number): void;
  /** Any order of the symbol, open or closed. */
  order(symbol: string, orderId: number): Order | undefined;
  /** The newest order of the account on the symbol with that client order id. */
  latestByClientOrderId(accountId: string, symbol: string, clientOrderId: string): Order | undefined;
  /** The account's orders on the symbol, paged by the §1.6 rule (fromId is an orderId). */
  orders(accountId: string, symbol: string, query: PageQuery, limit: number): Order[];
  /** Trades from `fromId` on, oldest first; the most recent `limit` trades without it. */
  trades(symbol: string, fromId: number | undefined, limit: number): Trade[];
  /** Trades with `from <= time < to`, oldest first. */
  tradesBetween(symbol: string, from: number, to: number): Trade[];
  /** The last trade before `time`. */
  lastTradeBefore(symbol: string, time: number): Trade | undefined;
  aggTrades(symbol: string, query: PageQuery, limit: number): AggTrade[];
  /** Trades in which the account took part (as buyer or seller), paged by trade id. */
  accountTrades(accountId: string, symbol: string, query: AccountTradesQuery, limit: number): Trade[];
  /** Candles of a stored level (CANDLE_LEVELS) with `from <= openTime < to`, oldest first. */
  candles(symbol: string, level: number, from: number, to: number): Candle[];
  /** The newest candle of the level that opens before `time`. */
  candleBefore(symbol: string, level: number, time: number): Candle | undefined;
  /** The oldest candle of the level. */
  firstCandle(symbol: string, level: number): Candle | undefined;
}

/** The level whose candles retention forgets with the trades (the others are kept: a few a day). */
export const PRUNED_CANDLE_LEVEL = CANDLE_LEVELS[0] as number;

interface SymbolHistory {
  orders: OrderTable;
  trades: TradeTable;
  aggTrades: AggTradeTable;
  /** Candles of each stored level (index as CANDLE_LEVELS). */
  candles: CandleTable[];
  accounts: Map<string, AccountHistory>;
}

/** One account's history on one symbol. */
interface AccountHistory {
  /** The account's index in the history's interned account names. */
  index: number;
  /** Its orderIds, oldest first. */
  orderIds: NumberList;
  /**
   * The orderId of the newest order for each client order id, of the orders whose id does not
   * name them (see client-order-ids.ts: a generated id is found by decoding it).
   */
  byClientOrderId: Map<string, number>;
  /** The rows (in the symbol's TradeTable) of the trades it took part in, oldest first (a self-trade once). */
  tradeRows: NumberList;
}

/** The order, if it is the account's and has that client order id (what a decoded id names). */
export function namedOrder(
  order: Order | undefined,
  accountId: string,
  clientOrderId: string,
): Order | undefined {
  return order && order.accountId === accountId && order.clientOrderId === clientOrderId ? order : undefined;
}

const PRUNE_EVERY_MS = 60_000;

/**
 * History in memory, in compact rows (history-rows.ts). Without `retentionMs` it grows with
 * every order and trade; with it, trades and closed orders older than that are forgotten
 * (checked once a minute).
 *
 * Every read is a map lookup or a binary search plus the rows it returns, never a walk over the
 * history (test/engine/history-reads.test.ts counts the fields each read touches).
 */
export class MemoryHistory implements History {
  private readonly symbols = new Map<string, SymbolHistory>();
  /** The symbol recorded last: an operation's orders and trades are mostly of one symbol. */
  private lastSymbol: { name: string; history: SymbolHistory } | undefined;
  private readonly accountNames = new Interner();
  private readonly assetNames = new Interner();
  private lastPrune = 0;

  constructor(private readonly retentionMs?: number) {}

  record(changes: ChangeSet, now: number): void {
    for (const order of changes.orders) this.recordOrder(order);
    for (const trade of changes.trades) this.recordTrade(trade);
    for (const agg of changes.aggTrades) this.symbol(agg.symbol).aggTrades.record(agg);
    if (this.retentionMs !== undefined && now - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now;
      this.prune(now - this.retentionMs);
    }
  }

  order(symbol: string, orderId: number): Order | undefined {
    return this.symbols.get(symbol)?.orders.get(orderId);
  }

  /** The newer of: the order the map holds for the id, and the order the id names if it decodes to one. */
  latestByClientOrderId(accountId: string, symbol: string, clientOrderId: string): Order | undefined {
    const mappedId = this.symbols.get(symbol)?.accounts.get(accountId)?.byClientOrderId.get(clientOrderId);
    const mapped = mappedId === undefined ? undefined : this.order(symbol, mappedId);
    const id = generatedOrderId(clientOrderId);
    const named = id === undefined ? undefined : namedOrder(this.order(symbol, id), accountId, clientOrderId);
    return named && (!mapped || named.orderId > mapped.orderId) ? named : mapped;
  }

  orders(accountId: string, symbol: string, query: PageQuery, limit: number): Order[] {
    const ids = this.symbols.get(symbol)?.accounts.get(accountId)?.orderIds;
    const table = this.symbols.get(symbol)?.orders;
    if (!ids || !table) return [];
    const keys = {
      count: ids.count,
      id: (i: number) => ids.at(i),
      time: (i: number) => table.timeOf(ids.at(i)),
    };
    return rowsOf(pageRange(keys, query, limit), (i) => table.get(ids.at(i)) as Order);
  }

  trades(symbol: string, fromId: number | undefined, limit: number): Trade[] {
    const trades = this.symbols.get(symbol)?.trades;
    if (!trades) return [];
    const at = (i: number) => trades.at(i);
    if (fromId === undefined) return rowsOf([Math.max(trades.count - limit, 0), trades.count], at);
    const start = firstAtLeast(trades.count, (i) => trades.idAt(i), fromId);
    return rowsOf([start, Math.min(start + limit, trades.count)], at);
  }

  tradesBetween(symbol: string, from: number, to: number): Trade[] {
    const trades = this.symbols.get(symbol)?.trades;
    if (!trades) return [];
    const time = (i: number) => trades.timeAt(i);
    const range = [firstAtLeast(trades.count, time, from), firstAtLeast(trades.count, time, to)] as const;
    return rowsOf(range, (i) => trades.at(i));
  }

  lastTradeBefore(symbol: string, time: number): Trade | undefined {
    const trades = this.symbols.get(symbol)?.trades;
    if (!trades) return undefined;
    const index = firstAtLeast(trades.count, (i) => trades.timeAt(i), time) - 1;
    return index < 0 ? undefined : trades.at(index);
  }

  aggTrades(symbol: string, query: PageQuery, limit: number): AggTrade[] {
    const aggs = this.symbols.get(symbol)?.aggTrades;
    if (!aggs) return [];
    const keys = { count: aggs.count, id: (i: number) => aggs.idAt(i), time: (i: number) => aggs.timeAt(i) };
    return rowsOf(pageRange(keys, query, limit), (i) => aggs.at(i));
  }

  /** The account's own trades, searched; an orderId filters them (myTrades is no HTTP operation). */
  accountTrades(accountId: string, symbol: string, query: AccountTradesQuery, limit: number): Trade[] {
    const rows = this.symbols.get(symbol)?.accounts.get(accountId)?.tradeRows;
    const trades = this.symbols.get(symbol)?.trades;
    if (!rows || !trades) return [];
    const { orderId } = query;
    // An orderId filter walks the account's trades within the order's lifetime.
    const own =
      orderId === undefined ? undefined : ownTradeIndexes(rows, trades, accountId, orderId, query.within);
    const indexAt = own ? (i: number) => own[i] as number : (i: number) => rows.at(i) - trades.dropped;
    const count = own ? own.length : rows.count;
    const keys = {
      count,
      id: (i: number) => trades.idAt(indexAt(i)),
      time: (i: number) => trades.timeAt(indexAt(i)),
    };
    return rowsOf(pageRange(keys, query, limit), (i) => trades.at(indexAt(i)));
  }

  candles(symbol: string, level: number, from: number, to: number): Candle[] {
    const table = this.candleTable(symbol, level);
    if (!table) return [];
    const open = (i: number) => table.openTimeAt(i);
    const range = [firstAtLeast(table.count, open, from), firstAtLeast(table.count, open, to)] as const;
    return rowsOf(range, (i) => table.at(i));
  }

  candleBefore(symbol: string, level: number, time: number): Candle | undefined {
    const table = this.candleTable(symbol, level);
    if (!table) return undefined;
    const index = firstAtLeast(table.count, (i) => table.openTimeAt(i), time) - 1;
    return index < 0 ? undefined : table.at(index);
  }

  firstCandle(symbol: string, level: number): Candle | undefined {
    const table = this.candleTable(symbol, level);
    return table && table.count > 0 ? table.at(0) : undefined;
  }

  private candleTable(symbol: string, level: number): CandleTable | undefined {
    const index = CANDLE_LEVELS.indexOf(level);
    if (index < 0) throw new RangeError(`${level} ms is not a stored candle level`);
    return this.symbols.get(symbol)?.candles[index];
  }

  /** Every order and trade held, per symbol (for tests and diagnostics). */
  contents(): { symbol: string; orders: Order[]; trades: Trade[] }[] {
    return [...this.symbols].map(([symbol, h]) => ({
      symbol,
      orders: h.orders.values(),
      trades: rowsOf([0, h.trades.count], (i) => h.trades.at(i)),
    }));
  }

  private recordOrder(order: Order): void {
    const symbol = this.symbol(order.symbol);
    const recorded = symbol.orders.record(order);
    if (recorded === RECORDED.known) return;
    const account = this.account(symbol, order.accountId);
    account.orderIds.push(order.orderId);
    // An order keeps its client order id for life, and it is set before the order is recorded.
    if (recorded === RECORDED.namedByClient) account.byClientOrderId.set(order.clientOrderId, order.orderId);
  }

  private recordTrade(trade: Trade): void {
    const symbol = this.symbol(trade.symbol);
    const buyer = this.account(symbol, trade.buyer.accountId);
    const seller =
      trade.seller.accountId === trade.buyer.accountId ? buyer : this.account(symbol, trade.seller.accountId);
    const row = symbol.trades.append(trade, buyer.index, seller.index);
    buyer.tradeRows.push(row);
    if (seller !== buyer) seller.tradeRows.push(row);
    CANDLE_LEVELS.forEach((level, i) => {
      (symbol.candles[i] as CandleTable).addTrade(trade, level);
    });
  }

  private symbol(name: string): SymbolHistory {
    if (this.lastSymbol?.name === name) return this.lastSymbol.history;
    let history = this.symbols.get(name);
    if (!history) {
      history = {
        orders: new OrderTable(name, this.accountNames),
        trades: new TradeTable(name, this.accountNames, this.assetNames),
        aggTrades: new AggTradeTable(name),
        candles: CANDLE_LEVELS.map(() => new CandleTable()),
        accounts: new Map(),
      };
      this.symbols.set(name, history);
    }
    this.lastSymbol = { name, history };
    return history;
  }

  private account(symbol: SymbolHistory, accountId: string): AccountHistory {
    let history = symbol.accounts.get(accountId);
    if (!history) {
      history = {
        index: this.accountNames.index(accountId),
        orderIds: new NumberList(),
        byClientOrderId: new Map(),
        tradeRows: new NumberList(),
      };
      symbol.accounts.set(accountId, history);
    }
    return history;
  }

  private prune(cutoff: number): void {
    for (const history of this.symbols.values()) {
      const { trades, aggTrades } = history;
      trades.dropFront(firstAtLeast(trades.count, (i) => trades.timeAt(i), cutoff));
      aggTrades.dropFront(firstAtLeast(aggTrades.count, (i) => aggTrades.timeAt(i), cutoff));
      const seconds = history.candles[CANDLE_LEVELS.indexOf(PRUNED_CANDLE_LEVEL)] as CandleTable;
      // A candle is forgotten once its whole second is before the cutoff.
      seconds.dropFront(
        firstAtLeast(seconds.count, (i) => seconds.openTimeAt(i), cutoff - PRUNED_CANDLE_LEVEL + 1),
      );
      history.orders.prune(cutoff);
    }
    for (const { orders, trades, accounts } of this.symbols.values()) {
      for (const history of accounts.values()) {
        history.orderIds.keepWhere((orderId) => orders.has(orderId));
        history.tradeRows.keepWhere((row) => row >= trades.dropped);
        // A client order id is reused only once its order is closed, so an older order with it is gone too.
        for (const [id, orderId] of history.byClientOrderId)
          if (!orders.has(orderId)) history.byClientOrderId.delete(id);
      }
    }
  }
}

/** The account's trades with its order `orderId`, as indexes into the symbol's trades. */
function ownTradeIndexes(
  rows: NumberList,
  trades: TradeTable,
  accountId: string,
  orderId: number,
  within: { from: number; to: number } | undefined,
): number[] {
  const indexes: number[] = [];
  const time = (i: number) => trades.timeAt(rows.at(i) - trades.dropped);
  const first = within === undefined ? 0 : firstAtLeast(rows.count, time, within.from);
  const end = within === undefined ? rows.count : firstAtLeast(rows.count, time, within.to + 1);
  for (let i = first; i < end; i += 1) {
    const index = rows.at(i) - trades.dropped;
    if (trades.involves(index, accountId, orderId)) indexes.push(index);
  }
  return indexes;
}

/** The objects of positions [first, end). */
function rowsOf<T>([first, end]: readonly [number, number], at: (index: number) => T): T[] {
  const rows: T[] = [];
  for (let index = first; index < end; index += 1) rows.push(at(index));
  return rows;
}
