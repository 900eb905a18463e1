/**
 * The history the engine has changed but the database does not hold yet: orders, trades and
 * aggregate trades queued for the next batch or in the batch being committed. The state database
 * reads through it, so no read or decision ever sees a state older than the engine's own (an
 * order filled in an uncommitted batch must not read as NEW from its last committed row).
 *
 * Each entry remembers the number of the last batch that carries it; it leaves once that batch
 * is committed. The entries are the engine's live objects, so they always hold its newest values.
 */
import { namesItsOrder } from "../engine/client-order-ids.js";
import type { ChangeSet } from "../engine/journal.js";
import type { AggTrade, Order, Trade } from "../engine/types.js";

interface Entry<T> {
  item: T;
  batch: number;
}

/** Items per symbol, by id. */
class Keyed<T> {
  private readonly bySymbol = new Map<string, Map<number, Entry<T>>>();

  put(symbol: string, id: number, item: T, batch: number): void {
    let items = this.bySymbol.get(symbol);
    if (!items) {
      items = new Map();
      this.bySymbol.set(symbol, items);
    }
    const entry = items.get(id);
    if (entry) {
      entry.item = item;
      entry.batch = batch;
    } else {
      items.set(id, { item, batch });
    }
  }

  /**
   * Forgets the item once the batch that carries its newest values (or a later one) is committed;
   * whether it was forgotten.
   */
  settle(symbol: string, id: number, batch: number): boolean {
    const items = this.bySymbol.get(symbol);
    const entry = items?.get(id);
    if (!items || !entry || entry.batch > batch) return false;
    items.delete(id);
    if (items.size === 0) this.bySymbol.delete(symbol);
    return true;
  }

  get(symbol: string, id: number): T | undefined {
    return this.bySymbol.get(symbol)?.get(id)?.item;
  }

  /** The symbol's items that pass `keep` (in no particular order). */
  filter(symbol: string, keep: (item: T) => boolean): T[] {
    const items = this.bySymbol.get(symbol);
    if (!items) return [];
    const kept: T[] = [];
    for (const { item } of items.values()) if (keep(item)) kept.push(item);
    return kept;
  }

  get size(): number {
    let size = 0;
    for (const items of this.bySymbol.values()) size += items.size;
    return size;
  }

  clear(): void {
    this.bySymbol.clear();
  }
}

export class Uncommitted {
  readonly orders = new Keyed<Order>();
  readonly trades = new Keyed<Trade>();
  readonly aggTrades = new Keyed<AggTrade>();
  /**
   * By symbol, account and client order id: the newest uncommitted order (cancels by client id
   * are common), but for ids that name their order (generated ones: found in `orders` by
   * decoding). The newest only: once it is committed, the database answers for the client order
   * id with it, and any older order with that id, committed or not, is not the answer. Keyed by
   * the engine's own strings, whose hashes are known already (a joined key was hashed anew).
   */
  private readonly byClientId = new Map<string, Map<string, Map<string, Order>>>();

  /** Takes in the history part of an operation's changes, to be written by batch `batch`. */
  add(changes: ChangeSet, batch: number): void {
    for (const order of changes.orders) {
      this.orders.put(order.symbol, order.orderId, order, batch);
      if (namesItsOrder(order.clientOrderId, order.orderId)) continue;
      const ids = this.clientIds(order.symbol, order.accountId);
      const newest = ids.get(order.clientOrderId);
      if (!newest || newest.orderId <= order.orderId) ids.set(order.clientOrderId, order);
    }
    for (const trade of changes.trades) this.trades.put(trade.symbol, trade.id, trade, batch);
    for (const agg of changes.aggTrades) this.aggTrades.put(agg.symbol, agg.id, agg, batch);
  }

  /** Batch `batch`, which wrote `changes`, is committed: the database now holds what it wrote. */
  settle(changes: ChangeSet, batch: number): void {
    for (const order of changes.orders) {
      if (!this.orders.settle(order.symbol, order.orderId, batch)) continue;
      if (namesItsOrder(order.clientOrderId, order.orderId)) continue;
      const ids = this.byClientId.get(order.symbol)?.get(order.accountId);
      if (ids?.get(order.clientOrderId)?.orderId === order.orderId) ids.delete(order.clientOrderId);
    }
    for (const trade of changes.trades) this.trades.settle(trade.symbol, trade.id, batch);
    for (const agg of changes.aggTrades) this.aggTrades.settle(agg.symbol, agg.id, batch);
  }

  /** Number of entries held (for tests: zero once everything is committed). */
  get size(): number {
    return this.orders.size + this.trades.size + this.aggTrades.size;
  }

  /** The newest uncommitted order of the account on the symbol with that client order id, if not generated. */
  latestByClientOrderId(accountId: string, symbol: string, clientOrderId: string): Order | undefined {
    return this.byClientId.get(symbol)?.get(accountId)?.get(clientOrderId);
  }

  clear(): void {
    this.byClientId.clear();
    this.orders.clear();
    this.trades.clear();
    this.aggTrades.clear();
  }

  /** The account's newest uncommitted orders on the symbol by client order id (made when absent). */
  private clientIds(symbol: string, accountId: string): Map<string, Order> {
    let accounts = this.byClientId.get(symbol);
    if (!accounts) {
      accounts = new Map();
      this.byClientId.set(symbol, accounts);
    }
    let ids = accounts.get(accountId);
    if (!ids) {
      ids = new Map();
      accounts.set(accountId, ids);
    }
    return ids;
  }
}

/**
 * A page of committed rows merged with the uncommitted items that match the same query: the
 * uncommitted version of an item wins, the result is oldest first, and it holds the oldest
 * `limit` matches when anchored at the start, else the newest. Correct because the committed page
 * already holds the best `limit` committed matches, and the keys a query filters on (account,
 * symbol, id, time) never change once an item exists.
 */
export function mergePage<T>(
  stored: readonly T[],
  fresh: readonly T[],
  id: (item: T) => number,
  anchoredAtStart: boolean,
  limit: number,
): T[] {
  if (fresh.length === 0) return [...stored];
  const byId = new Map<number, T>();
  for (const item of stored) byId.set(id(item), item);
  for (const item of fresh) byId.set(id(item), item);
  const merged = [...byId.values()].sort((a, b) => id(a) - id(b));
  return anchoredAtStart ? merged.slice(0, limit) : merged.slice(Math.max(0, merged.length - limit));
}
