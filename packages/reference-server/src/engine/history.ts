/**
 * Where an exchange keeps what it no longer needs to match: every order (for allOrders and
 * lookups of closed orders), every trade and aggregate trade. The engine itself keeps only live
 * state (books, open orders, balances, counters, rolling statistics). `MemoryHistory` keeps the
 * history in arrays; the server's state database implements the same interface on SQLite.
 */
import { generatedOrderId, namesItsOrder } from "./client-order-ids.js";
import type { ChangeSet } from "./journal.js";
import { lowerBound } from "./market.js";
import { type PageQuery, pageOldestFirst } from "./paging.js";
import { type AggTrade, isOpen, type Order, type Trade } from "./types.js";

export interface AccountTradesQuery extends PageQuery {
  orderId?: number | undefined;
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
}

interface SymbolHistory {
  orders: OrdersById;
  trades: Trade[];
  aggTrades: AggTrade[];
}

/** One account's history on one symbol. */
interface AccountHistory {
  /** Oldest first. */
  orders: Order[];
  /**
   * The newest order for each client order id, of the orders whose id does not name them (see
   * client-order-ids.ts: a generated id is found by decoding it).
   */
  byClientOrderId: Map<string, Order>;
  /** The trades the account took part in, oldest first (a self-trade once). */
  trades: Trade[];
}

/** The order, if it is the account's and has that client order id (what a decoded id names). */
export function namedOrder(
  order: Order | undefined,
  accountId: string,
  clientOrderId: string,
): Order | undefined {
  return order && order.accountId === accountId && order.clientOrderId === clientOrderId ? order : undefined;
}

const ORDER_KEYS = { id: (o: Order) => o.orderId, time: (o: Order) => o.time };
const TRADE_KEYS = { id: (t: Trade) => t.id, time: (t: Trade) => t.time };
const AGG_KEYS = { id: (a: AggTrade) => a.id, time: (a: AggTrade) => a.time };
const PRUNE_EVERY_MS = 60_000;

/**
 * History in memory. Without `retentionMs` it grows with every order and trade; with it, trades
 * and closed orders older than that are forgotten (checked once a minute).
 *
 * Every read is a map lookup or a binary search plus the rows it returns, never a walk over the
 * history (test/engine/history-reads.test.ts counts the items each read touches).
 */
export class MemoryHistory implements History {
  private readonly symbols = new Map<string, SymbolHistory>();
  private readonly accounts = new Map<string, Map<string, AccountHistory>>();
  private lastPrune = 0;

  constructor(private readonly retentionMs?: number) {}

  record(changes: ChangeSet, now: number): void {
    for (const order of changes.orders) {
      const symbol = this.symbol(order.symbol);
      if (symbol.orders.has(order.orderId)) continue;
      symbol.orders.set(order.orderId, order);
      const account = this.account(order.accountId, order.symbol);
      account.orders.push(order);
      // An order keeps its client order id for life, and it is set before the order is recorded.
      if (!namesItsOrder(order.clientOrderId, order.orderId))
        account.byClientOrderId.set(order.clientOrderId, order);
    }
    for (const trade of changes.trades) {
      this.symbol(trade.symbol).trades.push(trade);
      this.account(trade.buyer.accountId, trade.symbol).trades.push(trade);
      if (trade.seller.accountId !== trade.buyer.accountId)
        this.account(trade.seller.accountId, trade.symbol).trades.push(trade);
    }
    for (const agg of changes.aggTrades) {
      const list = this.symbol(agg.symbol).aggTrades;
      if (list.at(-1) !== agg) list.push(agg);
    }
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
    const mapped = this.accounts.get(accountId)?.get(symbol)?.byClientOrderId.get(clientOrderId);
    const id = generatedOrderId(clientOrderId);
    const named = id === undefined ? undefined : namedOrder(this.order(symbol, id), accountId, clientOrderId);
    return named && (!mapped || named.orderId > mapped.orderId) ? named : mapped;
  }

  orders(accountId: string, symbol: string, query: PageQuery, limit: number): Order[] {
    const list = this.accounts.get(accountId)?.get(symbol)?.orders ?? [];
    return pageOldestFirst(list, ORDER_KEYS, query, limit);
  }

  trades(symbol: string, fromId: number | undefined, limit: number): Trade[] {
    const trades = this.symbols.get(symbol)?.trades ?? [];
    if (fromId === undefined) return trades.slice(-limit);
    const start = lowerBound(trades, TRADE_KEYS.id, fromId);
    return trades.slice(start, start + limit);
  }

  tradesBetween(symbol: string, from: number, to: number): Trade[] {
    const trades = this.symbols.get(symbol)?.trades ?? [];
    return trades.slice(lowerBound(trades, TRADE_KEYS.time, from), lowerBound(trades, TRADE_KEYS.time, to));
  }

  lastTradeBefore(symbol: string, time: number): Trade | undefined {
    const trades = this.symbols.get(symbol)?.trades ?? [];
    return trades[lowerBound(trades, TRADE_KEYS.time, time) - 1];
  }

  aggTrades(symbol: string, query: PageQuery, limit: number): AggTrade[] {
    return pageOldestFirst(this.symbols.get(symbol)?.aggTrades ?? [], AGG_KEYS, query, limit);
  }

  /** The account's own trades, searched; an orderId filters them (myTrades is no HTTP operation). */
  accountTrades(accountId: string, symbol: string, query: AccountTradesQuery, limit: number): Trade[] {
    const all = this.accounts.get(accountId)?.get(symbol)?.trades ?? [];
    const { orderId } = query;
    const own =
      orderId === undefined
        ? all
        : all.filter(
            (trade) =>
              (trade.buyer.accountId === accountId && trade.buyer.orderId === orderId) ||
              (trade.seller.accountId === accountId && trade.seller.orderId === orderId),
          );
    return pageOldestFirst(own, TRADE_KEYS, query, limit);
  }

  /** Every order and trade held, per symbol (for tests and diagnostics). */
  contents(): { symbol: string; orders: Order[]; trades: Trade[] }[] {
    return [...this.symbols].map(([symbol, h]) => ({
      symbol,
      orders: h.orders.values(),
      trades: [...h.trades],
    }));
  }

  private symbol(symbol: string): SymbolHistory {
    let history = this.symbols.get(symbol);
    if (!history) {
      history = { orders: new OrdersById(), trades: [], aggTrades: [] };
      this.symbols.set(symbol, history);
    }
    return history;
  }

  private account(accountId: string, symbol: string): AccountHistory {
    let bySymbol = this.accounts.get(accountId);
    if (!bySymbol) {
      bySymbol = new Map();
      this.accounts.set(accountId, bySymbol);
    }
    let history = bySymbol.get(symbol);
    if (!history) {
      history = { orders: [], byClientOrderId: new Map(), trades: [] };
      bySymbol.set(symbol, history);
    }
    return history;
  }

  private prune(cutoff: number): void {
    const expired = (order: Order) => !isOpen(order) && order.updateTime < cutoff;
    for (const history of this.symbols.values()) {
      history.trades.splice(0, lowerBound(history.trades, TRADE_KEYS.time, cutoff));
      history.aggTrades.splice(0, lowerBound(history.aggTrades, AGG_KEYS.time, cutoff));
      history.orders.deleteWhere(expired);
    }
    for (const bySymbol of this.accounts.values()) {
      for (const history of bySymbol.values()) {
        history.orders = history.orders.filter((o) => !expired(o));
        history.trades.splice(0, lowerBound(history.trades, TRADE_KEYS.time, cutoff));
        // A client order id is reused only once its order is closed, so an older order with it is expired too.
        for (const [id, order] of history.byClientOrderId)
          if (expired(order)) history.byClientOrderId.delete(id);
      }
    }
  }
}

/**
 * A symbol's orders by orderId. Ids are given out one after another, so they are kept in an array
 * indexed from the first id seen (a slot per order, no hash table to grow per order); an id below
 * that first one (a history filled out of order) goes to a map.
 */
class OrdersById {
  private first = -1;
  private readonly dense: (Order | undefined)[] = [];
  private readonly sparse = new Map<number, Order>();

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  get(id: number): Order | undefined {
    const index = id - this.first;
    if (this.first >= 0 && index >= 0 && index < this.dense.length) return this.dense[index];
    return this.sparse.get(id);
  }

  set(id: number, order: Order): void {
    if (this.first < 0 && Number.isSafeInteger(id) && id >= 0) this.first = id;
    const index = id - this.first;
    if (this.first >= 0 && index >= 0 && index < this.dense.length) this.dense[index] = order;
    else if (this.first >= 0 && index === this.dense.length) this.dense.push(order);
    else this.sparse.set(id, order);
  }

  deleteWhere(test: (order: Order) => boolean): void {
    for (let index = 0; index < this.dense.length; index += 1) {
      const order = this.dense[index];
      if (order !== undefined && test(order)) this.dense[index] = undefined;
    }
    for (const [id, order] of this.sparse) if (test(order)) this.sparse.delete(id);
  }

  /** Every order held: those below the first id, then the rest by id. */
  values(): Order[] {
    const held: Order[] = [...this.sparse.values()];
    for (const order of this.dense) if (order !== undefined) held.push(order);
    return held;
  }
}
