/**
 * The orders the exploration can place, written from the spec's x-order-type-rules (which
 * parameters a type requires, needs one of, or forbids) and priced from the exploration's view:
 * orders that rest far from the market (every listed type, stops on the side where they do not
 * trigger), limit orders at a chosen price (resting inside the spread, or taking), and market
 * orders by quantity or by quote budget.
 */
import type { OrderTypeRule } from "@marketapi/spec/model";
import { type Dec, formatDec, maxDec } from "../core/decimal.js";
import type { ExplorationView } from "./market-view.js";
import { unitAt } from "./market-view.js";
import type { Side, TakerSpec } from "./matching-model.js";
import type { Values } from "./values.js";

export interface OrderShape {
  type: string;
  side: Side;
  /** new_order values besides symbol, newClientOrderId and newOrderRespType. */
  values: Values;
  /** How the order takes liquidity when it arrives; undefined for an untriggered stop. */
  taker: TakerSpec | undefined;
  /** A GTC limit rests what it did not fill; IOC, FOK and market orders expire it. */
  restsIfLeft: boolean;
  /** FOK: nothing unless everything. */
  allOrNothing: boolean;
  /** LIMIT_MAKER: refused when it would take. */
  makerOnly: boolean;
  untriggeredStop: boolean;
  label: string;
}

/** Whether a stop of this type on this side fires when the price rises to it (the live API's rule). */
export function triggersOnRise(type: string, side: Side): boolean {
  return type.startsWith("STOP_LOSS") ? side === "BUY" : side === "SELL";
}

const isStop = (type: string) => type.startsWith("STOP_LOSS") || type.startsWith("TAKE_PROFIT");

/**
 * Values for `type` from what the caller can provide: every required parameter, the first
 * provided member of each one-of group, nothing forbidden; undefined when a required one is missing.
 */
export function valuesByRule(
  rule: OrderTypeRule,
  provide: Readonly<Record<string, string>>,
): Values | undefined {
  const values: Values = {};
  for (const name of rule.required ?? []) {
    if (provide[name] === undefined) return undefined;
    values[name] = provide[name];
  }
  for (const group of [...(rule.atLeastOneOf ?? []), ...(rule.exactlyOneOf ?? [])]) {
    if (group.some((name) => values[name] !== undefined)) continue;
    const name = group.find((n) => provide[n] !== undefined);
    if (name === undefined) return undefined;
    values[name] = provide[name];
  }
  for (const name of rule.forbidden ?? []) delete values[name];
  return values;
}

/** An order of `type` that rests without filling: priced far from the market, stops that do not fire. */
export function farShape(
  view: ExplorationView,
  rules: Record<string, OrderTypeRule>,
  type: string,
  side: Side,
  units: number,
  iceberg: boolean,
): OrderShape | undefined {
  const rule = rules[type];
  if (!rule || type === "MARKET") return undefined;
  const stop = isStop(type);
  // A stop rests on the side where it does not fire: above the market if it fires on a rise.
  const priceSide: Side = stop ? (triggersOnRise(type, side) ? "SELL" : "BUY") : side;
  const price = view.far[priceSide];
  if (price === undefined) return undefined;
  // A stop-market order's notional is valued at the market's price, a limit order's at its own.
  const unit = maxDec(unitAt(view, price), unitAt(view, view.reference));
  const quantity = unit * BigInt(iceberg ? Math.max(units, 2) : units);
  const provide: Record<string, string> = {
    price: formatDec(price),
    quantity: formatDec(quantity),
    timeInForce: "GTC",
    stopPrice: formatDec(price),
  };
  const values = valuesByRule(rule, provide);
  if (!values) return undefined;
  if (iceberg) {
    if (rule.forbidden?.includes("icebergQty") || values.price === undefined || stop) return undefined;
    values.icebergQty = formatDec(unit);
  }
  return {
    type,
    side,
    values: { side, type, ...values },
    taker: stop ? undefined : { side, limit: price, maxQty: quantity, maxQuote: undefined },
    restsIfLeft: true,
    allOrNothing: false,
    makerOnly: type === "LIMIT_MAKER",
    untriggeredStop: stop,
    label: `${type}${values.timeInForce ? ` ${String(values.timeInForce)}` : ""} ${side} ${formatDec(quantity)}${stop ? ` stop ${formatDec(price)}` : ` @ ${formatDec(price)}`}${iceberg ? ` iceberg ${String(values.icebergQty)}` : ""} (far from the market)`,
  };
}

/** A LIMIT (with a time in force) or LIMIT_MAKER order at `price`: it rests, or takes what crosses it. */
export function limitShape(
  view: ExplorationView,
  rules: Record<string, OrderTypeRule>,
  type: "LIMIT" | "LIMIT_MAKER",
  tif: string,
  side: Side,
  price: Dec,
  quantity: Dec,
): OrderShape | undefined {
  const rule = rules[type];
  if (!rule || !view.types.includes(type)) return undefined;
  const values = valuesByRule(rule, {
    price: formatDec(price),
    quantity: formatDec(quantity),
    timeInForce: tif,
  });
  if (!values) return undefined;
  const sentTif = typeof values.timeInForce === "string" ? values.timeInForce : undefined;
  return {
    type,
    side,
    values: { side, type, ...values },
    taker: { side, limit: price, maxQty: quantity, maxQuote: undefined },
    restsIfLeft: type === "LIMIT_MAKER" || sentTif === "GTC",
    allOrNothing: sentTif === "FOK",
    makerOnly: type === "LIMIT_MAKER",
    untriggeredStop: false,
    label: `${type}${sentTif ? ` ${sentTif}` : ""} ${side} ${formatDec(quantity)} @ ${formatDec(price)}`,
  };
}

/** A MARKET order for a base quantity, or for a quote budget. */
export function marketShape(
  view: ExplorationView,
  rules: Record<string, OrderTypeRule>,
  side: Side,
  amount: { quantity: Dec } | { quote: Dec },
): OrderShape | undefined {
  const rule = rules.MARKET;
  if (!rule || !view.types.includes("MARKET")) return undefined;
  const byQuote = "quote" in amount;
  if (byQuote && !view.quoteOrderQtyAllowed) return undefined;
  const values = valuesByRule(
    rule,
    byQuote ? { quoteOrderQty: formatDec(amount.quote) } : { quantity: formatDec(amount.quantity) },
  );
  if (!values) return undefined;
  return {
    type: "MARKET",
    side,
    values: { side, type: "MARKET", ...values },
    taker: {
      side,
      limit: undefined,
      maxQty: byQuote ? undefined : amount.quantity,
      maxQuote: byQuote ? amount.quote : undefined,
    },
    restsIfLeft: false,
    allOrNothing: false,
    makerOnly: false,
    untriggeredStop: false,
    label: `MARKET ${side} ${byQuote ? `quoteOrderQty ${formatDec(amount.quote)}` : formatDec(amount.quantity)}`,
  };
}
