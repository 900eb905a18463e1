/**
 * Where an exchange keeps what it no longer needs to match: every order (for allOrders and
 * lookups of closed orders), every trade and aggregate trade. The engine itself keeps only live
 * state (books, open orders, balances, counters, rolling statistics). `MemoryHistory` keeps the
 * history in arrays; the server's state database implements the same interface on SQLite.
 */
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
  orders: Map<number, Order>;
  trades: Trade[];
  aggTrades: AggTrade[];
}

const ORDER_KEYS = { id: (o: Order) => o.orderId, time: (o: Order) => o.time };
const TRADE_KEYS = { id: (t: Trade) => t.id, time: (t: Trade) => t.time };
const AGG_KEYS = { id: (a: AggTrade) => a.id, time: (a: AggTrade) => a.time };
const PRUNE_EVERY_MS = 60_000;

/**
 * History in memory. Without `retentionMs` it grows with every order and trade; with it, trades
 * and closed orders older than that are forgotten (checked once a minute).
 */
export class MemoryHistory implements History {
  private readonly symbols = new Map<string, SymbolHistory>();
  private readonly accounts = new Map<string, Map<string, Order[]>>();
  private lastPrune = 0;

  constructor(private readonly retentionMs?: number) {}

  record(changes: ChangeSet, now: number): void {
    for (const order of changes.orders) {
      const symbol = this.symbol(order.symbol);
      if (symbol.orders.has(order.orderId)) continue;
      symbol.orders.set(order.orderId, order);
      this.accountOrders(order.accountId, order.symbol).push(order);
    }
    for (const trade of changes.trades) this.symbol(trade.symbol).trades.push(trade);
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

  latestByClientOrderId(accountId: string, symbol: string, clientOrderId: string): Order | undefined {
    return this.accounts
      .get(accountId)
      ?.get(symbol)
      ?.findLast((order) => order.clientOrderId === clientOrderId);
  }

  orders(accountId: string, symbol: string, query: PageQuery, limit: number): Order[] {
    const list = this.accounts.get(accountId)?.get(symbol) ?? [];
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

  accountTrades(accountId: string, symbol: string, query: AccountTradesQuery, limit: number): Trade[] {
    const takesPart = (trade: Trade) =>
      (trade.buyer.accountId === accountId &&
        (query.orderId === undefined || trade.buyer.orderId === query.orderId)) ||
      (trade.seller.accountId === accountId &&
        (query.orderId === undefined || trade.seller.orderId === query.orderId));
    const own = (this.symbols.get(symbol)?.trades ?? []).filter(takesPart);
    return pageOldestFirst(own, TRADE_KEYS, query, limit);
  }

  /** Every order and trade held, per symbol (for tests and diagnostics). */
  contents(): { symbol: string; orders: Order[]; trades: Trade[] }[] {
    return [...this.symbols].map(([symbol, h]) => ({
      symbol,
      orders: [...h.orders.values()],
      trades: [...h.trades],
    }));
  }

  private symbol(symbol: string): SymbolHistory {
    let history = this.symbols.get(symbol);
    if (!history) {
      history = { orders: new Map(), trades: [], aggTrades: [] };
      this.symbols.set(symbol, history);
    }
    return history;
  }

  private accountOrders(accountId: string, symbol: string): Order[] {
    let bySymbol = this.accounts.get(accountId);
    if (!bySymbol) {
      bySymbol = new Map();
      this.accounts.set(accountId, bySymbol);
    }
    let orders = bySymbol.get(symbol);
    if (!orders) {
      orders = [];
      bySymbol.set(symbol, orders);
    }
    return orders;
  }

  private prune(cutoff: number): void {
    const expired = (order: Order) => !isOpen(order) && order.updateTime < cutoff;
    for (const history of this.symbols.values()) {
      history.trades.splice(0, lowerBound(history.trades, TRADE_KEYS.time, cutoff));
      history.aggTrades.splice(0, lowerBound(history.aggTrades, AGG_KEYS.time, cutoff));
      for (const [id, order] of history.orders) if (expired(order)) history.orders.delete(id);
    }
    for (const bySymbol of this.accounts.values()) {
      for (const [symbol, orders] of bySymbol)
        bySymbol.set(
          symbol,
          orders.filter((o) => !expired(o)),
        );
    }
  }
}
