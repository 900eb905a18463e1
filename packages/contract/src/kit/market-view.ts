/**
 * What the exploration knows of the symbol it trades: the rules exchangeInfo announces (types,
 * filters, flags), the sizes and prices its orders use, and, at the start of each sequence, the
 * foreign liquidity on the book and the last trade id (the bracket that tells a quiet market).
 */

import { type Dec, tryParseDec, ZERO } from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import { farPrice, quoteBudget as quoteBudgetOf, type SymbolRules, smallestQuantity } from "./market.js";
import type { Level, Side } from "./matching-model.js";

export interface ExplorationView {
  symbol: string;
  rules: SymbolRules;
  /** The market's price when the exploration started (the middle of the best bid and ask). */
  reference: Dec;
  tick: Dec;
  step: Dec;
  /** Order types exchangeInfo lists for the symbol (all the spec knows when it lists none). */
  types: string[];
  /** A LIMIT price far below the market (BUY) and far above it (SELL), within the price filters. */
  far: Record<Side, Dec | undefined>;
  quoteOrderQtyAllowed: boolean;
  icebergAllowed: boolean;
  /** ICEBERG_PARTS limit, MAX_NUM_ALGO_ORDERS, MAX_NUM_ORDERS, when announced. */
  icebergParts: number | undefined;
  maxAlgoOrders: number | undefined;
  maxOrders: number | undefined;
  /** Orders of the account may trade with each other (no self-trade prevention by default). */
  selfTradeAllowed: boolean;
}

/** The order types the spec's new_order takes (its `type` parameter's enum). */
export function specOrderTypes(newOrder: ContractOperation): string[] {
  return (newOrder.parameters.find((p) => p.name === "type")?.resolvedSchema.enum ?? []).map(String);
}

/** The view of a symbol from its rules and a reference price; undefined without a tick or step. */
export function explorationView(
  rules: SymbolRules,
  reference: Dec,
  specTypes: readonly string[],
): ExplorationView | undefined {
  if (rules.tick <= ZERO || rules.step <= ZERO || reference <= ZERO) return undefined;
  return {
    symbol: rules.symbol,
    rules,
    reference,
    tick: rules.tick,
    step: rules.step,
    types:
      rules.orderTypes.length > 0 ? rules.orderTypes.filter((t) => specTypes.includes(t)) : [...specTypes],
    far: { BUY: farPrice(rules, reference, "BUY"), SELL: farPrice(rules, reference, "SELL") },
    quoteOrderQtyAllowed: rules.quoteOrderQtyAllowed,
    icebergAllowed: rules.icebergAllowed,
    icebergParts: rules.icebergParts,
    maxAlgoOrders: rules.maxAlgoOrders,
    maxOrders: rules.maxOrders,
    selfTradeAllowed: rules.selfTradeAllowed,
  };
}

/** The smallest quantity every filter accepts at `price` (market.ts's smallestQuantity). */
export function unitAt(view: ExplorationView, price: Dec): Dec {
  return smallestQuantity(view.rules, price);
}

/** A quote budget worth `units` of the smallest quantity at `price` (market.ts's quoteBudget). */
export function quoteBudget(view: ExplorationView, units: number, price: Dec): Dec {
  return quoteBudgetOf(view.rules, units, price);
}

/** Prices strictly inside the spread, `count` ticks from the own side's best (1 = one tick better). */
export function insidePrice(
  view: ExplorationView,
  side: Side,
  bestBid: Dec,
  bestAsk: Dec,
  ticks: number,
): Dec | undefined {
  const price = side === "BUY" ? bestBid + view.tick * BigInt(ticks) : bestAsk - view.tick * BigInt(ticks);
  return price > bestBid && price < bestAsk ? price : undefined;
}

/** The book's levels as read from an order_book answer (price, quantity), best first. */
export function levelsOf(side: unknown): Level[] {
  if (!Array.isArray(side)) return [];
  const out: Level[] = [];
  for (const level of side) {
    if (!Array.isArray(level)) continue;
    const price = tryParseDec(level[0]);
    const qty = tryParseDec(level[1]);
    if (price !== undefined && qty !== undefined) out.push({ price, qty });
  }
  return out;
}
