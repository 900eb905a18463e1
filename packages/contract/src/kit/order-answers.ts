/**
 * What an order's answer must add up to (x-order-arithmetic): fills that sum to the executed
 * quantity and the quote quantity, a status that follows the executed share, IOC and FOK that
 * never rest, FOK all or nothing. Pure: the order_arithmetic check and the exploration judge
 * answers with it.
 */
import type { OrderArithmetic } from "@marketapi/spec/model";
import { type Dec, div, floorToStep, formatDec, mul, tryParseDec, unitOf, ZERO } from "../core/decimal.js";

const RESTING = ["NEW", "PARTIALLY_FILLED"];

/** What is wrong with an order answer, per the rule; empty when it adds up. */
export function arithmeticProblems(
  rule: OrderArithmetic,
  body: Record<string, unknown>,
  timeInForce: string,
): string[] {
  const problems: string[] = [];
  const executed = tryParseDec(body[rule.executedQty]);
  const orig = tryParseDec(body.origQty);
  const quote = tryParseDec(body[rule.quoteQty]);
  const status = String(body.status);
  if (executed === undefined || orig === undefined || quote === undefined) {
    return [`${rule.executedQty}, origQty and ${rule.quoteQty} must be decimal text`];
  }
  const fills = Array.isArray(body[rule.fills.list])
    ? (body[rule.fills.list] as Record<string, unknown>[])
    : [];
  let qtySum = ZERO;
  let quoteSum = ZERO;
  for (const fill of fills) {
    const qty = tryParseDec(fill[rule.fills.qty]) ?? ZERO;
    qtySum += qty;
    quoteSum += mul(tryParseDec(fill[rule.fills.price]) ?? ZERO, qty);
  }
  if (qtySum !== executed)
    problems.push(
      `the ${fills.length} fills sum to ${formatDec(qtySum)}, ${rule.executedQty} is ${formatDec(executed)}`,
    );
  // The quote quantity is written with the quote asset's precision: allow one unit of 10^-8 per fill.
  const tolerance = unitOf(8) * BigInt(Math.max(1, fills.length));
  const gap = quote > quoteSum ? quote - quoteSum : quoteSum - quote;
  if (gap > tolerance)
    problems.push(
      `${rule.quoteQty} is ${formatDec(quote)}, Σ ${rule.fills.price} × ${rule.fills.qty} of the fills is ${formatDec(quoteSum)}`,
    );
  const share = executed === ZERO ? "none" : executed < orig ? "part" : "all";
  if (!rule.status[share].includes(status))
    problems.push(
      `status ${status} with ${share === "none" ? "nothing" : share === "part" ? "part" : "all"} of ${formatDec(orig)} executed; want ${rule.status[share].join(" or ")}`,
    );
  if (rule.neverRest.includes(timeInForce) && RESTING.includes(status))
    problems.push(`a ${timeInForce} order rests on the book (status ${status})`);
  if (rule.allOrNothing.includes(timeInForce) && share === "part")
    problems.push(`a ${timeInForce} order filled ${formatDec(executed)} of ${formatDec(orig)}`);
  return problems;
}

/**
 * What a MARKET BUY by quote budget executed wrong, when all of it filled at one `price` from an
 * order offering `offered` there: it buys as much as the budget pays for in whole steps
 * ("fills as close to the notional as the lot size allows"), up to what is offered, no less and
 * no more. Undefined when it is right. Pure.
 */
export function quoteBudgetProblem(
  budget: Dec,
  price: Dec,
  step: Dec,
  offered: Dec,
  executed: Dec,
): string | undefined {
  const affordable = floorToStep(div(budget, price), step);
  const expected = affordable < offered ? affordable : offered;
  if (executed === expected) return undefined;
  return `a MARKET BUY by quoteOrderQty ${formatDec(budget)}, filled at ${formatDec(price)} from an order offering ${formatDec(offered)}, executed ${formatDec(executed)}; the budget pays for ${formatDec(expected)} in whole steps of ${formatDec(step)} (${formatDec(mul(expected, price))}), ${executed < expected ? "one step or more short of it" : "more than it pays for"}`;
}

/**
 * What an answer shows wrong of a trailing stop placed without a stopPrice on a market that had
 * traded: it tracks the last price from its placement (the spec: "an order placed with a stopPrice
 * activates when the last price reaches it"; one without, at once), so its trailingTime is a time,
 * not -1, where the answer shows one. Undefined when it is right. Pure.
 */
export function unanchoredTrailingProblem(body: Record<string, unknown>): string | undefined {
  const time = body.trailingTime;
  if (time === undefined || (typeof time === "number" && time >= 0)) return undefined;
  return `trailingTime ${JSON.stringify(time)}, though the trailing stop was placed without a stopPrice on a market that had traded: it is active from its placement`;
}

/**
 * What an answer shows wrong of a trailing stop that is not active yet (placed with a stopPrice the
 * market has not reached): its trailingTime is -1 ("-1 while it is not active"), where the answer
 * shows one. Undefined when it is right. Pure.
 */
export function inactiveTrailingProblem(body: Record<string, unknown>): string | undefined {
  const time = body.trailingTime;
  if (time === undefined || time === -1) return undefined;
  return `trailingTime ${JSON.stringify(time)}, though the trailing stop is not active (its stopPrice ${String(body.stopPrice)} not reached): -1 while it is not active`;
}
