/**
 * rate_counters: the counters the spec documents on responses count what they say, not just look
 * like integers. The request-weight counter (`X-MBX-USED-WEIGHT-<n><unit>`) grows by the
 * operation's `x-weight` with each request (the common case, each tier of its parameter, and the
 * parameter left out where that weighs otherwise, and cancel_all_orders with several orders to
 * cancel), judged on consecutive requests of this run in one window; the order counters (`X-MBX-ORDER-COUNT-<n><unit>` on new_order) grow by exactly one
 * with each accepted order. A pair that straddles a window boundary is not judged; growth below the
 * weight fails at once; growth above it is tried again (another client on the same address counts
 * too) and fails only when the excess is the same on every attempt.
 *
 * The weight window restarts: wherever the run's requests span a boundary of the weight counter's
 * window (by the target's clock), the run's own answers from the last one well before it to the
 * first one well after it, sent one after another, must show the count starting again. A counter
 * that went on across the boundary growing by exactly each request's weight, as inside one window,
 * fails: a server that restarts could show that only if other clients on the address spent, since
 * the boundary, exactly what the address had spent before it.
 *
 * The orders each count holds: every accepted order's counters, at the end of the run, hold at
 * least the orders its account surely placed in their windows, itself included.
 */

import { formatDec, parseDec } from "../core/decimal.js";
import { type ContractOperation, isSigned, isTrading, methodOf } from "../core/operations.js";
import { type Credentials, encodeParams } from "../http/request.js";
import { describeAnswer, ok } from "../kit/answers.js";
import { readServerClock } from "../kit/clock.js";
import { op, type RunContext } from "../kit/context.js";
import { BOUNDARY_MARGIN_MS, type Counter, countersOf, counterValue, sameWindow } from "../kit/counters.js";
import { farBuyOrder } from "../kit/market.js";
import { ORDER_OPERATIONS } from "../kit/order-operations.js";
import { cancelOpen, placeOrder } from "../kit/order-placing.js";
import { cancelOwn, itemsOf, openOrders, placeFar } from "../kit/own-orders.js";
import type { Values } from "../kit/values.js";
import { requiredValues } from "../kit/values.js";
import type { RoundTrip, TimedRoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "rate_counters";

export const rateCounters: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "counters",
  description:
    "the used-weight counter grows by each request's x-weight, the order counters by one per accepted order",
  covers: ["x-weight"],
  hooks: [
    { phase: "trading-behaviour", run: rateCountersPhase },
    { phase: "end", run: atTheEnd },
  ],
  seenToCatch: [
    "weight-counts-one-per-request",
    "weight-counts-double",
    "weight-tiers-ignored",
    "order-count-frozen",
    "order-count-read-before-increment",
    "ticker-without-symbol-weighs-more",
    "weight-counted-per-api-key",
    "order-count-1d-shows-10s",
    "refused-order-counted",
    "weight-window-never-restarts",
    "all-orders-from-id-weighs-less",
    "cancel-all-weighs-each-order",
  ],
};

export async function rateCountersPhase(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK)) return;
  await weightCounts(ctx);
  await orderCounts(ctx);
  await cancelAllWeighed(ctx);
  await markDay(ctx);
}

/**
 * The operations whose common case is served to this run: reads, with their required values; and
 * each other weight x-weight states for one of them (a tier of its parameter, the parameter left
 * out), as a case of its own.
 */
function commonCases(ctx: RunContext): Array<{ operation: ContractOperation; values: Values }> {
  return ctx.session.model.operations
    .filter((o) => methodOf(o) === "GET" && !isTrading(o) && (!isSigned(o) || ctx.session.canSign))
    .filter((o) => !o.parameters.some((p) => p.required && !["symbol"].includes(p.name)))
    .flatMap((operation) => {
      const values = requiredValues(operation, ctx.values);
      // The common case names its symbol: without it some operations weigh more (the descriptions say so).
      if (operation.parameters.some((p) => p.name === "symbol")) values.symbol = ctx.values.symbol;
      return [values, ...weightVariants(operation, values)].map((v) => ({ operation, values: v }));
    });
}

/**
 * The values that give each other weight x-weight states for `operation`: each tier's top value
 * of its parameter, and the parameter left out where that weighs otherwise (and it is optional);
 * and the read without its symbol, whatever it weighs.
 */
export function weightVariants(operation: ContractOperation, values: Values): Values[] {
  const rule = operation.weightRule;
  const parameter = rule.parameter;
  const variants: Values[] = [];
  // Without its symbol a read answers for every symbol: it weighs what x-weight says, the same
  // where x-weight states one weight.
  if (values.symbol !== undefined && operation.parameters.some((p) => p.name === "symbol" && !p.required)) {
    const { symbol: _left, ...without } = values;
    if (parameter !== "symbol" || rule.absent === undefined || rule.absent === rule.weight)
      variants.push(without);
  }
  if (parameter === undefined) return variants;
  const optional = !operation.parameters.some((p) => p.name === parameter && p.required);
  if (rule.absent !== undefined && rule.absent !== rule.weight && optional) {
    const { [parameter]: _left, ...without } = values;
    variants.push(without);
  }
  for (const tier of rule.tiers ?? [])
    if (Number.isFinite(tier.upTo) && tier.weight !== rule.weight)
      variants.push({ ...values, [parameter]: tier.upTo });
  return variants;
}

/** About how long the weight pairs take: they start at least this far from the window's end. */
const WEIGHT_PHASE_MS = 5000;

/** Requests of one operation before a counter that grows by more than the weight is left unjudged. */
const WEIGHT_ATTEMPTS = 3;

async function weightCounts(ctx: RunContext): Promise<void> {
  const cases = commonCases(ctx);
  // The pairs take a few seconds: start them clear of the weight window's end, or none is judged.
  const window = cases
    .map((c) => countersOf(c.operation, /X-MBX-USED-WEIGHT/)[0])
    .find((c) => c !== undefined);
  if (window) await clearOfBoundaries(ctx, [window], WEIGHT_PHASE_MS);
  let previous: { exchange: RoundTrip; at: number } | undefined;
  for (const { operation, values } of cases) {
    const counter = countersOf(operation, /X-MBX-USED-WEIGHT/)[0];
    if (!counter) {
      ctx.session.recorder.skip(CHECK, operation.operationId, "no weight counter documented");
      continue;
    }
    const excesses: number[] = [];
    for (let attempt = 1; attempt <= WEIGHT_ATTEMPTS; attempt += 1) {
      const exchange = await ctx.session.call(
        { op: operation, params: encodeParams(operation, values) },
        `counters: ${operation.operationId}, weight ${ctx.session.weightOf({ op: operation, params: encodeParams(operation, values) })}`,
      );
      const at = ctx.session.now();
      const judged = previous
        ? judgeWeight(ctx, previous, { exchange, at }, counter, excesses, attempt === WEIGHT_ATTEMPTS)
        : "skipped";
      previous = { exchange, at };
      if (judged !== "retry") break;
    }
  }
  if (ctx.second) await secondAccountCounted(ctx, ctx.second);
}

/**
 * A signed read as the second account right after a ping of the run's own: the weight counter
 * counts the address's requests, whichever account sends them ("used by the caller's IP"), so it
 * grows by the read's weight from where the run's own request left it.
 */
async function secondAccountCounted(ctx: RunContext, second: Credentials): Promise<void> {
  const read = op(ctx, "open_orders");
  const ping = op(ctx, "ping");
  const counter = read && countersOf(read, /X-MBX-USED-WEIGHT/)[0];
  if (!read || !ping || !counter) return;
  const plan = { op: read, params: encodeParams(read, { symbol: ctx.values.symbol }), as: second };
  const excesses: number[] = [];
  for (let attempt = 1; attempt <= WEIGHT_ATTEMPTS; attempt += 1) {
    const own = await ctx.session.call({ op: ping, params: [] }, "counters: ping, the run's own account");
    const before = { exchange: own, at: ctx.session.now() };
    const exchange = await ctx.session.call(
      plan,
      `counters: open_orders as the second account, weight ${ctx.session.weightOf(plan)}`,
    );
    const after = { exchange, at: ctx.session.now() };
    if (judgeWeight(ctx, before, after, counter, excesses, attempt === WEIGHT_ATTEMPTS) !== "retry") return;
  }
}

/**
 * "held", "failed", "skipped" (not comparable) or "retry". The counter counts the weight of every
 * client on the address, so growth below the weight is a failure at once, while growth above it
 * may be another client's: it fails only when it exceeds the weight by the same amount on every
 * attempt (a counter that counts wrong does so alike each time; other clients do not).
 */
function judgeWeight(
  ctx: RunContext,
  before: { exchange: RoundTrip; at: number },
  after: { exchange: RoundTrip; at: number },
  counter: Counter,
  excesses: number[],
  last: boolean,
): "held" | "failed" | "skipped" | "retry" {
  const a = counterValue(before.exchange, counter);
  const b = counterValue(after.exchange, counter);
  if (a === undefined || b === undefined || !ok(after.exchange) || !sameWindow(before.at, after.at, counter))
    return "skipped";
  const weight = ctx.session.weightOf(after.exchange.plan);
  if (b - a === weight) {
    ctx.session.pass(CHECK, after.exchange);
    return "held";
  }
  const fail = (why: string) => {
    ctx.session.fail(
      CHECK,
      after.exchange,
      `${counter.name} went from ${a} to ${b} with this request, which weighs ${weight} (x-weight)${why}; the counter must grow by the weight of each request`,
    );
    return "failed" as const;
  };
  if (b - a < weight) return fail("");
  excesses.push(b - a - weight);
  if (!last) return "retry";
  if (excesses.length === WEIGHT_ATTEMPTS && excesses.every((e) => e === excesses[0]))
    return fail(`, ${excesses[0]} too many on each of ${WEIGHT_ATTEMPTS} attempts`);
  ctx.session.recorder.note(
    CHECK,
    after.exchange.op.operationId,
    `${counter.name} grew by more than the weight on ${WEIGHT_ATTEMPTS} attempts, by differing amounts (${excesses.join(", ")} over): other clients on this address count too; not judged`,
  );
  return "skipped";
}

/** Attempts at two orders in one window of every order counter before the check gives up. */
const ORDER_ATTEMPTS = 3;

/** Two accepted orders back to back in one window: each order counter grows by exactly one. */
async function orderCounts(ctx: RunContext): Promise<void> {
  const newOrder = op(ctx, "new_order");
  if (!newOrder) return;
  const counters = countersOf(newOrder, /X-MBX-ORDER-COUNT/);
  const skip = (why: string) => ctx.session.recorder.skip(CHECK, newOrder.operationId, why);
  if (counters.length === 0) return skip("no order counter documented");
  if (!ctx.trading || !ctx.session.canSign || !("price" in ctx.farBuy))
    return skip("order counters need --allow-trading (orders far from the market)");
  const far = ctx.farBuy;
  const tick = ctx.rules?.tick ?? 0n;
  const offTick = formatDec(parseDec(far.price) + tick / 2n);
  if (tick < 2n) return skip("no tick size to place an order off it");
  const place = async (n: number) => {
    const placed = await placeOrder(
      ctx,
      newOrder,
      { ...farBuyOrder(far), symbol: ctx.values.symbol },
      `counters: order ${n}`,
    );
    return { placed, at: ctx.session.now() };
  };
  for (let attempt = 1; attempt <= ORDER_ATTEMPTS; attempt += 1) {
    await clearOfBoundaries(ctx, counters);
    const first = await place(2 * attempt - 1);
    // A refused order between the two does not count: the counters count orders placed.
    const refused = await placeOrder(
      ctx,
      newOrder,
      { ...farBuyOrder(far), symbol: ctx.values.symbol, price: offTick },
      `counters: an order refused (its price off the tick size)`,
    );
    const second = await place(2 * attempt);
    await cancelOpen(
      ctx,
      [first.placed.clientOrderId, refused.clientOrderId, second.placed.clientOrderId],
      "counters: cancel the order",
    );
    if (!ok(first.placed.exchange) || !ok(second.placed.exchange)) {
      const refused = ok(first.placed.exchange) ? second.placed.exchange : first.placed.exchange;
      return skip(`an order far from the market was refused (${describeAnswer(refused)})`);
    }
    const judged = counters.filter((c) => sameWindow(first.at, second.at, c));
    const value = (e: RoundTrip, c: Counter) => counterValue(e, c);
    const wrong = judged.filter((c) => {
      const a = value(first.placed.exchange, c);
      const b = value(second.placed.exchange, c);
      return a !== undefined && b !== undefined && b - a !== 1;
    });
    if (wrong.length === 0 && judged.length === counters.length) {
      ctx.session.pass(CHECK, second.placed.exchange);
      return;
    }
    if (wrong.length > 0 && attempt >= 2) {
      const shown = wrong.map(
        (c) => `${c.name} ${value(first.placed.exchange, c)} → ${value(second.placed.exchange, c)}`,
      );
      ctx.session.fail(
        CHECK,
        second.placed.exchange,
        `two accepted orders with a refused one between them (and again): ${shown.join(", ")}; each order counter must grow by one per order placed, and not for a refused one`,
      );
      return;
    }
  }
  skip(`no two orders fell inside one window of every order counter in ${ORDER_ATTEMPTS} attempts`);
}

/** The run's far orders open at once when cancel_all_orders is weighed: a weight by what it cancels shows. */
const CANCEL_ALL_ORDERS = 3;

/**
 * cancel_all_orders weighs what x-weight states, whatever it cancels: with CANCEL_ALL_ORDERS far
 * orders of the run open on the symbol, and no other order of the account there (it would cancel
 * the user's own), the counter grows by its weight from a ping just before it. Judged as the reads
 * are (judgeWeight: growth above the weight fails only when alike on every attempt).
 */
async function cancelAllWeighed(ctx: RunContext): Promise<void> {
  const [newOrder, cancelAll, ping] = [ORDER_OPERATIONS.newOrder, ORDER_OPERATIONS.cancelAll, "ping"].map(
    (id) => op(ctx, id),
  );
  const counter = cancelAll && countersOf(cancelAll, /X-MBX-USED-WEIGHT/)[0];
  if (!newOrder || !cancelAll || !ping || !counter) return;
  const skip = (why: string) =>
    ctx.session.recorder.note(CHECK, cancelAll.operationId, `its weight not judged: ${why}`);
  if (!ctx.trading || !ctx.session.canSign || !("price" in ctx.farBuy))
    return skip("it needs --allow-trading (orders far from the market)");
  const far = ctx.farBuy;
  const symbol = String(ctx.values.symbol);
  const excesses: number[] = [];
  for (let attempt = 1; attempt <= WEIGHT_ATTEMPTS; attempt += 1) {
    const ids: string[] = [];
    for (let n = 1; n <= CANCEL_ALL_ORDERS; n += 1) {
      const placed = await placeOrder(
        ctx,
        newOrder,
        { ...farBuyOrder(far), symbol },
        `counters: order ${n} for cancel_all_orders`,
      );
      ids.push(placed.clientOrderId);
    }
    const listed = await openOrders(ctx, symbol, "counters: open orders before cancel_all_orders");
    const mine = listed && ok(listed) ? itemsOf(listed) : [];
    if (mine.length !== CANCEL_ALL_ORDERS || mine.some((o) => !ids.includes(String(o.clientOrderId)))) {
      await cancelOpen(ctx, ids, "counters: cancel the orders");
      return skip(`open_orders on ${symbol} did not list exactly the run's ${CANCEL_ALL_ORDERS} orders`);
    }
    const pinged = async (when: string) => {
      const exchange = await ctx.session.call(
        { op: ping, params: [] },
        `counters: ping ${when} cancel_all_orders`,
      );
      return { exchange, at: ctx.session.now() };
    };
    const first = await pinged("before");
    const before = await pinged("just before");
    const plan = { op: cancelAll, params: encodeParams(cancelAll, { symbol }) };
    const exchange = await ctx.session.call(
      plan,
      `counters: cancel_all_orders of ${CANCEL_ALL_ORDERS} orders, weight ${ctx.session.weightOf(plan)}`,
    );
    const after = { exchange, at: ctx.session.now() };
    const next = await pinged("after");
    for (const o of itemsOf(exchange))
      if (typeof o.origClientOrderId === "string") ctx.ledger.closed(o.origClientOrderId);
    await cancelOpen(ctx, ids, "counters: cancel what cancel_all_orders left");
    // Another client on the address (one that trades on while the run's orders come and go) can
    // add alike on every attempt: only an attempt whose pings on either side grew exactly is judged.
    const quiet = [counterGrowth(first, before, counter), counterGrowth(after, next, counter)];
    if (quiet.some((growth) => growth !== ctx.session.weightOf({ op: ping, params: [] }))) continue;
    if (judgeWeight(ctx, before, after, counter, excesses, attempt === WEIGHT_ATTEMPTS) !== "retry") return;
  }
  if (excesses.length < WEIGHT_ATTEMPTS)
    skip(
      `the address was not quiet around it on ${WEIGHT_ATTEMPTS - excesses.length} of ${WEIGHT_ATTEMPTS} attempts (other clients count too)`,
    );
}

/** How much the counter grew from one answer to the next, when both fell in one window. */
function counterGrowth(
  before: { exchange: RoundTrip; at: number },
  after: { exchange: RoundTrip; at: number },
  counter: Counter,
): number | undefined {
  const [a, b] = [counterValue(before.exchange, counter), counterValue(after.exchange, counter)];
  return a === undefined || b === undefined || !sameWindow(before.at, after.at, counter) ? undefined : b - a;
}

/** The judgements over the whole run: the daily order count, the orders each count holds, and the weight window's restarts. */
async function atTheEnd(ctx: RunContext): Promise<void> {
  await intoTheNextShortWindow(ctx);
  await dailyCount(ctx);
  await secondAccountOrder(ctx);
  ordersCountedByEachAnswer(ctx);
  everyRequestWeighed(ctx);
  await windowRestarts(ctx);
}

/** The longest wait for the shortest order counter's window to end: longer windows are left to chance. */
const MAX_SHORT_WINDOW_MS = 15_000;

/**
 * Waits, when the run is still in the shortest order counter's window of its day mark, until that
 * window has ended: the orders after it then fall in another short window of the same long one,
 * and a long counter that shows the short one's count holds fewer than its account placed.
 */
async function intoTheNextShortWindow(ctx: RunContext): Promise<void> {
  const mark = dayMarks.get(ctx);
  const newOrder = op(ctx, "new_order");
  if (!mark || !newOrder) return;
  const [shortest] = countersOf(newOrder, /X-MBX-ORDER-COUNT/).sort((a, b) => a.windowMs - b.windowMs);
  if (!shortest || shortest.windowMs > MAX_SHORT_WINDOW_MS || shortest.windowMs >= mark.counter.windowMs)
    return;
  const now = ctx.session.now();
  const windowOfMark = Math.floor(mark.at / shortest.windowMs);
  if (Math.floor(now / shortest.windowMs) !== windowOfMark) return;
  const wait = (windowOfMark + 1) * shortest.windowMs + BOUNDARY_MARGIN_MS + 50 - now;
  ctx.progress({
    type: "stage",
    message: `counters: ${Math.ceil(wait / 1000)} s for ${shortest.name}'s window to end, so the last orders fall in another`,
  });
  await new Promise((resolve) => setTimeout(resolve, wait));
}

/** With a second account, one far order of its own placed and cancelled at the end (its counters judged with the others). */
async function secondAccountOrder(ctx: RunContext): Promise<void> {
  const second = ctx.second;
  const far = ctx.farBuy;
  if (!second || !("price" in far) || !ctx.trading) return;
  const order = await placeFar(ctx, far, "counters: an order of the second account at the end", {}, second);
  if (ok(order.placed.exchange)) await cancelOwn(ctx, order, "counters: cancel it", { as: second });
}

/** One accepted order of an account as its counters read it: when it was in flight (the target's clock), and a counter's value. */
export interface CountedOrder {
  sentAt: number;
  answeredAt: number;
  value: number | undefined;
}

/**
 * The answers whose counter holds fewer orders than it must: the order itself, and every order of
 * the same account answered before it was sent inside the same window (both with the window's
 * margin). Orders in flight together are not counted for each other; an answer whose flight
 * straddles a boundary is not judged. Pure.
 */
export function countsShort(
  orders: readonly CountedOrder[],
  counter: Counter,
): Array<{ index: number; value: number; atLeast: number }> {
  const out: Array<{ index: number; value: number; atLeast: number }> = [];
  orders.forEach((order, index) => {
    if (order.value === undefined || !sameWindow(order.sentAt, order.answeredAt, counter)) return;
    const before = orders.filter(
      (other) => other.answeredAt < order.sentAt && sameWindow(other.sentAt, order.answeredAt, counter),
    ).length;
    if (order.value < before + 1) out.push({ index, value: order.value, atLeast: before + 1 });
  });
  return out;
}

/**
 * Every accepted order's counters hold at least the orders the run's account surely placed in
 * their windows, itself included (the header counts the orders placed by the account in the
 * window): a count read before the order is added, or one that loses orders, shows fewer.
 */
function ordersCountedByEachAnswer(ctx: RunContext): void {
  const newOrder = op(ctx, "new_order");
  if (!newOrder) return;
  // By account, and by the session's clock epoch: times from before and after a sandbox clock moved do not compare.
  const groups = new Map<string, { whose: string; entries: TimedRoundTrip[] }>();
  for (const entry of ctx.session.timeline) {
    const { exchange } = entry;
    if (exchange.op.operationId !== newOrder.operationId || !ok(exchange)) continue;
    const key = `${exchange.plan.as?.apiKey ?? ""}\n${entry.clock}`;
    const whose = exchange.plan.as ? "the second account" : "the run's account";
    const group = groups.get(key) ?? { whose, entries: [] };
    group.entries.push(entry);
    groups.set(key, group);
  }
  for (const counter of countersOf(newOrder, /X-MBX-ORDER-COUNT/))
    for (const { whose, entries } of groups.values()) {
      const orders = entries.map((e) => ({ ...e, value: counterValue(e.exchange, counter) }));
      const short = countsShort(orders, counter);
      const first = short[0];
      if (first)
        ctx.session.fail(
          CHECK,
          entries[first.index]!.exchange,
          `${counter.name} is ${first.value} on an accepted order, but ${whose} had placed at least ${first.atLeast} order(s) in that window, this one included (${short.length} of its ${entries.length} accepted orders show fewer than they must)`,
        );
      else if (orders.some((o) => o.value !== undefined)) ctx.session.pass(CHECK, entries.at(-1)!.exchange);
    }
}

/** Longest wait for a short window's boundary to pass; longer windows are left to chance. */
const MAX_BOUNDARY_WAIT_MS = 2 * BOUNDARY_MARGIN_MS;

/**
 * Waits, when the target's clock is near a boundary of a short counter window, until it is past
 * it: retrying at once would land near the same boundary again.
 */
async function clearOfBoundaries(
  ctx: RunContext,
  counters: Counter[],
  ahead: number = BOUNDARY_MARGIN_MS * 1.5,
): Promise<void> {
  const now = ctx.session.now();
  const waits = counters.map((c) => {
    const into = now % c.windowMs;
    const toEnd = c.windowMs - into;
    if (toEnd <= ahead) return toEnd + BOUNDARY_MARGIN_MS + 50;
    if (into <= BOUNDARY_MARGIN_MS) return BOUNDARY_MARGIN_MS - into + 50;
    return 0;
  });
  const wait = Math.max(0, ...waits);
  if (wait > 0 && wait <= Math.max(MAX_BOUNDARY_WAIT_MS, ahead) + BOUNDARY_MARGIN_MS)
    await new Promise((resolve) => setTimeout(resolve, wait));
}

/** The longest order counter's value at the rate_counters phase, and the run's orders accepted by then. */
const dayMarks = new WeakMap<RunContext, { counter: Counter; value: number; accepted: number; at: number }>();

/** One far order, marking the longest order counter (the daily one) and the orders the run had placed. */
async function markDay(ctx: RunContext): Promise<void> {
  const placed = await farOrder(ctx, "counters: an order marking the daily count");
  if (!placed) return;
  const [counter, value] = placed.longest;
  dayMarks.set(ctx, { counter, value, accepted: ctx.ledger.acceptedOwn, at: placed.at });
}

/**
 * At the end of the run, long after the short windows rolled: the daily counter grew by the
 * orders the run's account placed since the mark, at least; on a sandbox, where the run is the
 * only client, by exactly that many (refused orders not counted).
 */
async function dailyCount(ctx: RunContext): Promise<void> {
  const mark = dayMarks.get(ctx);
  if (!mark) return;
  const placed = await farOrder(ctx, "counters: an order at the end of the run (the daily count)");
  if (!placed) return;
  const [counter, value] = placed.longest;
  if (counter.name !== mark.counter.name) return;
  const sameDay = Math.floor(mark.at / counter.windowMs) === Math.floor(placed.at / counter.windowMs);
  if (!sameDay) return;
  const accepted = ctx.ledger.acceptedOwn - mark.accepted;
  const grew = value - mark.value;
  const what = `${counter.name} went from ${mark.value} to ${value} while the run's account placed ${accepted} order(s)`;
  if (grew < accepted)
    ctx.session.fail(
      CHECK,
      placed.exchange,
      `${what}: it lost orders (it must count every order of its window)`,
    );
  else if (grew > accepted && ctx.movePrices)
    ctx.session.fail(
      CHECK,
      placed.exchange,
      `${what}, and no other client trades on this sandbox: it counts what it must not (refused orders?)`,
    );
  else ctx.session.pass(CHECK, placed.exchange);
}

/** A far order, cancelled at once: its answer, when it was accepted, and its longest order counter. */
async function farOrder(
  ctx: RunContext,
  label: string,
): Promise<{ exchange: RoundTrip; at: number; longest: [Counter, number] } | undefined> {
  const newOrder = op(ctx, "new_order");
  if (!newOrder || !ctx.trading || !ctx.session.canSign || !("price" in ctx.farBuy)) return undefined;
  const counters = countersOf(newOrder, /X-MBX-ORDER-COUNT/).sort((a, b) => b.windowMs - a.windowMs);
  const longest = counters[0];
  if (!longest) return undefined;
  const far = ctx.farBuy;
  const placed = await placeOrder(ctx, newOrder, farBuyOrder(far), label);
  const at = ctx.session.now();
  await cancelOpen(ctx, [placed.clientOrderId], "counters: cancel the order");
  const value = counterValue(placed.exchange, longest);
  return ok(placed.exchange) && value !== undefined
    ? { exchange: placed.exchange, at, longest: [longest, value] }
    : undefined;
}

/**
 * The served requests of `samples` (in the order sent) after which the used-weight counter stood
 * less than the request's weight above the answer before it: the counter left out part of what
 * the request weighs (a parameter that weighs more, a weight copied from another operation).
 * Only a request sent after the millisecond the one before it was answered, both carrying the counter, both clear
 * of a window's boundary and in one window: other clients, and requests of the run in flight
 * together, can only add to the count, so growth below the weight is never theirs. Pure.
 */
export function weighedShort(
  samples: readonly WeightSample[],
  windowMs: number,
): Array<{ index: number; growth: number }> {
  const counter = { name: "", windowMs };
  const short: Array<{ index: number; growth: number }> = [];
  for (let i = 1; i < samples.length; i += 1) {
    const [before, after] = [samples[i - 1]!, samples[i]!];
    if (after.status === undefined || after.status < 200 || after.status >= 300) continue;
    // Stamps are whole milliseconds: a request sent in the millisecond the one before was answered
    // may have reached the server first.
    if (before.used === undefined || after.used === undefined || after.sentAt <= before.answeredAt) continue;
    if (!sameWindow(before.sentAt, after.answeredAt, counter)) continue;
    const growth = after.used - before.used;
    if (growth < after.weight) short.push({ index: i, growth });
  }
  return short;
}

/**
 * The run's answers, in the order answered, as the weight judgements read them, with the
 * used-weight counter the spec documents; undefined before the target's clock is known (times
 * would not place window boundaries) or without such a counter.
 */
function weightSamples(
  session: RunContext["session"],
): { counter: Counter; timeline: readonly TimedRoundTrip[]; samples: WeightSample[] } | undefined {
  if (!session.clockSynced) return undefined;
  const counter = session.model.operations
    .map((o) => countersOf(o, /X-MBX-USED-WEIGHT/)[0])
    .find((c) => c !== undefined);
  if (!counter) return undefined;
  const timeline = session.timeline;
  const samples = timeline.map(({ exchange, sentAt, answeredAt }) => ({
    sentAt,
    answeredAt,
    status: exchange.response?.status,
    used: counterValue(exchange, counter),
    weight: session.weightOf(exchange.plan),
  }));
  return { counter, timeline, samples };
}

/**
 * At the end of the run: every request of the run, whichever check sent it and with whatever
 * parameters, grew the used-weight counter by at least its weight (weighedShort); the first short
 * step of each operation fails.
 */
function everyRequestWeighed(ctx: RunContext): void {
  const { session } = ctx;
  const run = weightSamples(session);
  if (!run) return;
  const { counter, timeline, samples } = run;
  const failed = new Set<string>();
  for (const { from, to } of epochsOf(timeline))
    for (const { index, growth } of weighedShort(samples.slice(from, to), counter.windowMs)) {
      const { exchange } = timeline[from + index]!;
      const before = samples[from + index - 1]!.used;
      if (failed.has(exchange.op.operationId)) continue;
      failed.add(exchange.op.operationId);
      session.fail(
        CHECK,
        exchange,
        `${counter.name} went from ${before} to ${before! + growth} with this request, sent after the one before it was answered, which weighs ${samples[from + index]!.weight} (x-weight, with its parameters: ${describeParams(exchange)}); the counter must grow by at least each request's weight`,
      );
    }
}

/** A request's parameters as sent, for a message (the signature left out). */
function describeParams(exchange: RoundTrip): string {
  const shown = exchange.plan.params.filter(([name]) => name !== "signature");
  return shown.length === 0 ? "none" : shown.map(([name, value]) => `${name}=${value}`).join("&");
}

/** One answer of the run as the restart judgement reads it (times by the target's clock). */
export interface WeightSample {
  sentAt: number;
  answeredAt: number;
  /** The answer's status (undefined: no answer). */
  status: number | undefined;
  /** Its used-weight counter, when it carried one. */
  used: number | undefined;
  /** The request's weight by the spec (x-weight and its tiers). */
  weight: number;
}

export type RestartVerdict =
  | { boundary: number; kind: "restarted"; at: number }
  | { boundary: number; kind: "went on"; first: number; last: number }
  | { boundary: number; kind: "not judged"; at: number; why: string };

/** How far from a boundary the answers that bracket it lie (the target's clock is known to within it). */
export const RESTART_MARGIN_MS = 1000;

/**
 * For each boundary of the window that the samples (in the order sent) span: the samples from the
 * last one answered RESTART_MARGIN_MS before it to the first one sent as long after it. "restarted":
 * at some step the counter grew by less than the request's weight (the count started again);
 * "went on": every step grew by exactly the weight; "not judged": requests in flight together, an
 * answer without a counter, a refusal for rate (429, 418) or a transport error, or growth above
 * the weight (another client on the address).
 */
export function judgeRestarts(
  samples: readonly WeightSample[],
  windowMs: number,
  marginMs: number = RESTART_MARGIN_MS,
): RestartVerdict[] {
  const out: RestartVerdict[] = [];
  if (samples.length < 2) return out;
  const first = Math.floor(samples[0]!.sentAt / windowMs) + 1;
  const last = Math.floor(samples.at(-1)!.answeredAt / windowMs);
  for (let k = first; k <= last; k += 1) {
    const boundary = k * windowMs;
    const a = samples.findLastIndex((s) => s.answeredAt < boundary - marginMs);
    const b = samples.findIndex((s) => s.sentAt > boundary + marginMs);
    if (a < 0 || b < 0 || b <= a) continue;
    out.push(judgeSpan(samples, boundary, a, b));
  }
  return out;
}

function judgeSpan(samples: readonly WeightSample[], boundary: number, a: number, b: number): RestartVerdict {
  const notJudged = (why: string): RestartVerdict => ({ boundary, kind: "not judged", at: b, why });
  for (let i = a; i <= b; i += 1) {
    const s = samples[i]!;
    if (s.status === undefined || s.status === 429 || s.status === 418 || s.status >= 500)
      return notJudged(`an answer ${s.status ?? "missing"} among them`);
    if (s.used === undefined) return notJudged("an answer without the counter among them");
    if (i > a && s.sentAt < samples[i - 1]!.answeredAt) return notJudged("requests in flight together");
  }
  // A count of 0 before the boundary is what a restart shows too.
  if (samples[a]!.used === 0) return notJudged("nothing counted before the boundary");
  // Nothing sent before the span may still have been in flight at its start.
  if (samples.slice(0, a).some((s) => s.answeredAt > samples[a]!.sentAt))
    return notJudged("requests in flight together");
  let above = false;
  for (let i = a + 1; i <= b; i += 1) {
    const growth = samples[i]!.used! - samples[i - 1]!.used!;
    if (growth < samples[i]!.weight) return { boundary, kind: "restarted", at: i };
    if (growth > samples[i]!.weight) above = true;
  }
  return above
    ? notJudged("the counter grew by more than the weights (other clients on this address count too)")
    : { boundary, kind: "went on", first: a, last: b };
}

/** The timeline's stretches on one clock epoch, as [from, to) index ranges in the order sent. */
export function epochsOf(timeline: readonly { clock: number }[]): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  timeline.forEach((entry, i) => {
    if (i === 0 || entry.clock !== timeline[i - 1]!.clock) out.push({ from: i, to: i + 1 });
    else out.at(-1)!.to = i + 1;
  });
  return out;
}

function shiftedBy(verdict: RestartVerdict, from: number): RestartVerdict {
  return verdict.kind === "went on"
    ? { ...verdict, first: verdict.first + from, last: verdict.last + from }
    : { ...verdict, at: verdict.at + from };
}

/**
 * Why the run's estimate of the target's clock may have placed a boundary more than half the
 * margin off (a sandbox clock that runs at another rate, or was moved), or undefined: the server
 * time read again now against the estimate.
 */
async function clockDrifted(ctx: RunContext): Promise<string | undefined> {
  const { session } = ctx;
  const time = session.model.operation("server_time");
  if (!time) return "no server_time to check the clock against";
  const reading = await readServerClock(
    session,
    time,
    "counters: the server's time, against the run's estimate of it",
  );
  if (reading.serverTime === undefined) return `server_time answered ${describeAnswer(reading.exchange)}`;
  const drift = reading.serverTime - (reading.local + session.clockOffsetMs);
  return Math.abs(drift) + reading.halfTrip > RESTART_MARGIN_MS / 2
    ? `the target's clock is ${Math.round(drift)} ms from the run's estimate of it (± ${Math.round(reading.halfTrip)} ms)`
    : undefined;
}

/** At the end of the run: the weight window restarted at every boundary the run's answers span. */
async function windowRestarts(ctx: RunContext): Promise<void> {
  const { session } = ctx;
  const run = weightSamples(session);
  if (!run) return;
  const { counter, timeline, samples } = run;
  const verdicts = epochsOf(timeline).flatMap(({ from, to }) =>
    judgeRestarts(samples.slice(from, to), counter.windowMs).map((v) => shiftedBy(v, from)),
  );
  if (verdicts.length === 0) return;
  const drifted = await clockDrifted(ctx);
  if (drifted) {
    session.recorder.note(CHECK, "server_time", `the weight window's restarts not judged: ${drifted}`);
    return;
  }
  for (const verdict of verdicts) {
    const at = timeline[verdict.kind === "went on" ? verdict.last : verdict.at]!.exchange;
    const when = new Date(verdict.boundary).toISOString();
    if (verdict.kind === "restarted") {
      session.pass(CHECK, at);
      session.recorder.note(
        CHECK,
        at.op.operationId,
        `the weight window restarted at ${when}, as its counter shows`,
      );
    } else if (verdict.kind === "not judged")
      session.recorder.note(
        CHECK,
        at.op.operationId,
        `the weight window's restart at ${when} not judged: ${verdict.why}`,
      );
    else {
      const from = samples[verdict.first]!;
      const to = samples[verdict.last]!;
      session.fail(
        CHECK,
        at,
        `${counter.name} went on from ${from.used} to ${to.used} across the window's boundary at ${when} (by the target's clock), growing by exactly each request's weight over ${verdict.last - verdict.first} request(s) sent one after another, as inside one window; the count must start again with each window`,
      );
    }
  }
}
