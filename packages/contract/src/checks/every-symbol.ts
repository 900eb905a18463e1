/**
 * every_symbol: the run trades every symbol it chose from exchangeInfo (up to --max-symbols), not
 * one: a far order rests on each at once, and an order belongs to its symbol. open_orders on a
 * symbol lists that symbol's orders and no other's; open_orders without a symbol lists them all,
 * each as its own symbol's list shows it; an order is not found, cancelled or listed through
 * another symbol (query_order, cancel_order and all_orders on the wrong symbol refuse it as
 * unknown, x-unknown-reference). Then each is cancelled, and is gone from both lists.
 *
 * Client order ids across symbols, on a sandbox (where the run may move prices): orderIds count
 * per symbol, so an order on one symbol may share its orderId with one on another. The run brings
 * two symbols' next orderIds level (with far orders it cancels, at most LEVELLING_ORDERS), places
 * one order whose client order id the target generates and, on the other symbol, one with its
 * own id and the same orderId; each is found by its client order id on its symbol, as itself,
 * open and again once cancelled (a closed order is found through the history, not the open ones).
 */
import { bodyObject, describeAnswer, isRateLimited, ok } from "../kit/answers.js";
import { op, type RunContext, restingPlans, whyNoTrading } from "../kit/context.js";
import { type FarBuy, type Market, readExchangeInfo, TRADING_STATUS, takesOrders } from "../kit/market.js";
import { OPEN_STATUSES } from "../kit/matching-model.js";
import { OrderDesk, orderOperations } from "../kit/order-desk.js";
import { ORDER_OPERATION_IDS, ORDER_OPERATIONS } from "../kit/order-operations.js";
import { unknownOrderRefusal } from "../kit/order-state.js";
import {
  allOrders,
  cancelIfOpen,
  cancelOwn,
  itemsOf,
  type OwnOrder,
  openOrders,
  placeFar,
  placeFarGenerated,
  queryOwn,
} from "../kit/own-orders.js";
import { paramValue, type RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "every_symbol";
/** The operations it sends: every order operation. */
const OPERATIONS = ORDER_OPERATION_IDS;
const PURPOSE = "every symbol";

export const everySymbol: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "symbols",
  description:
    "each listed symbol trades: an order rests on each, belongs to its symbol in every read (open orders with and without symbol), and is unknown through another symbol",
  covers: [],
  hooks: [
    { phase: "trading-behaviour", run: everySymbolCheck },
    { phase: "end", run: judgeAnnouncedStatus },
  ],
  appliesTo: (operation) => OPERATIONS.includes(operation.operationId),
  notApplicable: "reads no order",
  seenToCatch: [
    "open-orders-unfiltered-drops-second-symbol",
    "query-order-ignores-symbol",
    "client-id-lost-beside-generated-orderId",
    "exchange-info-symbols-halted-while-trading",
    "cancel-all-reports-other-symbols",
    "cancel-by-client-id-across-symbols",
  ],
};

/**
 * The symbols exchangeInfo announces as not trading (`announced`: each symbol's status) on which
 * the target accepted new orders (`accepted`: how many, by symbol): a status it does not keep.
 * Pure.
 */
export function statusProblems(
  announced: ReadonlyMap<string, string>,
  accepted: ReadonlyMap<string, number>,
): string[] {
  const problems: string[] = [];
  for (const [symbol, count] of accepted) {
    const status = announced.get(symbol);
    if (status !== undefined && !takesOrders({ status }) && count > 0)
      problems.push(
        `exchangeInfo lists ${symbol} with status ${status}, yet ${count} new order(s) on it were accepted; only ${TRADING_STATUS} takes new orders`,
      );
  }
  return problems;
}

/**
 * One far order to each symbol listed as not trading (ctx.notTrading), cancelled at once if
 * taken: the end's judgement (judgeAnnouncedStatus) weighs what was taken against the status.
 */
async function tryNotTrading(ctx: RunContext): Promise<void> {
  for (const plan of ctx.notTrading) {
    const { symbol, status } = plan.rules;
    if ("reason" in plan.farBuy) {
      ctx.session.recorder.note(CHECK, "new_order", `${symbol} (${status}) not tried: ${plan.farBuy.reason}`);
      continue;
    }
    const order = await placeFar(ctx, plan.farBuy, `${PURPOSE}: an order on ${symbol}, listed ${status}`);
    await cancelIfOpen(ctx, order, `${PURPOSE}: the order on ${symbol}, listed ${status}`);
  }
}

/**
 * At the end, the run's accepted orders against the status each symbol was announced with. A
 * status may change while a run trades, so a symbol is judged only when exchangeInfo, read again,
 * still shows it not trading.
 */
async function judgeAnnouncedStatus(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK)) return;
  const accepted = new Map<string, number>();
  let first: RoundTrip | undefined;
  for (const { exchange } of ctx.session.timeline) {
    if (exchange.op.operationId !== ORDER_OPERATIONS.newOrder || !ok(exchange)) continue;
    const symbol = paramValue(exchange.plan.params, "symbol")?.toUpperCase();
    if (symbol === undefined) continue;
    accepted.set(symbol, (accepted.get(symbol) ?? 0) + 1);
    first ??= exchange;
  }
  const announced = statusesOf(ctx.market);
  if (!first || statusProblems(announced, accepted).length === 0) return;
  const info = op(ctx, "exchange_info");
  if (!info) return;
  const again = await ctx.session.call({ op: info, params: [] }, "every symbol: the symbols' status again");
  if (!ok(again)) return;
  const now = statusesOf(readExchangeInfo(again.response?.json));
  const stillNot = new Map(
    [...announced].filter(([symbol]) => now.has(symbol) && !takesOrders({ status: now.get(symbol) ?? "" })),
  );
  const problems = statusProblems(stillNot, accepted);
  if (problems.length > 0) ctx.session.fail(CHECK, first, problems.join("; "));
  else ctx.session.pass(CHECK, first);
}

function statusesOf(market: Market): Map<string, string> {
  return new Map(market.symbols.map((s) => [s.symbol, s.status]));
}

/** An order of the run as one read showed it. */
export interface OrderSighting {
  symbol: string;
  clientOrderId: string;
}

/**
 * What is wrong with the open-order lists, given the run's orders resting on their symbols, the
 * list of each symbol and the list without a symbol: a list that lacks an order of its symbol,
 * holds one of another symbol, or (without a symbol) lacks one or shows it otherwise than its
 * symbol's list does. Pure: each list is the items as answered.
 */
export function openListProblems(
  orders: readonly OrderSighting[],
  bySymbol: ReadonlyMap<string, readonly Record<string, unknown>[]>,
  unfiltered: readonly Record<string, unknown>[] | undefined,
): string[] {
  const problems: string[] = [];
  const own = new Set(orders.map((o) => o.clientOrderId));
  for (const [symbol, items] of bySymbol) {
    for (const order of orders.filter((o) => o.symbol === symbol))
      if (!items.some((i) => i.clientOrderId === order.clientOrderId))
        problems.push(
          `open_orders on ${symbol} does not list the run's order ${order.clientOrderId} on ${symbol}`,
        );
    for (const item of items) {
      if (item.symbol !== symbol)
        problems.push(
          `open_orders on ${symbol} lists order ${String(item.orderId)} of symbol ${String(item.symbol)}`,
        );
      else if (
        own.has(String(item.clientOrderId)) &&
        !orders.some((o) => o.clientOrderId === item.clientOrderId && o.symbol === symbol)
      )
        problems.push(
          `open_orders on ${symbol} lists the run's order ${String(item.clientOrderId)} of another symbol`,
        );
    }
  }
  if (unfiltered === undefined) return problems;
  for (const order of orders) {
    const found = unfiltered.filter((i) => i.clientOrderId === order.clientOrderId);
    if (found.length !== 1) {
      problems.push(
        `open_orders without symbol lists the run's order ${order.clientOrderId} on ${order.symbol} ${found.length} times`,
      );
      continue;
    }
    const single = bySymbol.get(order.symbol)?.find((i) => i.clientOrderId === order.clientOrderId);
    if (single && JSON.stringify(found[0]) !== JSON.stringify(single))
      problems.push(
        `open_orders without symbol shows order ${order.clientOrderId} as ${JSON.stringify(found[0])}, open_orders on ${order.symbol} as ${JSON.stringify(single)}`,
      );
  }
  return problems;
}

/**
 * An answer to a read or a cancel of the run's order through another symbol: right when it is
 * the unknown-order refusal, or (ids counted per symbol) another order of that symbol, never the
 * run's order. Returns the problem, or undefined.
 */
export function wrongSymbolProblem(
  what: string,
  order: OrderSighting,
  asked: string,
  answer: { status: number; body: Record<string, unknown> | undefined },
  isUnknownRefusal: boolean,
): string | undefined {
  if (answer.status >= 200 && answer.status < 300) {
    const body = answer.body ?? {};
    if (body.clientOrderId === order.clientOrderId || body.origClientOrderId === order.clientOrderId)
      return `${what} on ${asked} answered the run's order ${order.clientOrderId} of ${order.symbol}`;
    if (body.symbol !== undefined && body.symbol !== asked)
      return `${what} on ${asked} answered an order of ${String(body.symbol)}`;
    return undefined;
  }
  return isUnknownRefusal
    ? undefined
    : `${what} on ${asked} for an order of ${order.symbol}: not the unknown-order refusal`;
}

async function everySymbolCheck(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK)) return;
  const skip = (reason: string) => {
    for (const id of OPERATIONS) ctx.session.recorder.skip(CHECK, id, reason);
  };
  const noTrading = whyNoTrading(ctx);
  if (noTrading) return skip(noTrading);
  await tryNotTrading(ctx);
  const plans = restingPlans(ctx);
  if (plans.length === 0) return skip(`no symbol to rest an order on (${reasons(ctx)})`);
  if (plans.length < ctx.symbols.length)
    ctx.session.recorder.note(CHECK, "new_order", `not traded: ${reasons(ctx)}`);
  ctx.progress({
    type: "stage",
    message: `${PURPOSE}: a far order on each of ${plans.map((p) => p.rules.symbol).join(", ")} (cancelled afterwards)`,
  });
  const orders: OwnOrder[] = [];
  try {
    for (const plan of plans) {
      const order = await placeFar(ctx, plan.farBuy, `${PURPOSE}: a far LIMIT BUY on ${plan.rules.symbol}`);
      if (judgeServed(ctx, order.placed.exchange, `a far LIMIT BUY on ${plan.rules.symbol}`))
        orders.push(order);
    }
    if (orders.length === 0) return;
    await judgeLists(ctx, orders, "resting");
    if (orders.length > 1) await throughOtherSymbols(ctx, orders);
    if (orders.length > 1) await cancelAllOnOne(ctx, orders);
  } finally {
    for (const order of orders) await cancelIfOpen(ctx, order, `${PURPOSE}: cancel`);
  }
  if (orders.length > 0) await judgeGone(ctx, orders);
  if (plans.length > 1 && ctx.movePrices) await clientIdsAcrossSymbols(ctx, plans);
}

/**
 * What is wrong with cancel_all_orders on `symbol` (its answer's items) and the reads after it
 * (`stillOpen`: each of the run's orders on other symbols, whether it is still open): it must
 * report the run's orders of that symbol, none of another symbol, and leave the others open.
 * Pure.
 */
export function cancelAllProblems(
  symbol: string,
  orders: readonly OrderSighting[],
  reported: readonly Record<string, unknown>[],
  stillOpen: ReadonlyMap<string, boolean>,
): string[] {
  const problems: string[] = [];
  const named = (item: Record<string, unknown>) => item.origClientOrderId ?? item.clientOrderId;
  for (const order of orders.filter((o) => o.symbol === symbol))
    if (!reported.some((item) => named(item) === order.clientOrderId))
      problems.push(`cancel_all_orders on ${symbol} does not report the run's order ${order.clientOrderId}`);
  for (const item of reported)
    if (item.symbol !== symbol)
      problems.push(
        `cancel_all_orders on ${symbol} reports an order of ${String(item.symbol)} (${String(named(item))})`,
      );
  for (const [clientOrderId, open] of stillOpen)
    if (!open) {
      const order = orders.find((o) => o.clientOrderId === clientOrderId);
      problems.push(
        `the run's order ${clientOrderId} on ${order?.symbol ?? "another symbol"} is no longer open after cancel_all_orders on ${symbol}`,
      );
    }
  return problems;
}

/**
 * cancel_all_orders on the first order's symbol, while the run's orders rest on others: only
 * that symbol's orders go. Sent only where the account has no open order of its own there.
 */
async function cancelAllOnOne(ctx: RunContext, orders: readonly OwnOrder[]): Promise<void> {
  const symbol = orders[0]!.symbol;
  const others = orders.filter((o) => o.symbol !== symbol);
  const ops = orderOperations(ctx.session.model);
  if (others.length === 0 || "reason" in ops || !ops.cancelAll || !("symbol" in ctx.farBuy)) return;
  const desk = new OrderDesk(ctx, ops, symbol, ctx.farBuy);
  const forbidden = await desk.cancelAllForbidden();
  if (forbidden) return ctx.session.recorder.note(CHECK, "cancel_all_orders", `not sent: ${forbidden}`);
  const exchange = await desk.cancelAll(
    `${PURPOSE}: cancel_all_orders on ${symbol}, orders resting on others`,
  );
  if (!exchange || !judgeServed(ctx, exchange, `cancel_all_orders on ${symbol}`)) return;
  const stillOpen = new Map<string, boolean>();
  for (const order of others) {
    const read = await queryOwn(ctx, order, `${PURPOSE}: query_order of the ${order.symbol} order after it`);
    if (read && ok(read))
      stillOpen.set(order.clientOrderId, OPEN_STATUSES.includes(String(bodyObject(read)?.status)));
    // The ledger took the orders the answer listed for closed: each is cancelled on its own.
    await cancelOwn(ctx, order, `${PURPOSE}: cancel the ${order.symbol} order`);
  }
  const problems = cancelAllProblems(symbol, orders, itemsOf(exchange), stillOpen);
  if (problems.length > 0) ctx.session.fail(CHECK, exchange, problems.join("; "));
  else ctx.session.pass(CHECK, exchange);
}

/** Orders the run spends at most to bring two symbols' next orderIds level. */
const LEVELLING_ORDERS = 24;

type Plan = { rules: { symbol: string }; farBuy: FarBuy };

/** A far order placed and cancelled at once: its orderId (the symbol's next one then). */
async function spend(ctx: RunContext, plan: Plan, why: string): Promise<number | undefined> {
  const order = await placeFar(ctx, plan.farBuy, `${PURPOSE}: ${why} on ${plan.rules.symbol}`);
  await cancelIfOpen(ctx, order, `${PURPOSE}: cancel`);
  return order.orderId;
}

async function clientIdsAcrossSymbols(ctx: RunContext, plans: readonly Plan[]): Promise<void> {
  const note = (what: string) =>
    ctx.session.recorder.note(CHECK, "query_order", `client ids across symbols: ${what}`);
  const last: Array<{ plan: Plan; id: number }> = [];
  for (const plan of plans) {
    const id = await spend(ctx, plan, "its next orderId");
    if (id !== undefined) last.push({ plan, id });
  }
  const pairs = last.flatMap((a, i) => last.slice(i + 1).map((b) => (a.id <= b.id ? [a, b] : [b, a])));
  const pair = pairs.sort((p, q) => p[1]!.id - p[0]!.id - (q[1]!.id - q[0]!.id))[0];
  if (!pair) return note("no two symbols took an order");
  const [low, high] = pair as [(typeof last)[number], (typeof last)[number]];
  const gap = high.id - low.id;
  if (gap > LEVELLING_ORDERS)
    return note(
      `the closest symbols' orderIds are ${gap} apart, more than ${LEVELLING_ORDERS}: not levelled`,
    );
  for (let i = 0; i < gap; i++) await spend(ctx, low.plan, "an order to level the orderIds");
  const generated = await placeFarGenerated(
    ctx,
    low.plan.farBuy,
    `${PURPOSE}: a far LIMIT BUY with a generated id on ${low.plan.rules.symbol}`,
  );
  const chosen = await placeFar(
    ctx,
    high.plan.farBuy,
    `${PURPOSE}: a far LIMIT BUY with the run's own id on ${high.plan.rules.symbol}`,
  );
  if (generated.orderId !== undefined && generated.orderId !== chosen.orderId)
    note(`orderIds ${generated.orderId} and ${chosen.orderId} (another client placed orders between)`);
  const placed = [generated, chosen].filter((order) => ok(order.placed.exchange));
  // Open, an order is found among the account's open ones; closed, through the history's ids.
  try {
    for (const order of placed) await judgeFoundByClientId(ctx, order, generated, "open");
  } finally {
    for (const order of [generated, chosen]) await cancelIfOpen(ctx, order, `${PURPOSE}: cancel`);
  }
  for (const order of placed) await judgeFoundByClientId(ctx, order, generated, "cancelled");
}

async function judgeFoundByClientId(
  ctx: RunContext,
  order: OwnOrder,
  generated: OwnOrder,
  when: string,
): Promise<void> {
  const byClientId = { ...order, orderId: undefined };
  const exchange = await queryOwn(
    ctx,
    byClientId,
    `${PURPOSE}: query ${order.clientOrderId} (${when}) by its client order id`,
  );
  if (!exchange) return;
  const body = bodyObject(exchange);
  if (ok(exchange) && body?.orderId === order.orderId && body?.symbol === order.symbol)
    return ctx.session.pass(CHECK, exchange);
  ctx.session.fail(
    CHECK,
    exchange,
    `order ${order.orderId} on ${order.symbol} (${when}), client order id ${order.clientOrderId} (${order === generated ? "generated by the target" : "the run's own"}; orderId ${generated.orderId} on ${generated.symbol} has a generated id), is not found as itself by its client order id: ${describeAnswer(exchange)}`,
  );
}

function reasons(ctx: RunContext): string {
  return ctx.symbols.flatMap((p) => ("reason" in p.farBuy ? [p.farBuy.reason] : [])).join("; ");
}

function judgeServed(ctx: RunContext, exchange: RoundTrip | undefined, what: string): boolean {
  if (!exchange) return false;
  if (ok(exchange)) {
    ctx.session.pass(CHECK, exchange);
    return true;
  }
  if (isRateLimited(exchange))
    ctx.session.recorder.skip(CHECK, exchange.op.operationId, `rate limited during ${what}`);
  else ctx.session.fail(CHECK, exchange, `${what} was refused (${describeAnswer(exchange)})`);
  return false;
}

/** Each symbol's open orders and the list without a symbol, judged together. */
async function judgeLists(ctx: RunContext, orders: readonly OwnOrder[], when: string): Promise<void> {
  const bySymbol = new Map<string, Record<string, unknown>[]>();
  let last: RoundTrip | undefined;
  for (const symbol of new Set(orders.map((o) => o.symbol))) {
    const exchange = await openOrders(ctx, symbol, `${PURPOSE}: open_orders on ${symbol} (${when})`);
    if (!exchange || !judgeServed(ctx, exchange, `open_orders on ${symbol}`)) return;
    bySymbol.set(symbol, itemsOf(exchange));
    last = exchange;
  }
  const all = await openOrders(ctx, undefined, `${PURPOSE}: open_orders without symbol (${when})`);
  if (!all || !judgeServed(ctx, all, "open_orders without symbol")) return;
  const problems = openListProblems(orders, bySymbol, itemsOf(all));
  if (problems.length > 0) ctx.session.fail(CHECK, all, problems.join("; "));
  else if (last) ctx.session.pass(CHECK, last);
}

/** Each order looked up, cancelled and listed through another symbol: unknown there, and still open. */
async function throughOtherSymbols(ctx: RunContext, orders: readonly OwnOrder[]): Promise<void> {
  for (const [index, order] of orders.entries()) {
    const other = orders[(index + 1) % orders.length]!;
    if (other.symbol === order.symbol || order.orderId === undefined || order.orderId === other.orderId)
      continue;
    const query = await queryOwn(
      ctx,
      order,
      `${PURPOSE}: query_order of a ${order.symbol} order on ${other.symbol}`,
      {
        symbol: other.symbol,
      },
    );
    if (query) judgeWrongSymbol(ctx, query, "query_order", order, other.symbol);
    const cancel = await cancelOwn(
      ctx,
      order,
      `${PURPOSE}: cancel_order of a ${order.symbol} order on ${other.symbol}`,
      {
        symbol: other.symbol,
      },
    );
    if (cancel) judgeWrongSymbol(ctx, cancel, "cancel_order", order, other.symbol);
    await byClientIdThrough(ctx, order, other.symbol);
    const listed = await allOrders(ctx, other.symbol, `${PURPOSE}: all_orders on ${other.symbol}`);
    if (listed && judgeServed(ctx, listed, `all_orders on ${other.symbol}`)) {
      const stray = itemsOf(listed).find((i) => i.clientOrderId === order.clientOrderId);
      if (stray)
        ctx.session.fail(
          CHECK,
          listed,
          `all_orders on ${other.symbol} lists the run's order ${order.clientOrderId} of ${order.symbol}`,
        );
      else ctx.session.pass(CHECK, listed);
    }
    const still = await queryOwn(
      ctx,
      order,
      `${PURPOSE}: query_order of the ${order.symbol} order on its symbol`,
    );
    if (still && judgeServed(ctx, still, `query_order on ${order.symbol}`)) {
      const status = bodyObject(still)?.status;
      if (status !== "NEW")
        ctx.session.fail(
          CHECK,
          still,
          `order ${order.clientOrderId} on ${order.symbol} is ${String(status)} after a cancel sent on ${other.symbol}; it must still rest`,
        );
      else ctx.session.pass(CHECK, still);
    }
  }
}

/** The same lookups by the order's client order id alone: an id is the account's on one symbol only. */
async function byClientIdThrough(ctx: RunContext, order: OwnOrder, symbol: string): Promise<void> {
  const byClientId: OwnOrder = { ...order, orderId: undefined };
  const what = `a ${order.symbol} order by its client order id on ${symbol}`;
  const query = await queryOwn(ctx, byClientId, `${PURPOSE}: query_order of ${what}`, { symbol });
  if (query) judgeWrongSymbol(ctx, query, "query_order", order, symbol);
  const cancel = await cancelOwn(ctx, byClientId, `${PURPOSE}: cancel_order of ${what}`, { symbol });
  if (cancel) judgeWrongSymbol(ctx, cancel, "cancel_order", order, symbol);
}

function judgeWrongSymbol(
  ctx: RunContext,
  exchange: RoundTrip,
  what: string,
  order: OwnOrder,
  asked: string,
): void {
  if (!exchange.response || isRateLimited(exchange)) return;
  const problem = wrongSymbolProblem(
    what,
    order,
    asked,
    { status: exchange.response.status, body: bodyObject(exchange) },
    unknownOrderRefusal(exchange.op, exchange),
  );
  if (problem) ctx.session.fail(CHECK, exchange, `${problem} (${describeAnswer(exchange)})`);
  else ctx.session.pass(CHECK, exchange);
}

/** After the cancels: no list shows the orders any more. */
async function judgeGone(ctx: RunContext, orders: readonly OwnOrder[]): Promise<void> {
  const all = await openOrders(ctx, undefined, `${PURPOSE}: open_orders without symbol (after the cancels)`);
  if (!all || !judgeServed(ctx, all, "open_orders without symbol")) return;
  const left = itemsOf(all).filter((i) => orders.some((o) => o.clientOrderId === i.clientOrderId));
  if (left.length > 0)
    ctx.session.fail(
      CHECK,
      all,
      `open_orders without symbol still lists ${left.map((i) => `${String(i.clientOrderId)} on ${String(i.symbol)}`).join(", ")} after it was cancelled`,
    );
  else ctx.session.pass(CHECK, all);
}
