/**
 * stop_triggers: stops fire when the last price reaches them, and not before. Only where the run
 * may move the last price (a sandbox: the embedded server, --reference-extras, or --move-prices):
 * it moves it with trades between its own orders inside the spread, so no one else's order trades.
 *
 * On every symbol the run trades with room inside the spread: the last price is set to a price m of the
 * run's own; then a STOP_LOSS_LIMIT SELL and a STOP_LOSS (market) SELL with their stops one tick
 * below m, and TAKE_PROFIT_LIMIT SELLs with their stops one and two ticks above, are placed (each
 * of the types exchangeInfo lists). Before any move none works (isWorking false, workingTime -1).
 * The last price is moved one tick down: the two stops there fire (the LIMIT one rests as an ask
 * at its price, working since the trade that fired it; the market one sells), the others do not.
 * It is moved one tick above m: the first take-profit fires, the second never does. Everything
 * left is cancelled and what the market stop sold is bought back.
 */
import { type Dec, formatDec, tryParseDec } from "../core/decimal.js";
import { bodyObject, describeAnswer, ok } from "../kit/answers.js";
import { type RunContext, whyNoTrading } from "../kit/context.js";
import { type SymbolPlan, smallestQuantity } from "../kit/market.js";
import {
  cancelIfOpen,
  type OwnOrder,
  placeOwn,
  quantityAt,
  queryOwn,
  readBook,
  spreadWithRoom,
  tradeBetweenOwn,
} from "../kit/own-orders.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "stop_triggers";
const PURPOSE = "stop triggers";

export const stopTriggers: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "stops",
  description:
    "stops fire when the last price reaches their stop price, and not before: a triggered limit stop rests at its price, working since the trade that fired it, a market stop executes",
  covers: [],
  hooks: [{ phase: "trading-behaviour", run: stopTriggersCheck }],
  appliesTo: (operation) => ["new_order", "query_order", "order_book"].includes(operation.operationId),
  notApplicable: "places or reads no stop",
  seenToCatch: [
    "stop-never-fires",
    "stop-never-fires-on-ethusdt",
    "take-profit-working-at-once",
    "stop-working-time-unset",
  ],
};

/** A stop as the run placed it, and whether the last price has reached it. */
export interface StopExpectation {
  type: string;
  stopPrice: Dec;
  /** The trade that should have fired it (its time), or undefined when it must not have fired. */
  firedAt: number | undefined;
}

/**
 * What is wrong with a stop order as query_order shows it, given whether it should have fired
 * (and the time of the trade that fired it). Pure.
 */
export function stopProblems(expected: StopExpectation, order: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const name = `${expected.type} (stop ${formatDec(expected.stopPrice)})`;
  const status = String(order.status);
  const working = order.isWorking;
  if (expected.firedAt === undefined) {
    if (status !== "NEW") problems.push(`${name} is ${status}, though the last price never reached its stop`);
    if (working !== false)
      problems.push(
        `${name} is working (isWorking ${String(working)}) before the last price reached its stop`,
      );
    if (order.workingTime !== -1)
      problems.push(`${name} has workingTime ${String(order.workingTime)} before it fired; the spec says -1`);
    return problems;
  }
  const limit = expected.type.endsWith("_LIMIT");
  if (limit && status !== "NEW" && status !== "PARTIALLY_FILLED" && status !== "FILLED")
    problems.push(`${name} is ${status} after the last price reached its stop`);
  if (!limit && status !== "FILLED" && status !== "PARTIALLY_FILLED" && status !== "EXPIRED")
    problems.push(`${name} is ${status} after the last price reached its stop: a market stop executes`);
  if (status === "NEW" && working !== true)
    problems.push(`${name} fired but is not working (isWorking ${String(working)})`);
  if (typeof order.workingTime !== "number" || order.workingTime < expected.firedAt)
    problems.push(
      `${name} fired with the trade at ${expected.firedAt}, but its workingTime is ${String(order.workingTime)}`,
    );
  return problems;
}

async function stopTriggersCheck(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK)) return;
  const skip = (reason: string) => {
    for (const id of ["new_order", "query_order", "order_book"]) ctx.session.recorder.skip(CHECK, id, reason);
  };
  const noTrading = whyNoTrading(ctx);
  if (noTrading) return skip(noTrading);
  if (!ctx.movePrices)
    return skip(
      "the run does not move prices on this target (it could fire others' stops): --move-prices allows it",
    );
  const plans = ctx.symbols.filter((p) => p.rules.selfTradeAllowed && stopTypes(p).length > 0);
  if (plans.length === 0)
    return skip("no symbol lists a stop type and lets the run's orders trade with each other");
  // Every symbol the run trades: each keeps its own stops and its own last price.
  for (const plan of plans) await onSymbol(ctx, plan);
}

const STOP_TYPES = ["STOP_LOSS_LIMIT", "TAKE_PROFIT_LIMIT", "STOP_LOSS"];

function stopTypes(plan: SymbolPlan): string[] {
  return STOP_TYPES.filter((t) => plan.rules.orderTypes.includes(t));
}

interface Placed {
  order: OwnOrder;
  expectation: StopExpectation;
  /** The ticks from m the stop sits at (negative below). */
  offset: number;
}

async function onSymbol(ctx: RunContext, plan: SymbolPlan): Promise<void> {
  const { rules } = plan;
  const symbol = rules.symbol;
  const spread = await spreadWithRoom(ctx, rules, 7n, `${PURPOSE}: the book of ${symbol}`);
  if (!spread)
    return ctx.session.recorder.skip(CHECK, "new_order", `${symbol}: no room of 7 ticks inside the spread`);
  const tick = rules.tick;
  const m = spread.bid + tick * 3n;
  const quantity = smallestQuantity(rules, m - tick * 2n);
  const q = formatDec(quantity);
  ctx.progress({
    type: "stage",
    message: `${PURPOSE}: the last price of ${symbol} moved with the run's own trades inside the spread (a sandbox), to fire its stops`,
  });
  const placed: Placed[] = [];
  try {
    if (!(await moveTo(ctx, symbol, m, q))) return;
    // The control must not fire on either move: a market stop's own sale moves the last price down
    // to the best bid, so it sits above, where the last price never reaches.
    const stops: Array<{ type: string; offset: number }> = [
      { type: "STOP_LOSS_LIMIT", offset: -1 },
      { type: "STOP_LOSS", offset: -1 },
      { type: "TAKE_PROFIT_LIMIT", offset: 1 },
      { type: "TAKE_PROFIT_LIMIT", offset: 2 },
    ].filter((s) => rules.orderTypes.includes(s.type));
    for (const stop of stops) {
      const stopPrice = m + tick * BigInt(stop.offset);
      const limit = stop.type.endsWith("_LIMIT");
      const order = await placeOwn(
        ctx,
        {
          symbol,
          side: "SELL",
          type: stop.type,
          quantity: q,
          stopPrice: formatDec(stopPrice),
          ...(limit ? { price: formatDec(stopPrice), timeInForce: "GTC" } : {}),
          newOrderRespType: "RESULT",
        },
        `${PURPOSE}: a ${stop.type} SELL with its stop at ${formatDec(stopPrice)}`,
      );
      if (!ok(order.placed.exchange)) {
        ctx.session.fail(
          CHECK,
          order.placed.exchange,
          `a ${stop.type} SELL with its stop ${stop.offset < 0 ? "below" : "above"} the last price was refused (${describeAnswer(order.placed.exchange)})`,
        );
        continue;
      }
      placed.push({
        order,
        expectation: { type: stop.type, stopPrice, firedAt: undefined },
        offset: stop.offset,
      });
    }
    if (placed.length === 0) return;
    await judgeAll(ctx, placed, "before the last price moved");
    const down = await moveTo(ctx, symbol, m - tick, q);
    if (down === undefined) return;
    for (const p of placed) if (p.offset === -1) p.expectation.firedAt = down;
    await judgeAll(ctx, placed, "after the last price fell one tick");
    await judgeRestingAsk(ctx, symbol, placed, m - tick);
    // The fired limit stop rests as an ask below the next move's price: it goes first.
    for (const p of placed)
      if (p.offset === -1 && p.expectation.type.endsWith("_LIMIT"))
        await cancelIfOpen(ctx, p.order, `${PURPOSE}: cancel`);
    const up = await moveTo(ctx, symbol, m + tick, q);
    if (up === undefined) return;
    for (const p of placed) if (p.offset === 1) p.expectation.firedAt = up;
    await judgeAll(
      ctx,
      placed.filter((p) => p.offset > 0),
      "after the last price rose above its start",
    );
  } finally {
    for (const p of placed) await cancelIfOpen(ctx, p.order, `${PURPOSE}: cancel`);
    const sold = placed.find(
      (p) => p.expectation.type === "STOP_LOSS" && p.expectation.firedAt !== undefined,
    );
    if (sold) await buyBack(ctx, sold.order);
  }
}

/** Moves the last price to `price` with a trade of the run's own; the trade's time, or undefined. */
async function moveTo(
  ctx: RunContext,
  symbol: string,
  price: Dec,
  quantity: string,
): Promise<number | undefined> {
  const trade = await tradeBetweenOwn(ctx, symbol, formatDec(price), quantity, PURPOSE);
  if (trade?.untaken) ctx.session.fail(CHECK, trade.taker.placed.exchange, trade.untaken);
  const body = trade ? bodyObject(trade.taker.placed.exchange) : undefined;
  if (
    !trade ||
    !ok(trade.taker.placed.exchange) ||
    tryParseDec(body?.executedQty) !== tryParseDec(quantity)
  ) {
    ctx.session.recorder.note(
      CHECK,
      "new_order",
      `the run could not trade with itself at ${formatDec(price)} on ${symbol}`,
    );
    return undefined;
  }
  return typeof body?.transactTime === "number" ? body.transactTime : 0;
}

async function judgeAll(ctx: RunContext, placed: readonly Placed[], when: string): Promise<void> {
  for (const p of placed) {
    const query = await queryOwn(
      ctx,
      p.order,
      `${PURPOSE}: query_order of the ${p.expectation.type} ${when}`,
    );
    if (!query || !ok(query)) continue;
    judge(ctx, query, stopProblems(p.expectation, bodyObject(query) ?? {}), when);
  }
}

function judge(ctx: RunContext, exchange: RoundTrip, problems: string[], when: string): void {
  if (problems.length > 0) ctx.session.fail(CHECK, exchange, `${when}: ${problems.join("; ")}`);
  else ctx.session.pass(CHECK, exchange);
}

/** The fired STOP_LOSS_LIMIT rests as an ask at its price, with its quantity. */
async function judgeRestingAsk(
  ctx: RunContext,
  symbol: string,
  placed: readonly Placed[],
  price: Dec,
): Promise<void> {
  const fired = placed.find((p) => p.offset === -1 && p.expectation.type === "STOP_LOSS_LIMIT");
  if (!fired) return;
  const book = await readBook(ctx, symbol, 10, `${PURPOSE}: the book after the stop fired`);
  if (!book) return;
  const wanted = tryParseDec(bodyObject(fired.order.placed.exchange)?.origQty);
  const shown = quantityAt(book.asks, price);
  if (wanted !== undefined && shown < wanted)
    ctx.session.fail(
      CHECK,
      book.exchange,
      `the fired STOP_LOSS_LIMIT SELL should rest as an ask of ${formatDec(wanted)} at ${formatDec(price)}; the book shows ${formatDec(shown)} there`,
    );
  else ctx.session.pass(CHECK, book.exchange);
}

/** Buys back what a fired market stop sold (MARKET BUY of its executed quantity). */
async function buyBack(ctx: RunContext, order: OwnOrder): Promise<void> {
  const query = await queryOwn(ctx, order, `${PURPOSE}: what the market stop sold`);
  const executed = tryParseDec(bodyObject(query ?? order.placed.exchange)?.executedQty);
  if (executed === undefined || executed === 0n) return;
  await placeOwn(
    ctx,
    { symbol: order.symbol, side: "BUY", type: "MARKET", quantity: formatDec(executed) },
    `${PURPOSE}: a MARKET BUY buying back what the stop sold`,
  );
}
