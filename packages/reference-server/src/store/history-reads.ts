/**
 * The history's reads: closed and open orders, trades and aggregate trades, read with index
 * searches from the committed rows (on the main thread's connection) and overlaid with what the
 * engine changed but the database does not hold yet (uncommitted.ts), so that no read or decision
 * sees a state older than the engine's.
 */
import { generatedOrderId } from "../engine/client-order-ids.js";
import { namedOrder } from "../engine/history.js";
import type { AccountTradesQuery, AggTrade, History, Order, PageQuery, Trade } from "../engine/index.js";
import type { RecentClientIds } from "./recent-client-ids.js";
import { lowerBound } from "./recent-client-ids.js";
import {
  type AggTradeRow,
  aggTradeFromRow,
  type OrderRow,
  orderFromRow,
  type TradeRow,
  tradeFromRow,
} from "./rows.js";
import type { IdTable, IdTime, TableReads } from "./table-reads.js";
import { mergePage, type Uncommitted } from "./uncommitted.js";

const MIN_TIME = Number.MIN_SAFE_INTEGER;
const MAX_TIME = Number.MAX_SAFE_INTEGER;
const MIN_ID = Number.MIN_SAFE_INTEGER;
const MAX_ID = Number.MAX_SAFE_INTEGER;

export type HistoryReading = Omit<History, "record" | "candles" | "candleBefore" | "firstCandle">;

export class HistoryReads implements HistoryReading {
  constructor(
    private readonly tables: TableReads,
    private readonly uncommitted: Uncommitted,
    private readonly recent: RecentClientIds,
  ) {}

  order(symbol: string, orderId: number): Order | undefined {
    return (
      this.uncommitted.orders.get(symbol, orderId) ??
      this.tables.row("order", [this.tables.key(symbol, orderId)], orderFromRow, symbol)
    );
  }

  /**
   * The newest of: the uncommitted orders with the client order id; the order the recent ones (not
   * in client_order_ids yet) name; the order a generated id decodes to, if it has that id; else the
   * newest in client_order_ids whose order is still stored (retention deletes orders, not their
   * client order ids: such an id is stepped over).
   */
  latestByClientOrderId(accountId: string, symbol: string, clientOrderId: string): Order | undefined {
    let best = this.uncommitted.latestByClientOrderId(accountId, symbol, clientOrderId);
    const consider = (order: Order | undefined) => {
      if (order && (!best || order.orderId > best.orderId)) best = order;
    };
    const recent = this.recent.newestOrderId(symbol, accountId, clientOrderId);
    if (recent !== undefined && (!best || recent > best.orderId)) consider(this.order(symbol, recent));
    const named = generatedOrderId(clientOrderId);
    if (named !== undefined && (!best || named > best.orderId))
      consider(namedOrder(this.order(symbol, named), accountId, clientOrderId));
    const below = this.recent.below(symbol);
    if (best && best.orderId >= below) return best;
    let bound = below;
    for (;;) {
      const id = this.tables.row<{ id: number }, number>(
        "orderIdByClientId",
        [accountId, symbol, clientOrderId, bound],
        (r) => r.id,
      );
      if (id === undefined) break;
      const order = this.order(symbol, id);
      if (order) {
        consider(order);
        break;
      }
      bound = id;
    }
    return best;
  }

  /**
   * The account's orders below the symbol's client_ids_below are found in account_orders; those
   * from it on (at most a chunk and a batch) by their ids, kept in memory, each one search.
   */
  orders(accountId: string, symbol: string, query: PageQuery, limit: number): Order[] {
    const ids = this.idRange("order", symbol, query);
    const below = this.recent.below(symbol);
    const anchored = isAnchored(query);
    const older = (want: number): Order[] =>
      ids && ids[0] < below && want > 0
        ? this.page<OrderRow, Order>(
            "orders",
            [accountId, ...this.tables.keys(symbol, [ids[0], Math.min(ids[1], below)])],
            query,
            want,
            orderFromRow,
            symbol,
          )
        : [];
    const recent = (want: number): Order[] =>
      ids && ids[1] > below && want > 0
        ? this.recentOrders(accountId, symbol, [Math.max(ids[0], below), ids[1]], anchored, want)
        : [];
    let stored: Order[];
    if (anchored) {
      const first = older(limit);
      stored = [...first, ...recent(limit - first.length)];
    } else {
      const last = recent(limit);
      stored = [...older(limit - last.length), ...last];
    }
    const fresh = this.uncommitted.orders.filter(
      symbol,
      (o) => o.accountId === accountId && inPage(o.orderId, o.time, query),
    );
    return mergePage(stored, fresh, (o) => o.orderId, isAnchored(query), limit);
  }

  trades(symbol: string, fromId: number | undefined, limit: number): Trade[] {
    const id = (t: Trade) => t.id;
    const span = this.tables.span(symbol);
    if (fromId === undefined) {
      const stored = this.tables
        .rows<TradeRow, Trade>("recentTrades", [...span, limit], tradeFromRow, symbol)
        .reverse();
      return mergePage(
        stored,
        this.uncommitted.trades.filter(symbol, () => true),
        id,
        false,
        limit,
      );
    }
    const stored = this.tables.rows<TradeRow, Trade>(
      "tradesFrom",
      [this.tables.key(symbol, fromId), span[1], limit],
      tradeFromRow,
      symbol,
    );
    const fresh = this.uncommitted.trades.filter(symbol, (t) => t.id >= fromId);
    return mergePage(stored, fresh, id, true, limit);
  }

  tradesBetween(symbol: string, from: number, to: number): Trade[] {
    const ids = this.idRange("trade", symbol, { startTime: from, endTime: to - 1 });
    const stored = ids
      ? this.tables.rows<TradeRow, Trade>(
          "tradesBetween",
          this.tables.keys(symbol, ids),
          tradeFromRow,
          symbol,
        )
      : [];
    const fresh = this.uncommitted.trades.filter(symbol, (t) => t.time >= from && t.time < to);
    return mergePage(stored, fresh, (t) => t.id, true, Number.MAX_SAFE_INTEGER);
  }

  lastTradeBefore(symbol: string, time: number): Trade | undefined {
    const fresh = newest(
      this.uncommitted.trades.filter(symbol, (t) => t.time < time),
      (t) => t.id,
    );
    const stored = this.tables.row(
      "tradeBefore",
      [this.tables.span(symbol)[0], this.tables.key(symbol, this.firstIdAt("trade", symbol, time) ?? MAX_ID)],
      tradeFromRow,
      symbol,
    );
    if (!stored || (fresh && fresh.id >= stored.id)) return fresh;
    return stored;
  }

  aggTrades(symbol: string, query: PageQuery, limit: number): AggTrade[] {
    const ids = this.idRange("aggTrade", symbol, query);
    const stored = ids
      ? this.page<AggTradeRow, AggTrade>(
          "aggTrades",
          this.tables.keys(symbol, ids),
          query,
          limit,
          aggTradeFromRow,
          symbol,
        )
      : [];
    const fresh = this.uncommitted.aggTrades.filter(symbol, (a) => inPage(a.id, a.time, query));
    return mergePage(stored, fresh, (a) => a.id, isAnchored(query), limit);
  }

  accountTrades(accountId: string, symbol: string, query: AccountTradesQuery, limit: number): Trade[] {
    // The order's lifetime narrows the ids searched; the page is still the query's own.
    const { within } = query;
    const ids = this.idRange(
      "trade",
      symbol,
      within === undefined
        ? query
        : {
            fromId: query.fromId,
            startTime: Math.max(query.startTime ?? within.from, within.from),
            endTime: Math.min(query.endTime ?? within.to, within.to),
          },
    );
    const orderId = query.orderId ?? -1;
    const params = [accountId, ...this.tables.keys(symbol, ids ?? [0, 0]), orderId, orderId, orderId];
    const stored = ids
      ? this.page<TradeRow, Trade>("accountTrades", params, query, limit, tradeFromRow, symbol)
      : [];
    const takesPart = (party: Trade["buyer"]) =>
      party.accountId === accountId && (query.orderId === undefined || party.orderId === query.orderId);
    const fresh = this.uncommitted.trades.filter(
      symbol,
      (t) => (takesPart(t.buyer) || takesPart(t.seller)) && inPage(t.id, t.time, query),
    );
    return mergePage(stored, fresh, (t) => t.id, isAnchored(query), limit);
  }

  /**
   * The lowest id that a prune at `cutoff` keeps: the first stored at or after it, else one above
   * the last stored (never more: rows of a batch still being committed have higher ids and may be
   * newer than the cutoff).
   */
  firstKeptId(table: IdTable, symbol: string, cutoff: number): number {
    const first = this.firstIdAt(table, symbol, cutoff);
    if (first !== undefined) return first;
    const last = this.tables.lastIdTime(table, symbol);
    return last ? last.id + 1 : MIN_ID;
  }

  /**
   * Up to `want` stored orders of the account among its recent ids in [low, high) (not in
   * account_orders yet), ascending: the oldest when anchored, else the newest. Each is one search;
   * ids without a row (not committed yet, or pruned) are stepped over.
   */
  private recentOrders(
    accountId: string,
    symbol: string,
    [low, high]: [number, number],
    anchored: boolean,
    want: number,
  ): Order[] {
    const ids = this.recent.accountOrderIds(symbol, accountId);
    const from = lowerBound(ids, low);
    const to = lowerBound(ids, high);
    const found: Order[] = [];
    for (
      let i = anchored ? from : to - 1;
      found.length < want && i >= from && i < to;
      i += anchored ? 1 : -1
    ) {
      const order = this.tables.row(
        "order",
        [this.tables.key(symbol, ids[i] as number)],
        orderFromRow,
        symbol,
      );
      if (order) found.push(order);
    }
    return anchored ? found : found.reverse();
  }

  /**
   * The ids a page may hold, [lowest, above the last], from fromId and the time bounds; undefined
   * when none can match. Ids and times grow together, so a time bound is the id of the first row
   * at or after it (`idAt`, one index search).
   */
  private idRange(table: IdTable, symbol: string, query: PageQuery): [number, number] | undefined {
    const firstAt = (time: number) => this.firstIdAt(table, symbol, time);
    let low = query.fromId ?? MIN_ID;
    if (query.startTime !== undefined) {
      const first = firstAt(query.startTime);
      if (first === undefined) return undefined;
      low = Math.max(low, first);
    }
    const high = query.endTime === undefined ? MAX_ID : (firstAt(query.endTime + 1) ?? MAX_ID);
    return high > low ? [low, high] : undefined;
  }

  /**
   * The first stored id of the symbol's rows whose time is at or after `time` (undefined when none
   * is): a binary search over the primary key, since ids and times grow together. Each probe reads
   * one row found by one index search, so it reads a logarithmic number of rows, however long the
   * history; gaps in the ids (pruned or retained rows) are stepped over by the probes.
   */
  private firstIdAt(table: IdTable, symbol: string, time: number): number | undefined {
    const last = this.tables.lastIdTime(table, symbol);
    if (!last || last.time < time) return undefined;
    const end = this.tables.span(symbol)[1];
    const from = (id: number) =>
      this.tables.row<IdTime, IdTime>(
        `${table}IdFrom`,
        [this.tables.key(symbol, id), end],
        (r) => r,
        symbol,
      ) as IdTime;
    const first = from(MIN_ID);
    if (first.time >= time) return first.id;
    // first.time < time <= found.time; no id in [above, found.id) exists.
    let below = first.id;
    let found = last.id;
    let above = found;
    while (above - below > 1) {
      const middle = below + Math.floor((above - below) / 2);
      const row = from(middle);
      if (row.time >= time) {
        found = row.id;
        above = middle;
      } else {
        below = row.id;
      }
    }
    return found;
  }

  /** The §1.6 paging rule in SQL: oldest matches with a lower bound, else the newest. */
  private page<R, T>(
    name: string,
    params: unknown[],
    query: PageQuery,
    limit: number,
    map: (row: R) => T,
    symbol: string,
  ): T[] {
    const anchored = isAnchored(query);
    const rows = this.tables.rows(`${name}${anchored ? "Asc" : "Desc"}`, [...params, limit], map, symbol);
    return anchored ? rows : rows.reverse();
  }
}

function isAnchored(query: PageQuery): boolean {
  return query.fromId !== undefined || query.startTime !== undefined;
}

/** Whether an item with this id and time falls in the query's bounds (as the paged SQL reads). */
function inPage(id: number, time: number, query: PageQuery): boolean {
  return (
    id >= (query.fromId ?? MIN_TIME) &&
    time >= (query.startTime ?? MIN_TIME) &&
    time <= (query.endTime ?? MAX_TIME)
  );
}

function newest<T>(items: readonly T[], id: (item: T) => number): T | undefined {
  let best: T | undefined;
  for (const item of items) if (best === undefined || id(item) > id(best)) best = item;
  return best;
}
