/**
 * exchange_filters: the filters exchange_info lists for the run's symbol (PRICE_FILTER tick size,
 * LOT_SIZE step and minimum, NOTIONAL minimum) are enforced: an order that breaks one is refused.
 * Every probe is a LIMIT BUY far below the market, so one accepted by mistake rests and the
 * clean-up cancels it.
 */

import { ceilToStep, type Dec, div, formatDec, fromRatio, mul, parseDec, ZERO } from "../core/decimal.js";
import { expectRefusal, op, type RunContext, whyNoTrading } from "../kit/context.js";
import type { FarBuy } from "../kit/market.js";
import { placeOrder } from "../kit/order-placing.js";
import { refusalOf } from "../kit/refusal-codes.js";
import type { ContractCheck } from "./check.js";

const CHECK = "exchange_filters";

export const exchangeFilters: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "filters",
  description: "orders breaking exchange_info's tick size, lot size or minimum notional are refused",
  covers: [],
  hooks: [{ phase: "trading-behaviour", run: exchangeFiltersPhase }],
  appliesTo: (operation) => operation.behaviour.orderArithmetic !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: [
    "tick-size-not-enforced",
    "lot-size-not-enforced",
    "filter-failure-as-rejected",
    "second-symbol-tick-unenforced",
  ],
};

interface Probe {
  what: string;
  price: Dec;
  quantity: Dec;
}

export function filterProbes(
  rules: NonNullable<RunContext["rules"]>,
  far: { price: string; quantity: string },
): { probes: Probe[]; unobservable: string[] } {
  const price = parseDec(far.price);
  const quantity = parseDec(far.quantity);
  const probes: Probe[] = [];
  const unobservable: string[] = [];
  const half = (step: Dec) => step / 2n;
  if (rules.tick > ZERO && half(rules.tick) > ZERO)
    probes.push({
      what: `price ${formatDec(price + half(rules.tick))}, off the tick size ${formatDec(rules.tick)}`,
      price: price + half(rules.tick),
      quantity,
    });
  else unobservable.push("no tick size");
  if (rules.step > ZERO && half(rules.step) > ZERO)
    probes.push({
      what: `quantity ${formatDec(quantity + half(rules.step))}, off the step size ${formatDec(rules.step)}`,
      price,
      quantity: quantity + half(rules.step),
    });
  else unobservable.push("no step size");
  if (rules.minQty > rules.step && rules.step > ZERO)
    probes.push({
      what: `quantity ${formatDec(rules.minQty - rules.step)}, below the minimum ${formatDec(rules.minQty)}`,
      price,
      quantity: rules.minQty - rules.step,
    });
  else unobservable.push("LOT_SIZE minimum equals the step");
  if (rules.minNotional > ZERO) {
    // The largest quantity on the step whose notional at `price` stays below the minimum.
    const below = ceilToStep(div(mul(rules.minNotional, fromRatio(1, 2)), price), rules.step);
    if (below >= rules.minQty && mul(below, price) < rules.minNotional)
      probes.push({
        what: `notional ${formatDec(mul(below, price))}, below the minimum ${formatDec(rules.minNotional)}`,
        price,
        quantity: below,
      });
    else unobservable.push("no quantity on the step falls below the minimum notional");
  } else unobservable.push("no minimum notional");
  return { probes, unobservable };
}

export async function exchangeFiltersPhase(ctx: RunContext): Promise<void> {
  const newOrder = op(ctx, "new_order");
  if (!newOrder || !ctx.session.recorder.enabled(CHECK)) return;
  const skip = (reason: string) => ctx.session.recorder.skip(CHECK, newOrder.operationId, reason);
  const noTrading = whyNoTrading(ctx);
  if (noTrading) return skip(noTrading);
  const plans = ctx.symbols.filter((p) => "price" in p.farBuy);
  if (plans.length === 0) return skip("no symbol rules or market price to build the probes from");
  // On every symbol the run trades: each has filters of its own.
  for (const plan of plans) {
    const far = plan.farBuy as FarBuy;
    const { probes, unobservable } = filterProbes(plan.rules, far);
    for (const reason of unobservable)
      ctx.session.recorder.note(
        CHECK,
        newOrder.operationId,
        `not observable on ${plan.rules.symbol}: ${reason}`,
      );
    for (const probe of probes) {
      const placed = await placeOrder(
        ctx,
        newOrder,
        {
          symbol: plan.rules.symbol,
          side: "BUY",
          type: "LIMIT",
          timeInForce: "GTC",
          price: formatDec(probe.price),
          quantity: formatDec(probe.quantity),
        },
        `exchange filters: ${probe.what} on ${plan.rules.symbol}`,
      );
      expectRefusal(ctx, CHECK, placed.exchange, {
        what: `an order on ${plan.rules.symbol} with ${probe.what}`,
        ...refusalOf(ctx, "filter-failure", newOrder.operationId),
      });
    }
  }
}
