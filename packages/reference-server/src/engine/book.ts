import type { Decimal } from "./decimal.js";
import { type Order, remainingQty, type Side } from "./types.js";

export interface PriceLevel {
  price: Decimal;
  /** Resting orders at this price in time priority. */
  orders: Order[];
}

/**
 * One side of a book. Its levels are kept worst price first, so that the best one, where orders
 * are added and taken most, is at the end of the array: a new best level or an emptied one costs
 * a push or a pop, not a move of every other level (cost stays flat as the book deepens).
 */
export class BookSide {
  readonly side: Side;
  private readonly worstFirst: PriceLevel[] = [];

  constructor(side: Side) {
    this.side = side;
  }

  /** Whether price `a` ranks ahead of price `b` on this side. */
  isBetter(a: Decimal, b: Decimal): boolean {
    return this.side === "BUY" ? a > b : a < b;
  }

  /** How many price levels the side has. */
  get size(): number {
    return this.worstFirst.length;
  }

  best(): PriceLevel | undefined {
    return this.worstFirst[this.worstFirst.length - 1];
  }

  /** The level at `rank` from the best (0 is the best), or undefined past the last. */
  level(rank: number): PriceLevel | undefined {
    return this.worstFirst[this.worstFirst.length - 1 - rank];
  }

  /** Up to `limit` levels, best first. */
  bestLevels(limit: number): PriceLevel[] {
    const levels: PriceLevel[] = [];
    const end = Math.max(0, this.worstFirst.length - limit);
    for (let index = this.worstFirst.length - 1; index >= end; index -= 1) {
      levels.push(this.worstFirst[index] as PriceLevel);
    }
    return levels;
  }

  insert(order: Order): void {
    const index = this.levelIndex(order.price);
    const existing = this.worstFirst[index];
    if (existing && existing.price === order.price) existing.orders.push(order);
    else this.worstFirst.splice(index, 0, { price: order.price, orders: [order] });
  }

  remove(order: Order): void {
    const index = this.levelIndex(order.price);
    const level = this.worstFirst[index];
    if (!level || level.price !== order.price) return;
    const position = level.orders.indexOf(order);
    if (position >= 0) level.orders.splice(position, 1);
    if (level.orders.length === 0) this.worstFirst.splice(index, 1);
  }

  // First index whose price is not worse than `price` (binary search over worst-first levels).
  private levelIndex(price: Decimal): number {
    let low = 0;
    let high = this.worstFirst.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const level = this.worstFirst[middle];
      if (level && this.isBetter(price, level.price)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/**
 * The shown size of a resting order. Icebergs show at most icebergQty; their hidden part
 * still trades at the order's own time priority (a simplification of Binance's refresh).
 */
export function visibleQty(order: Order): Decimal {
  const remaining = remainingQty(order);
  return order.icebergQty > 0n && order.icebergQty < remaining ? order.icebergQty : remaining;
}

export class OrderBook {
  readonly bids = new BookSide("BUY");
  readonly asks = new BookSide("SELL");

  sideOf(side: Side): BookSide {
    return side === "BUY" ? this.bids : this.asks;
  }

  /** The side a taker of `side` trades against. */
  oppositeOf(side: Side): BookSide {
    return side === "BUY" ? this.asks : this.bids;
  }

  add(order: Order): void {
    this.sideOf(order.side).insert(order);
  }

  remove(order: Order): void {
    this.sideOf(order.side).remove(order);
  }

  bestBid(): Decimal | undefined {
    return this.bids.best()?.price;
  }

  bestAsk(): Decimal | undefined {
    return this.asks.best()?.price;
  }
}
