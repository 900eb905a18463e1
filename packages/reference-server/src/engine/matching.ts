import type { BookSide, OrderBook, PriceLevel } from "./book.js";
import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import { type Order, remainingQty, type Side } from "./types.js";

/** How far a taker may go: a limit price, a base quantity and/or a quote budget. */
export interface TakerLimits {
  side: Side;
  limitPrice: Decimal | undefined;
  maxQty: Decimal | undefined;
  maxQuote: Decimal | undefined;
  /** Quantities derived from a quote budget are rounded down to this step. */
  stepSize: Decimal;
}

export interface PlannedFill {
  maker: Order;
  price: Decimal;
  qty: Decimal;
}

/**
 * Walks the opposite side in price-time priority and lists the fills the taker would get.
 * Read-only, so callers can check FOK, LIMIT_MAKER and balances before anything changes.
 * Stops at the first maker it cannot take from, which keeps priority strict.
 */
export function planFills(book: OrderBook, limits: TakerLimits): PlannedFill[] {
  const plan: PlannedFill[] = [];
  const progress = { qty: 0n, quote: 0n };
  for (const maker of makersInPriority(book.oppositeOf(limits.side), limits)) {
    const qty = takeableQty(limits, maker, progress);
    if (qty === 0n) break;
    plan.push({ maker, price: maker.price, qty });
    progress.qty += qty;
    progress.quote += dec.mul(maker.price, qty);
  }
  return plan;
}

function* makersInPriority(side: BookSide, limits: TakerLimits): Generator<Order> {
  for (let rank = 0; rank < side.size; rank += 1) {
    const level = side.level(rank) as PriceLevel;
    if (!crosses(limits, level.price)) return;
    yield* level.orders;
  }
}

function crosses(limits: TakerLimits, makerPrice: Decimal): boolean {
  if (limits.limitPrice === undefined) return true;
  return limits.side === "BUY" ? makerPrice <= limits.limitPrice : makerPrice >= limits.limitPrice;
}

function takeableQty(limits: TakerLimits, maker: Order, progress: { qty: Decimal; quote: Decimal }): Decimal {
  let qty = remainingQty(maker);
  if (limits.maxQty !== undefined) qty = dec.min(qty, limits.maxQty - progress.qty);
  if (limits.maxQuote !== undefined) {
    const affordable = dec.floorToStep(
      dec.div(limits.maxQuote - progress.quote, maker.price),
      limits.stepSize,
    );
    qty = dec.min(qty, affordable);
  }
  return qty > 0n ? qty : 0n;
}

export function plannedQty(plan: readonly PlannedFill[]): Decimal {
  return dec.sum(plan.map((fill) => fill.qty));
}

export function plannedQuote(plan: readonly PlannedFill[]): Decimal {
  return dec.sum(plan.map((fill) => dec.mul(fill.price, fill.qty)));
}
