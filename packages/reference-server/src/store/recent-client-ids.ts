/**
 * The orders whose client order ids and account entries are not in their tables yet.
 * client_order_ids and account_orders are written a sorted chunk of orders at a time (a random key
 * in an index cost each order a page of its own in every commit, see schema.ts migration 2 → 3):
 * per symbol, the orders from `below` on are not in them yet. Those are held here, by account and
 * client order id and by account, and read back at start-up, a bounded tail (at most a chunk and a
 * batch per symbol).
 */
import { namesItsOrder } from "../engine/client-order-ids.js";
import { firstAtLeast } from "../engine/paging.js";
import { Columns } from "./row-checks.js";
import type { TableReads } from "./table-reads.js";

export class RecentClientIds {
  /** Per symbol: the orders from this id on are not in client_order_ids yet. */
  private readonly belowBySymbol = new Map<string, number>();
  /** Per symbol: the newest order id by account and client order id, of those orders. */
  private readonly byClientId = new Map<string, Map<string, number>>();
  /** Per symbol and account: the ids of those orders (not in account_orders yet), ascending. */
  private readonly byAccount = new Map<string, Map<string, number[]>>();

  /** The symbol's orders from this id on are held here, not in the tables. */
  below(symbol: string): number {
    return this.belowBySymbol.get(symbol) ?? 0;
  }

  /** The newest recent order of the account with this client order id (ids that name their order aside). */
  newestOrderId(symbol: string, accountId: string, clientOrderId: string): number | undefined {
    return this.byClientId.get(symbol)?.get(clientKey(accountId, clientOrderId));
  }

  /** The account's recent order ids on the symbol, ascending. */
  accountOrderIds(symbol: string, accountId: string): readonly number[] {
    return this.byAccount.get(symbol)?.get(accountId) ?? [];
  }

  /** Notes a new (or changed) order. */
  note(accountId: string, symbol: string, clientOrderId: string, orderId: number): void {
    this.noteClientId(accountId, symbol, clientOrderId, orderId);
    this.noteAccountOrder(accountId, symbol, orderId);
  }

  /** Reads the tail of each symbol's orders not in the tables yet ([symbol, below] pairs). */
  load(tables: TableReads, symbols: [string, number][]): void {
    this.belowBySymbol.clear();
    this.byClientId.clear();
    this.byAccount.clear();
    for (const [symbol, below] of symbols) {
      this.belowBySymbol.set(symbol, below);
      const tail = tables.all<Record<string, unknown>>(
        "clientIdTail",
        [tables.key(symbol, below), tables.span(symbol)[1]],
        symbol,
      );
      for (const row of tail) {
        const c = new Columns(
          row,
          () => `table orders_${tables.symbolPositions.get(symbol)}, order ${String(row.order_id)}`,
        );
        this.note(c.account("account"), symbol, c.clientOrderId("client_order_id"), c.id("order_id"));
      }
    }
  }

  /**
   * A chunk of client order ids is in client_order_ids (and of orders in account_orders): the
   * recent ones below `below` are forgotten.
   */
  indexed(symbol: string, below: number): void {
    this.belowBySymbol.set(symbol, below);
    const byAccount = this.byAccount.get(symbol);
    for (const [accountId, ids] of byAccount ?? []) {
      const kept = ids.slice(lowerBound(ids, below));
      if (kept.length > 0) byAccount?.set(accountId, kept);
      else byAccount?.delete(accountId);
    }
    const recent = this.byClientId.get(symbol);
    if (!recent) return;
    for (const [key, orderId] of recent) if (orderId < below) recent.delete(key);
  }

  /** A client order id that names its order (a generated one) is found by decoding, not noted. */
  private noteClientId(accountId: string, symbol: string, clientOrderId: string, orderId: number): void {
    if (orderId < this.below(symbol) || namesItsOrder(clientOrderId, orderId)) return;
    let recent = this.byClientId.get(symbol);
    if (!recent) {
      recent = new Map();
      this.byClientId.set(symbol, recent);
    }
    const key = clientKey(accountId, clientOrderId);
    if ((recent.get(key) ?? -1) < orderId) recent.set(key, orderId);
  }

  /** The order ids are ascending: a new order's is the highest, so it is appended (else placed). */
  private noteAccountOrder(accountId: string, symbol: string, orderId: number): void {
    if (orderId < this.below(symbol)) return;
    let byAccount = this.byAccount.get(symbol);
    if (!byAccount) {
      byAccount = new Map();
      this.byAccount.set(symbol, byAccount);
    }
    let ids = byAccount.get(accountId);
    if (!ids) {
      ids = [];
      byAccount.set(accountId, ids);
    }
    const last = ids[ids.length - 1];
    if (last === undefined || orderId > last) {
      ids.push(orderId);
      return;
    }
    const at = lowerBound(ids, orderId);
    if (ids[at] !== orderId) ids.splice(at, 0, orderId);
  }
}

/** The position of the first id at or above `id` in ascending `ids`. */
export function lowerBound(ids: readonly number[], id: number): number {
  return firstAtLeast(ids.length, (i) => ids[i] as number, id);
}

function clientKey(accountId: string, clientOrderId: string): string {
  return `${accountId}\u0000${clientOrderId}`;
}
