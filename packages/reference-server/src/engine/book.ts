import type { Decimal } from "./decimal.js";
import { type Order, remainingQty, type Side } from "./types.js";

export interface PriceLevel {
  price: Decimal;
  /** Resting orders at this price in time priority. */
  orders: Order[];
}

/** One side of a book; `levels` are kept best price first. */
export class BookSide {
  readonly side: Side;
  readonly levels: PriceLevel[] = [];

  constructor(side: Side) {
    this.side = side;
  }

  /** Whether price `a` ranks ahead of price `b` on this side. */
  isBetter(a: Decimal, b: Decimal): boolean {
    return this.side === "BUY" ? a > b : a < b;
  }

  best(): PriceLevel | undefined {
    return this.levels[0];
  }

  insert(order: Order): void {
    const index = this.levelIndex(order.price);
    const existing = this.levels[index];
    if (existing && existing.price === order.price) existing.orders.push(order);
    else this.levels.splice(index, 0, { price: order.price, orders: [order] });
  }

  remove(order: Order): void {
    const index = this.levelIndex(order.price);
    const level = this.levels[index];
    if (!level || level.price !== order.price) return;
    const position = level.orders.indexOf(order);
    if (position >= 0) level.orders.splice(position, 1);
    if (level.orders.length === 0) this.levels.splice(index, 1);
  }

  // First index whose price does not rank ahead of `price` (binary search).
  private levelIndex(price: Decimal): number {
    let low = 0;
    let high = this.levels.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const level = this.levels[middle];
      if (level && this.isBetter(level.price, price)) low = middle + 1;
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
