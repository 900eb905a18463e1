import type { Decimal } from "./decimal.js";
import { type Order, type OrderType, type Side, type TrailingState, triggersOnRise } from "./types.js";

const BIPS = 10_000n;

interface StopShape {
  type: OrderType;
  side: Side;
  stopPrice: Decimal;
}

/** A plain stop fires once the last price reaches stopPrice from the side it was placed on. */
export function stopReached(stop: StopShape, price: Decimal): boolean {
  if (stop.stopPrice === 0n) return false;
  return triggersOnRise(stop.type, stop.side) ? price >= stop.stopPrice : price <= stop.stopPrice;
}

/** Placement check: a stop already reached by the last price is rejected ("would trigger immediately"). */
export function wouldTriggerImmediately(stop: StopShape, lastPrice: Decimal | undefined): boolean {
  return lastPrice !== undefined && stopReached(stop, lastPrice);
}

/**
 * Trailing starts at once from the last price when no stopPrice is given; with a stopPrice
 * it starts when the plain stop condition is first met (stopPrice acts as activation price).
 */
export function initialTrailing(
  delta: number | undefined,
  stopPrice: Decimal,
  lastPrice: Decimal | undefined,
  now: number,
): TrailingState | undefined {
  if (delta === undefined) return undefined;
  if (stopPrice > 0n || lastPrice === undefined) return { delta, activeSince: -1, extreme: undefined };
  return { delta, activeSince: now, extreme: lastPrice };
}

/** Feeds one trade price to a pending stop; true when the order fires. */
export function observePrice(order: Order, price: Decimal, now: number): boolean {
  const trailing = order.trailing;
  if (!trailing) return stopReached(order, price);
  if (trailing.activeSince < 0 || trailing.extreme === undefined) {
    if (stopReached(order, price)) activate(trailing, price, now);
    return false;
  }
  trailing.extreme = moreFavourable(order.side, trailing.extreme, price);
  return retracedBy(order.side, trailing.extreme, price, trailing.delta);
}

function activate(trailing: TrailingState, price: Decimal, now: number): void {
  trailing.activeSince = now;
  trailing.extreme = price;
}

// A SELL trails the highest price and fires on a fall; a BUY trails the lowest and fires on a rise.
function moreFavourable(side: Side, extreme: Decimal, price: Decimal): Decimal {
  if (side === "SELL") return price > extreme ? price : extreme;
  return price < extreme ? price : extreme;
}

function retracedBy(side: Side, extreme: Decimal, price: Decimal, delta: number): boolean {
  const bips = BigInt(delta);
  if (side === "SELL") return price * BIPS <= extreme * (BIPS - bips);
  return price * BIPS >= extreme * (BIPS + bips);
}
