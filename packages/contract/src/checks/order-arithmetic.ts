/**
 * order_arithmetic (x-order-arithmetic): orders that really trade, in the smallest size the
 * filters allow, against the target's own best prices: MARKET, LIMIT IOC and FOK, and a resting
 * LIMIT that is then cancelled. Each FULL answer must add up (fills sum to the executed quantity,
 * the quote quantity is Σ price × qty), its status must follow the executed quantity, IOC and FOK
 * never rest, FOK fills all or nothing. Every buy that executed is offset by a MARKET sell.
 *
 * The phase trades so on every symbol the run trades. At the end, every FULL answer new_order gave
 * the run (on any symbol, for any check) is judged the same way.
 */

import type { OrderArithmetic } from "@marketapi/spec/model";
import { type Dec, formatDec, maxDec, mul, tryParseDec, unitOf, ZERO } from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { bodyObject, describeAnswer, ok } from "../kit/answers.js";
import { op, type RunContext, tradedPlans, whyNoTrading } from "../kit/context.js";
import {
  type FarBuy,
  offsetIsSure,
  type SymbolPlan,
  smallestMarketQuantity,
  smallestQuantity,
} from "../kit/market.js";
import { arithmeticProblems, quoteBudgetProblem } from "../kit/order-answers.js";
import { ORDER_OPERATIONS } from "../kit/order-operations.js";
import { type BestPrices, bestPrices, type PlacedOrder, placeOrder } from "../kit/order-placing.js";
import { afterCancel } from "../kit/order-state.js";
import { paramValue, type RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "order_arithmetic";

export const orderArithmetic: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "arith",
  description:
    "MARKET, LIMIT IOC/FOK and a resting LIMIT really trade: fills add up, status follows the executed quantity, IOC/FOK never rest (x-order-arithmetic)",
  covers: ["x-order-arithmetic"],
  hooks: [
    { phase: "trading-behaviour", run: orderArithmeticPhase },
    { phase: "end", run: judgeEveryFullAnswer },
  ],
  appliesTo: (operation) => operation.behaviour.orderArithmetic !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: [
    "ioc-remainder-rests",
    "fok-partial",
    "fills-short-on-ethusdt",
    "fok-checked-against-the-best-level-only",
    "market-quote-budget-one-step-short",
  ],
};

export async function orderArithmeticPhase(ctx: RunContext): Promise<void> {
  const newOrder = op(ctx, "new_order");
  const rule = newOrder?.behaviour.orderArithmetic;
  if (!newOrder || !rule || !ctx.session.recorder.enabled(CHECK)) return;
  const noTrading = whyNoTrading(ctx);
  if (noTrading) return ctx.session.recorder.skip(CHECK, newOrder.operationId, noTrading);
  const plans = tradedPlans(ctx);
  if (plans.length === 0)
    return ctx.session.recorder.skip(CHECK, newOrder.operationId, "exchangeInfo lists no symbol to trade");
  // Every symbol the run trades: each has its own book, filters and matching.
  for (const plan of plans) await tradeOn(ctx, { newOrder, rule, plan });
}

/** What one symbol's trades are placed with and judged by. */
interface Trading {
  newOrder: ContractOperation;
  rule: OrderArithmetic;
  plan: SymbolPlan;
}

async function tradeOn(ctx: RunContext, trading: Trading): Promise<void> {
  const { newOrder, rule, plan } = trading;
  const { rules } = plan;
  const symbol = rules.symbol;
  const prices = await bestPrices(ctx, `order arithmetic: best prices of ${symbol}`, symbol);
  if (!prices)
    return ctx.session.recorder.skip(
      CHECK,
      newOrder.operationId,
      `the order book of ${symbol} has an empty side: nothing to trade against`,
    );
  const sized = smallestQuantity(rules, prices.ask);
  const quantity = formatDec(sized);
  const types = rules.orderTypes;
  const can = (type: string) => types.length === 0 || types.includes(type);

  const trades: Array<{ label: string; values: Record<string, unknown> }> = [];
  if (can("MARKET"))
    trades.push({
      label: "MARKET BUY",
      values: { type: "MARKET", quantity: formatDec(smallestMarketQuantity(rules, prices.ask)) },
    });
  if (can("LIMIT")) {
    const ask = formatDec(prices.ask);
    // Priced above the best ask, it fills at the ask: the quote quantity must come from the fill
    // prices, not from the order's own price.
    const above = formatDec(prices.ask + 2n * rules.tick);
    trades.push({
      label: `LIMIT IOC BUY at ${above}, above the best ask ${ask}`,
      values: { type: "LIMIT", timeInForce: "IOC", price: above, quantity },
    });
    trades.push({
      label: `LIMIT FOK BUY at the best ask ${ask}`,
      values: { type: "LIMIT", timeInForce: "FOK", price: ask, quantity },
    });
  }
  for (const trade of trades) {
    const placed = await placeOrder(
      ctx,
      newOrder,
      { symbol, side: "BUY", ...trade.values },
      `order arithmetic: ${trade.label} on ${symbol}`,
    );
    const executed = judgeAnswer(
      ctx,
      rule,
      placed.exchange,
      `${trade.label} on ${symbol}`,
      String(trade.values.timeInForce ?? ""),
    );
    if (executed !== undefined && executed > ZERO) await offset(ctx, trading, executed, sized, prices.bid);
  }
  if (can("LIMIT")) await fokBeyondLiquidity(ctx, trading, prices);
  if (can("LIMIT")) await fokAcrossLevels(ctx, trading, prices);
  if (can("LIMIT") && can("MARKET") && rules.quoteOrderQtyAllowed)
    await quoteBudgetSpent(ctx, trading, prices);
  if (can("LIMIT") && "price" in plan.farBuy) {
    await unfillable(ctx, trading, plan.farBuy);
    await restingThenCancelled(ctx, trading, plan.farBuy);
  }
}

/** The served new_order answers of the run that carry their fills (the FULL variant), in order. */
function fullAnswers(ctx: RunContext, rule: OrderArithmetic): RoundTrip[] {
  return ctx.session.timeline
    .map(({ exchange }) => exchange)
    .filter((exchange) => {
      const body = bodyObject(exchange);
      return (
        exchange.op.operationId === ORDER_OPERATIONS.newOrder &&
        ok(exchange) &&
        body !== undefined &&
        Array.isArray(body[rule.fills.list]) &&
        body[rule.executedQty] !== undefined
      );
    });
}

/** Every FULL answer of the run adds up; the first that does not fails, with how many do not. */
async function judgeEveryFullAnswer(ctx: RunContext): Promise<void> {
  const rule = op(ctx, ORDER_OPERATIONS.newOrder)?.behaviour.orderArithmetic;
  if (!rule || !ctx.session.recorder.enabled(CHECK)) return;
  const answers = fullAnswers(ctx, rule);
  const wrong = answers
    .map((exchange) => ({
      exchange,
      problems: arithmeticProblems(
        rule,
        bodyObject(exchange) ?? {},
        paramValue(exchange.plan.params, "timeInForce") ?? "",
      ),
    }))
    .filter((answer) => answer.problems.length > 0);
  const first = wrong[0];
  if (first) {
    const body = bodyObject(first.exchange) ?? {};
    ctx.session.fail(
      CHECK,
      first.exchange,
      `new_order's answer for order ${String(body.orderId)} on ${String(body.symbol)}: ${first.problems.join("; ")} (x-order-arithmetic; ${wrong.length} of the run's ${answers.length} FULL answers do not add up)`,
    );
  } else if (answers.length > 0) ctx.session.pass(CHECK, answers.at(-1)!);
}

/** Judges one FULL answer; returns the executed quantity when the answer could be read. */
export function judgeAnswer(
  ctx: RunContext,
  rule: OrderArithmetic,
  round: RoundTrip,
  label: string,
  timeInForce: string,
): Dec | undefined {
  const { session } = ctx;
  if (!ok(round)) {
    session.fail(CHECK, round, `${label}: a valid order was refused (${describeAnswer(round)})`);
    return undefined;
  }
  const body = bodyObject(round) ?? {};
  const problems = arithmeticProblems(rule, body, timeInForce);
  if (problems.length === 0) session.pass(CHECK, round);
  else session.fail(CHECK, round, `${label}: ${problems.join("; ")} (x-order-arithmetic)`);
  return tryParseDec(body[rule.executedQty]);
}

/**
 * Sells what a buy of `sized` executed (MARKET), so the account ends where it started. A refusal
 * is judged only when the filters must accept the quantity: a buy that shared the ask with others'
 * orders may have executed less than the minimum notional.
 */
async function offset(
  ctx: RunContext,
  { newOrder, rule, plan }: Trading,
  executed: Dec,
  sized: Dec,
  bid: Dec,
): Promise<void> {
  const label = "the offsetting MARKET SELL";
  const placed = await placeOrder(
    ctx,
    newOrder,
    { symbol: plan.rules.symbol, side: "SELL", type: "MARKET", quantity: formatDec(executed) },
    "order arithmetic: MARKET SELL offsetting the buy",
  );
  if (ok(placed.exchange) || offsetIsSure(plan.rules, executed, sized, bid))
    judgeAnswer(ctx, rule, placed.exchange, label, "");
  else
    ctx.session.recorder.note(
      CHECK,
      newOrder.operationId,
      `${label} of ${formatDec(executed)} was refused (${describeAnswer(placed.exchange)}); less than the filters must accept at ${formatDec(bid)}, so not judged`,
    );
}

/**
 * A FOK for more than the book holds at its price must fill nothing. The only liquidity at that
 * price is the tester's own SELL inside the spread, so a server that fills FOK orders in part
 * trades the tester with itself (nothing to offset); the SELL is cancelled afterwards.
 */
async function fokBeyondLiquidity(
  ctx: RunContext,
  { newOrder, rule, plan }: Trading,
  prices: BestPrices,
): Promise<void> {
  const { rules } = plan;
  const symbol = rules.symbol;
  if (!rule.allOrNothing.includes("FOK")) return;
  const note = (why: string) => ctx.session.recorder.note(CHECK, newOrder.operationId, why);
  if (prices.ask - prices.bid < 2n * rules.tick)
    return note("FOK beyond the book's liquidity not observable: the spread is one tick");
  const price = formatDec(prices.ask - rules.tick);
  const own = smallestQuantity(rules, prices.ask - rules.tick);
  const resting = await ownSellInsideSpread(ctx, newOrder, symbol, prices.ask - rules.tick, own);
  if (!ok(resting.exchange) || resting.body?.status !== "NEW")
    return note(`FOK beyond the book's liquidity not observable: own SELL at ${price} did not rest`);
  const placed = await placeOrder(
    ctx,
    newOrder,
    { symbol, side: "BUY", type: "LIMIT", timeInForce: "FOK", price, quantity: formatDec(2n * own) },
    `order arithmetic: LIMIT FOK BUY of twice what rests at ${price}`,
  );
  const bought =
    judgeAnswer(ctx, rule, placed.exchange, `a LIMIT FOK for more than the book holds at ${price}`, "FOK") ??
    ZERO;
  const sold = await cancelOwn(ctx, rule, symbol, resting.clientOrderId);
  // Someone else may have bought the own SELL meanwhile: whatever is left over is offset.
  await offsetNet(ctx, newOrder, symbol, bought - sold, "the FOK probe");
}

/** A LIMIT GTC SELL of the run's at `price`, inside the spread, of `quantity`. */
function ownSellInsideSpread(
  ctx: RunContext,
  newOrder: ContractOperation,
  symbol: string,
  price: Dec,
  quantity: Dec,
): Promise<PlacedOrder> {
  return placeOrder(
    ctx,
    newOrder,
    {
      symbol,
      side: "SELL",
      type: "LIMIT",
      timeInForce: "GTC",
      price: formatDec(price),
      quantity: formatDec(quantity),
    },
    `order arithmetic: own LIMIT SELL inside the spread at ${formatDec(price)}`,
  );
}

/** Offsets what a probe left the account with: `net` bought (sold when negative), by a MARKET order. */
async function offsetNet(
  ctx: RunContext,
  newOrder: ContractOperation,
  symbol: string,
  net: Dec,
  what: string,
): Promise<void> {
  if (net === ZERO) return;
  await placeOrder(
    ctx,
    newOrder,
    {
      symbol,
      side: net > ZERO ? "SELL" : "BUY",
      type: "MARKET",
      quantity: formatDec(net > ZERO ? net : -net),
    },
    `order arithmetic: MARKET order offsetting ${what}`,
  );
}

/**
 * A FOK the book can fill across two levels must fill: the run's own SELLs rest inside the spread at
 * two prices, the nearer one tick under the ask, and a LIMIT FOK BUY at the farther of them asks for
 * both. All of it is there, so it fills (all or nothing means the whole quantity, at every price up
 * to its limit, not the best level alone); one that expires while both SELLs still rest untouched
 * fails. What was bought and what was sold are offset, as in fokBeyondLiquidity.
 */
async function fokAcrossLevels(ctx: RunContext, trading: Trading, prices: BestPrices): Promise<void> {
  const { newOrder, rule, plan } = trading;
  const { rules } = plan;
  const symbol = rules.symbol;
  if (!rule.allOrNothing.includes("FOK")) return;
  const note = (why: string) => ctx.session.recorder.note(CHECK, newOrder.operationId, why);
  if (prices.ask - prices.bid < 3n * rules.tick)
    return note("a FOK across two levels not observable: the spread is under three ticks");
  const levels = [prices.ask - 2n * rules.tick, prices.ask - rules.tick];
  const sells: Array<{ clientOrderId: string; quantity: Dec }> = [];
  for (const level of levels) {
    const quantity = smallestQuantity(rules, level);
    const resting = await ownSellInsideSpread(ctx, newOrder, symbol, level, quantity);
    if (ok(resting.exchange) && resting.body?.status === "NEW")
      sells.push({ clientOrderId: resting.clientOrderId, quantity });
  }
  const total = sells.reduce((sum, s) => sum + s.quantity, ZERO);
  const price = formatDec(levels[1]!);
  const placed =
    sells.length === levels.length
      ? await placeOrder(
          ctx,
          newOrder,
          { symbol, side: "BUY", type: "LIMIT", timeInForce: "FOK", price, quantity: formatDec(total) },
          `order arithmetic: LIMIT FOK BUY at ${price} of what the run's two SELLs offer`,
        )
      : undefined;
  const bought = placed
    ? (judgeAnswer(ctx, rule, placed.exchange, `a LIMIT FOK across two levels at ${price}`, "FOK") ?? ZERO)
    : ZERO;
  const sold: Dec[] = [];
  for (const sell of sells) sold.push(await cancelOwn(ctx, rule, symbol, sell.clientOrderId));
  if (!placed) note("a FOK across two levels not observable: the run's SELLs did not both rest");
  // Self-trade prevention ends a FOK that meets the run's own SELLs EXPIRED_IN_MATCH: not judged.
  else if (placed.body?.status === "EXPIRED" && bought === ZERO && sold.every((s) => s === ZERO))
    ctx.session.fail(
      CHECK,
      placed.exchange,
      `a LIMIT FOK BUY at ${price} of ${formatDec(total)}, all of which the run's own SELLs at ${levels.map(formatDec).join(" and ")} offered, filled nothing while both still rested untouched: a FOK fills all it can reach up to its price, not the best level alone`,
    );
  await offsetNet(
    ctx,
    newOrder,
    symbol,
    bought - sold.reduce((sum, s) => sum + s, ZERO),
    "the FOK across two levels",
  );
}

/**
 * A MARKET BUY by quote budget spends it as far as whole steps allow: the run's own SELL rests one
 * tick under the ask with three times the smallest quantity, and the budget is its price × twice
 * the smallest quantity, a whole number of steps, so the order must buy exactly that much (an
 * engine that adds steps while the cost stays strictly under the budget buys one step less).
 * Judged only when every fill was at the SELL's price (no one else's order came between). What
 * was bought and sold is offset, as in fokBeyondLiquidity.
 */
async function quoteBudgetSpent(ctx: RunContext, trading: Trading, prices: BestPrices): Promise<void> {
  const { newOrder, rule, plan } = trading;
  const { rules } = plan;
  const symbol = rules.symbol;
  const note = (why: string) =>
    ctx.session.recorder.note(CHECK, newOrder.operationId, `a MARKET BUY by quote budget not judged: ${why}`);
  if (prices.ask - prices.bid < 2n * rules.tick) return note("the spread is one tick");
  const level = prices.ask - rules.tick;
  const smallest = smallestQuantity(rules, level);
  const offered = 3n * smallest;
  const budget = mul(level, 2n * smallest);
  if (budget % unitOf(rules.quotePrecision) !== ZERO)
    return note(`${formatDec(budget)} has more decimals than the quote asset's ${rules.quotePrecision}`);
  const resting = await ownSellInsideSpread(ctx, newOrder, symbol, level, offered);
  if (!ok(resting.exchange) || resting.body?.status !== "NEW")
    return note(`the run's own SELL at ${formatDec(level)} did not rest`);
  const placed = await placeOrder(
    ctx,
    newOrder,
    { symbol, side: "BUY", type: "MARKET", quoteOrderQty: formatDec(budget) },
    `order arithmetic: MARKET BUY by quoteOrderQty ${formatDec(budget)}, what the own SELL asks for twice the smallest quantity`,
  );
  const bought = judgeAnswer(
    ctx,
    rule,
    placed.exchange,
    `a MARKET BUY by quoteOrderQty ${formatDec(budget)}`,
    "",
  );
  const sold = await cancelOwn(ctx, rule, symbol, resting.clientOrderId);
  const fills =
    (bodyObject(placed.exchange)?.[rule.fills.list] as Record<string, unknown>[] | undefined) ?? [];
  const atLevel = fills.length > 0 && fills.every((f) => tryParseDec(f[rule.fills.price]) === level);
  if (bought !== undefined && atLevel) {
    const step = maxDec(rules.step, rules.marketStep);
    const problem = quoteBudgetProblem(budget, level, step, offered, bought);
    if (problem) ctx.session.fail(CHECK, placed.exchange, problem);
    else ctx.session.pass(CHECK, placed.exchange);
  } else if (bought !== undefined) note(`it did not fill at the own SELL's price ${formatDec(level)} alone`);
  await offsetNet(ctx, newOrder, symbol, (bought ?? ZERO) - sold, "the MARKET BUY by quote budget");
}

/** Cancels an own order by client id; returns what it executed (read back if the cancel was refused). */
async function cancelOwn(
  ctx: RunContext,
  rule: OrderArithmetic,
  symbol: string,
  clientOrderId: string,
): Promise<Dec> {
  const cancel = op(ctx, "cancel_order");
  if (cancel && ctx.ledger.get(clientOrderId)?.state !== "closed") {
    const exchange = await ctx.session.call(
      { op: cancel, params: encodeParams(cancel, { symbol, origClientOrderId: clientOrderId }) },
      "order arithmetic: cancel the own SELL",
    );
    if (afterCancel(cancel, exchange).state === "closed") ctx.ledger.closed(clientOrderId);
    if (ok(exchange)) return tryParseDec(bodyObject(exchange)?.[rule.executedQty]) ?? ZERO;
  }
  const query = op(ctx, "query_order");
  if (!query) return ZERO;
  const read = await ctx.session.call(
    { op: query, params: encodeParams(query, { symbol, origClientOrderId: clientOrderId }) },
    "order arithmetic: what the own SELL executed",
  );
  return tryParseDec(bodyObject(read)?.[rule.executedQty]) ?? ZERO;
}

/** A FOK and an IOC far below the market cannot fill: nothing executed, and neither rests. */
async function unfillable(ctx: RunContext, { newOrder, rule, plan }: Trading, far: FarBuy) {
  const symbol = plan.rules.symbol;
  for (const tif of ["FOK", "IOC"].filter((t) => rule.neverRest.includes(t))) {
    const placed = await placeOrder(
      ctx,
      newOrder,
      { symbol, side: "BUY", type: "LIMIT", timeInForce: tif, price: far.price, quantity: far.quantity },
      `order arithmetic: LIMIT ${tif} BUY far below the market`,
    );
    judgeAnswer(ctx, rule, placed.exchange, `an unfillable LIMIT ${tif}`, tif);
  }
}

/** A resting LIMIT GTC answers NEW with nothing executed; its cancel answers CANCELED. */
async function restingThenCancelled(ctx: RunContext, { newOrder, rule, plan }: Trading, far: FarBuy) {
  const symbol = plan.rules.symbol;
  const placed = await placeOrder(
    ctx,
    newOrder,
    { symbol, side: "BUY", type: "LIMIT", timeInForce: "GTC", price: far.price, quantity: far.quantity },
    "order arithmetic: a resting LIMIT GTC BUY",
  );
  judgeAnswer(ctx, rule, placed.exchange, "a resting LIMIT GTC", "GTC");
  const cancel = op(ctx, "cancel_order");
  if (!cancel || !ok(placed.exchange)) return;
  const exchange = await ctx.session.call(
    { op: cancel, params: encodeParams(cancel, { symbol, origClientOrderId: placed.clientOrderId }) },
    "order arithmetic: cancel the resting LIMIT",
  );
  if (!ok(exchange)) {
    ctx.session.fail(CHECK, exchange, `cancelling a resting order was refused (${describeAnswer(exchange)})`);
    return;
  }
  ctx.ledger.closed(placed.clientOrderId);
  const body = bodyObject(exchange) ?? {};
  const executed = tryParseDec(body[rule.executedQty]);
  if (body.status === "CANCELED" && executed === ZERO) ctx.session.pass(CHECK, exchange);
  else
    ctx.session.fail(
      CHECK,
      exchange,
      `the cancelled resting order answers status ${String(body.status)} with ${rule.executedQty} ${String(body[rule.executedQty])}; want CANCELED with 0`,
    );
}
