/**
 * order_times: every time field says when the event that sets it happened (the live API's
 * meaning of each field; the spec leaves them to the examples). A new order's transactTime is
 * when the target took it, within the time the request was in flight; query_order then shows it
 * as the order's `time`, `workingTime` (it works at once) and `updateTime`. A cancel's
 * transactTime is later than the order's; afterwards `updateTime` is the cancel's and `time` has
 * not moved. A fill sets the maker's `updateTime` to the taker's transactTime, which is also the
 * trade's time in the trade list, and the average price's `closeTime` when that trade is the last.
 * A cancel refused because the order is no longer open (cancelled, filled) changes nothing: the
 * order reads the same after it, `updateTime` included.
 * Judged on the run's own orders, on every symbol it trades. At the end, every order read of the
 * run (query_order, open_orders, all_orders) shows isWorking exactly when workingTime is set.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type Dec, formatDec, tryParseDec } from "../core/decimal.js";
import { encodeParams } from "../http/request.js";
import { bodyObject, describeAnswer, ok } from "../kit/answers.js";
import { op, type RunContext, restingPlans, whyNoTrading } from "../kit/context.js";
import type { FarBuy } from "../kit/market.js";
import { type SymbolPlan, smallestQuantity } from "../kit/market.js";
import { firstOrderProblem, workingFlagProblem } from "../kit/order-state.js";
import {
  cancelIfOpen,
  cancelOwn,
  itemsOf,
  type OwnOrder,
  placeFar,
  placeOwn,
  queryOwn,
  spreadWithRoom,
} from "../kit/own-orders.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "order_times";
const PURPOSE = "order times";
const OPERATIONS = [
  "new_order",
  "query_order",
  "open_orders",
  "all_orders",
  "cancel_order",
  "recent_trades_list",
  "current_average_price",
];
/** Events the run tells apart are at least this far apart on its clock. */
const APART_MS = 40;
/** How far the target's transactTime may lie outside the request's flight (clock offset, rounding). */
const FLIGHT_SLACK_MS = 2000;

export const orderTimes: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "times",
  description:
    "each time field is set by its event: transactTime when the order or cancel was taken, time/workingTime/updateTime from them, a fill's time on the maker and in the trade list",
  covers: [],
  hooks: [
    { phase: "trading-behaviour", run: orderTimesCheck },
    { phase: "end", run: judgeWorkingFlags },
  ],
  appliesTo: (operation) => OPERATIONS.includes(operation.operationId),
  notApplicable: "shows no order time",
  seenToCatch: [
    "update-time-frozen-after-cancel",
    "update-time-frozen-after-fill",
    "update-time-frozen-after-fill-on-ethusdt",
    "cancel-transact-time-is-order-time",
    "transact-time-in-seconds",
    "refused-cancel-stamps-update-time",
    "ended-orders-read-not-working",
  ],
};

/** The times of one order as query_order shows them. */
export interface OrderTimes {
  time: unknown;
  updateTime: unknown;
  workingTime: unknown;
}

/**
 * What is wrong with an order's times, given the transactTime of its placement and of the last
 * event that changed it (undefined: nothing did). Pure.
 */
export function timeProblems(
  order: Partial<OrderTimes>,
  placed: number,
  lastEvent: { what: string; at: number } | undefined,
): string[] {
  const problems: string[] = [];
  if (order.time !== placed)
    problems.push(`time is ${String(order.time)}, the order was placed at transactTime ${placed}`);
  if (order.workingTime !== placed)
    problems.push(
      `workingTime is ${String(order.workingTime)}; the LIMIT order worked from its placement at ${placed}`,
    );
  const last = lastEvent ?? { what: "its placement", at: placed };
  if (order.updateTime !== last.at)
    problems.push(
      `updateTime is ${String(order.updateTime)}, but the last change (${last.what}) was at ${last.at}`,
    );
  return problems;
}

/** Whether `at` lies within the request's flight on the target's clock, with slack. */
export function withinFlight(at: unknown, sentAt: number, receivedAt: number): boolean {
  return typeof at === "number" && at >= sentAt - FLIGHT_SLACK_MS && at <= receivedAt + FLIGHT_SLACK_MS;
}

async function orderTimesCheck(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK)) return;
  const skip = (reason: string) => {
    for (const id of OPERATIONS) ctx.session.recorder.skip(CHECK, id, reason);
  };
  const noTrading = whyNoTrading(ctx);
  if (noTrading) return skip(noTrading);
  const plans = restingPlans(ctx);
  if (plans.length === 0) return skip("no symbol to rest an order on");
  // Every symbol the run trades: each keeps its own orders' clocks.
  for (const plan of plans) {
    ctx.progress({
      type: "stage",
      message: `${PURPOSE}: the run's orders on ${plan.rules.symbol}, placed, cancelled and filled (by its own)`,
    });
    await placedAndCancelled(ctx, plan.farBuy);
    await filled(ctx, plan);
  }
}

function judge(ctx: RunContext, exchange: RoundTrip, problems: string[], what: string): void {
  if (problems.length > 0) ctx.session.fail(CHECK, exchange, `${what}: ${problems.join("; ")}`);
  else ctx.session.pass(CHECK, exchange);
}

/** Places an order and judges its transactTime against the flight of the request. */
async function timedPlace(
  ctx: RunContext,
  place: () => Promise<OwnOrder>,
  what: string,
): Promise<{ order: OwnOrder; at: number } | undefined> {
  const sentAt = ctx.session.now();
  const order = await place();
  const receivedAt = ctx.session.now();
  const exchange = order.placed.exchange;
  if (!ok(exchange)) {
    ctx.session.recorder.note(CHECK, "new_order", `${what} was refused (${describeAnswer(exchange)})`);
    return undefined;
  }
  const at = bodyObject(exchange)?.transactTime;
  judge(
    ctx,
    exchange,
    withinFlight(at, sentAt, receivedAt)
      ? []
      : [
          `transactTime ${String(at)} is not within the request's flight (${sentAt}–${receivedAt} on the target's clock)`,
        ],
    what,
  );
  return typeof at === "number" ? { order, at } : undefined;
}

async function placedAndCancelled(ctx: RunContext, far: FarBuy): Promise<void> {
  const placed = await timedPlace(
    ctx,
    () => placeFar(ctx, far, `${PURPOSE}: a far LIMIT BUY`, { newOrderRespType: "RESULT" }),
    "new_order",
  );
  if (!placed) return;
  try {
    const before = await queryOwn(ctx, placed.order, `${PURPOSE}: query_order of the new order`);
    if (before && ok(before))
      judge(
        ctx,
        before,
        timeProblems(bodyObject(before) ?? {}, placed.at, undefined),
        "query_order of a new order",
      );
    await sleep(APART_MS);
    const sentAt = ctx.session.now();
    const cancel = await cancelOwn(ctx, placed.order, `${PURPOSE}: cancel_order`);
    const receivedAt = ctx.session.now();
    if (!cancel || !ok(cancel)) return;
    const at = bodyObject(cancel)?.transactTime;
    const problems: string[] = [];
    if (!withinFlight(at, sentAt, receivedAt))
      problems.push(`transactTime ${String(at)} is not within the cancel's flight (${sentAt}–${receivedAt})`);
    if (typeof at === "number" && at <= placed.at)
      problems.push(
        `the cancel's transactTime ${at} is not after the order's ${placed.at}, though ${APART_MS} ms or more passed between them`,
      );
    judge(ctx, cancel, problems, "cancel_order");
    if (typeof at !== "number") return;
    const after = await queryOwn(ctx, placed.order, `${PURPOSE}: query_order after the cancel`);
    if (after && ok(after)) {
      judge(
        ctx,
        after,
        timeProblems(bodyObject(after) ?? {}, placed.at, { what: "the cancel", at }),
        "query_order after a cancel",
      );
      await refusedCancelChangesNothing(ctx, placed.order, after, "cancelled");
    }
  } finally {
    await cancelIfOpen(ctx, placed.order, `${PURPOSE}: cancel`);
  }
}

/** A BUY of the run resting inside the spread, filled later by the run's own SELL. */
async function filled(ctx: RunContext, plan: SymbolPlan): Promise<void> {
  if (!plan.rules.selfTradeAllowed)
    return ctx.session.recorder.note(CHECK, "query_order", "self-trade prevention: no fill of the run's own");
  const { rules } = plan;
  const spread = await spreadWithRoom(ctx, rules, 2n, `${PURPOSE}: the book of ${rules.symbol}`);
  if (!spread)
    return ctx.session.recorder.note(
      CHECK,
      "query_order",
      `${rules.symbol}: no room inside the spread for a fill of the run's own`,
    );
  const inside = spread.bid + rules.tick;
  const price = formatDec(inside);
  const quantity = formatDec(smallestQuantity(rules, inside));
  const limit = { symbol: rules.symbol, type: "LIMIT", price, quantity };
  const maker = await timedPlace(
    ctx,
    () =>
      placeOwn(
        ctx,
        { ...limit, side: "BUY", timeInForce: "GTC", newOrderRespType: "RESULT" },
        `${PURPOSE}: a LIMIT BUY inside the spread`,
      ),
    "new_order inside the spread",
  );
  if (!maker) return;
  try {
    if (bodyObject(maker.order.placed.exchange)?.status !== "NEW") return;
    await sleep(APART_MS);
    const taker = await timedPlace(
      ctx,
      () =>
        placeOwn(
          ctx,
          { ...limit, side: "SELL", timeInForce: "IOC", newOrderRespType: "FULL" },
          `${PURPOSE}: the run's LIMIT IOC SELL taking it`,
        ),
      "new_order taking the run's own",
    );
    if (!taker) return;
    const fills = bodyObject(taker.order.placed.exchange)?.fills;
    if (!Array.isArray(fills) || fills.length === 0) return;
    const after = await queryOwn(ctx, maker.order, `${PURPOSE}: query_order of the filled maker`);
    const readAt = ctx.session.now();
    if (after && ok(after) && bodyObject(after)?.status === "FILLED") {
      ctx.ledger.closed(maker.order.clientOrderId);
      const window = { placedAt: maker.at, readAt: readAt + FLIGHT_SLACK_MS };
      await judgeFilledMaker(ctx, after, { symbol: rules.symbol, price: inside }, window, {
        at: taker.at,
        tradeIds: fills.map((f: Record<string, unknown>) => f.tradeId),
      });
      await refusedCancelChangesNothing(ctx, maker.order, after, "filled");
    }
    await tradeTimes(ctx, rules.symbol, fills as Record<string, unknown>[], taker.at);
  } finally {
    await cancelIfOpen(ctx, maker.order, `${PURPOSE}: cancel`);
  }
}

/**
 * A cancel of an order no longer open (`state`: cancelled or filled) is refused, and the order
 * reads afterwards as it did before it: a refusal changes nothing, its clock least of all.
 */
async function refusedCancelChangesNothing(
  ctx: RunContext,
  order: OwnOrder,
  before: RoundTrip,
  state: string,
): Promise<void> {
  const cancel = await cancelOwn(ctx, order, `${PURPOSE}: a cancel of the ${state} order, to be refused`);
  if (!cancel || ok(cancel)) return;
  const after = await queryOwn(ctx, order, `${PURPOSE}: query_order after the refused cancel`);
  if (!after || !ok(after)) return;
  const changed = changedFields(bodyObject(before) ?? {}, bodyObject(after) ?? {});
  judge(
    ctx,
    after,
    changed.length > 0
      ? [
          `after a cancel of the ${state} order was refused (${describeAnswer(cancel)}), ${changed.join(", ")}: a refusal changes nothing`,
        ]
      : [],
    "query_order after a refused cancel",
  );
}

/** The fields of an order that read differently in `after` than in `before`, each with both values. Pure. */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return names
    .filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]))
    .map((name) => `${name} went from ${JSON.stringify(before[name])} to ${JSON.stringify(after[name])}`);
}

/** How many recent trades are read to see whether another account filled the run's BUY first. */
const TRADES_READ = 500;

/**
 * The filled maker's times. Its updateTime is the run's SELL when that filled it; on a busy market
 * another account's SELL may have filled it first, or filled what the run's SELL left of it before
 * the maker was read: a trade the trade list shows at the maker's price, with the buyer as maker,
 * between the placement and the read. Any of those times is accepted; a time no fill explains is a
 * fault, unless the list does not reach back to the placement.
 */
async function judgeFilledMaker(
  ctx: RunContext,
  after: RoundTrip,
  maker: { symbol: string; price: Dec },
  window: { placedAt: number; readAt: number },
  ours: { at: number; tradeIds: unknown[] },
): Promise<void> {
  const { placedAt } = window;
  const order = bodyObject(after) ?? {};
  const byOurs = timeProblems(order, placedAt, { what: "the run's fill", at: ours.at });
  if (byOurs.length === 0 || order.updateTime === ours.at || order.updateTime === undefined)
    return judge(ctx, after, byOurs, "query_order of a maker after its fill");
  const trades = op(ctx, "recent_trades_list");
  const list =
    trades &&
    (await ctx.session.call(
      { op: trades, params: encodeParams(trades, { symbol: maker.symbol, limit: TRADES_READ }) },
      `${PURPOSE}: recent_trades_list, for fills of the maker by others`,
    ));
  const fills = list && ok(list) ? otherFills(itemsOf(list), maker.price, window, ours.tradeIds) : undefined;
  if (!fills) {
    ctx.session.recorder.note(
      CHECK,
      "query_order",
      `${maker.symbol}: the filled maker's updateTime ${String(order.updateTime)} is not the run's fill (${ours.at}), and the trade list does not reach back to its placement to show whether another account filled it first; not judged`,
    );
    return;
  }
  const explained = fills.find((t) => t.time === order.updateTime);
  const last = explained
    ? { what: `another account's fill, trade ${String(explained.id)}`, at: order.updateTime as number }
    : {
        what: "the run's fill (no other account's trade at the maker's price has its updateTime)",
        at: ours.at,
      };
  judge(ctx, after, timeProblems(order, placedAt, last), "query_order of a maker after its fill");
}

/**
 * The trades of other accounts that may have filled a resting BUY at `price`: at that price, the
 * buyer the maker, from its placement to the moment it was read (before the run's SELL, or after
 * it on what the SELL left), not the run's own. Undefined when the list is full and its oldest
 * trade is after the placement (older ones may be missing). Pure.
 */
export function otherFills(
  trades: readonly Record<string, unknown>[],
  price: Dec,
  window: { placedAt: number; readAt: number },
  ownTradeIds: readonly unknown[],
): Record<string, unknown>[] | undefined {
  const { placedAt, readAt } = window;
  const oldest = trades[0]?.time;
  if (trades.length >= TRADES_READ && !(typeof oldest === "number" && oldest <= placedAt)) return undefined;
  return trades.filter(
    (t) =>
      typeof t.time === "number" &&
      t.time >= placedAt &&
      t.time <= readAt &&
      t.isBuyerMaker === true &&
      tryParseDec(t.price) === price &&
      !ownTradeIds.includes(t.id),
  );
}

/** The fill's trade in the trade list at the taker's time; the average price's closeTime when it is the last trade. */
async function tradeTimes(
  ctx: RunContext,
  symbol: string,
  fills: Record<string, unknown>[],
  at: number,
): Promise<void> {
  const trades = op(ctx, "recent_trades_list");
  if (!trades) return;
  const list = await ctx.session.call(
    { op: trades, params: encodeParams(trades, { symbol, limit: 20 }) },
    `${PURPOSE}: recent_trades_list after the fill`,
  );
  if (!ok(list)) return;
  const items = itemsOf(list);
  const ours = items.filter((t) => fills.some((f) => f.tradeId === t.id));
  if (ours.length === 0) return;
  judge(
    ctx,
    list,
    ours
      .filter((t) => t.time !== at)
      .map((t) => `trade ${String(t.id)} has time ${String(t.time)}, the fill that made it was at ${at}`),
    "recent_trades_list",
  );
  const last = items.at(-1);
  const average = op(ctx, "current_average_price");
  if (!average || !last || !ours.includes(last)) return;
  const answer = await ctx.session.call(
    { op: average, params: encodeParams(average, { symbol }) },
    `${PURPOSE}: current_average_price after the fill`,
  );
  if (!ok(answer)) return;
  // Only while the run's trade is still the last one: read the list again.
  const again = await ctx.session.call(
    { op: trades, params: encodeParams(trades, { symbol, limit: 1 }) },
    `${PURPOSE}: the last trade again`,
  );
  if (!ok(again) || itemsOf(again)[0]?.id !== last.id) return;
  const closeTime = bodyObject(answer)?.closeTime;
  judge(
    ctx,
    answer,
    closeTime === last.time
      ? []
      : [
          `closeTime is ${String(closeTime)}, the last trade (${String(last.id)}) was at ${String(last.time)}`,
        ],
    "current_average_price",
  );
}

/** The reads of orders whose items carry isWorking and workingTime. */
const ORDER_READS = new Set(["query_order", "open_orders", "all_orders"]);

/** Every order read of the run: isWorking exactly when workingTime is set (workingFlagProblem). */
async function judgeWorkingFlags(ctx: RunContext): Promise<void> {
  const { session } = ctx;
  if (!session.recorder.enabled(CHECK)) return;
  const found = firstOrderProblem(session.timeline, ORDER_READS, workingFlagProblem);
  if (found?.problem) session.fail(CHECK, found.exchange, found.problem);
  else if (found) session.pass(CHECK, found.exchange);
}
