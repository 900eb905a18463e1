/**
 * order_views (x-relations orders): an order reads the same from every operation that reports it
 * (query_order, open_orders, all_orders; and the answers of new_order and of the cancels), the open
 * list holds exactly the orders whose status is open, and an order in a final status never changes.
 *
 * Reads: the list reads (open_orders, all_orders) are made twice, around one query_order per order
 * looked at. An order whose views in the two rounds agree did not change in between: all its views
 * must then agree (the view most of them share is the order's state; the others fail). An order
 * whose views differ between the rounds moved (a busy market filled it): it is not judged. A view
 * in a final status is the order's last state: every later view must equal it.
 *
 * On every symbol the run trades, each read on its own symbol. With trading allowed, the run first
 * makes the states a thin target lacks there: a LIMIT SELL resting
 * inside the spread, partly filled by a MARKET BUY of half its quantity (so one order is
 * PARTIALLY_FILLED and one FILLED), read as above; then it cancels the partly filled order and
 * compares the cancel's report, and the MARKET BUY's answer, with query_order afterwards; and
 * cancel_all_orders' report of a resting order, where the account has no other open order on the
 * symbol. What the two orders left bought or sold is offset with a MARKET order.
 *
 * At the end of the run, every order view shows self-trade prevention's fields (preventedMatchId,
 * preventedQuantity) only where it acted: never under the mode NONE, and naming a match and a
 * quantity when shown. And every order the run placed shows what was sent to place it (side, type,
 * price, quantity, stop price, iceberg and client order id; kit/order-echo.ts) in new_order's
 * answer and in every later read of it, judged on the run's own exchanges. And on every symbol
 * the run placed orders on: the newest page of each order
 * list that takes a limit and, with no cursor and no window, answers the newest (all_orders), at
 * its largest limit and at a small one, holds the orders new_order gave the account during the
 * run as the newest page must (kit/newest-page.ts; the account may hold more).
 */
import type { OrderViews } from "@marketapi/spec/model";
import { type Dec, formatDec, tryParseDec, ZERO } from "../core/decimal.js";
import { encodeParams } from "../http/request.js";
import { bodyObject, describeAnswer, ok } from "../kit/answers.js";
import { listAt, unreachable, valueAt } from "../kit/behaviour-support.js";
import { op, type RunContext, tradedRules } from "../kit/context.js";
import { rulesFor, type SymbolRules, smallestQuantity } from "../kit/market.js";
import { judgeNewestPage, newestPageLimit, newestPageOf } from "../kit/newest-page.js";
import { echoProblems, type UnsentDefaults, unsentProblems } from "../kit/order-echo.js";
import { ORDER_OPERATIONS } from "../kit/order-operations.js";
import { bestPrices, placeOrder } from "../kit/order-placing.js";
import { firstOrderProblem, preventionFieldsProblem } from "../kit/order-state.js";
import { judged, named, relationsOf, sameValue, symbolValues, unjudged } from "../kit/relations-support.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "order_views";
/** Orders of the account looked at by the reads (besides the open ones and the run's own). */
const SAMPLE = 6;
/** Items asked of a list read that takes a limit. */
const LIST_ITEMS = 50;
/** The small limit the newest page is read at besides its largest. */
const SMALL_PAGE = 3;

export const orderViews: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "views",
  description:
    "an order reads the same from query, open and all orders and from the answers of its placement and cancel; open orders lists exactly the open ones (x-relations)",
  covers: ["x-relations"],
  hooks: [
    { phase: "relation", run: orderViewsCheck },
    { phase: "trading", run: { cancelledAll: (desk, answer) => judgeCancelReports(desk.ctx, answer) } },
    {
      phase: "end",
      run: async (ctx) => {
        judgeEchoes(ctx);
        judgePreventionFields(ctx);
        await judgeNewestPages(ctx);
      },
    },
  ],
  appliesTo: named((relations) =>
    relations.orders.flatMap((views) => [...views.reads, ...views.reports, views.open.operation]),
  ),
  notApplicable: "x-relations names no view of an order in it",
  seenToCatch: [
    "open-orders-executedQty-zero",
    "query-order-executedQty-zero-on-ethusdt",
    "cancel-report-executedQty-zero",
    "all-orders-newest-page-short",
    "all-orders-newest-page-drops-the-newest",
    "open-orders-stop-price-zeroed",
    "new-order-client-id-server-made",
    "limit-maker-never-working",
    "stop-market-price-is-stop",
    "stp-mode-not-symbol-default",
    "order-list-id-zero-in-reads",
    "trailing-delta-left-out-of-reads",
    "prevention-fields-on-every-order",
  ],
};

/**
 * Every order the run placed shows, in new_order's answer and in every later read of it, what was
 * sent to place it (kit/order-echo.ts): judged on the run's own exchanges, no request of its own.
 */
function judgeEchoes(ctx: RunContext): void {
  const relations = relationsOf(ctx);
  if (!relations || !ctx.session.recorder.enabled(CHECK)) return;
  // The reads x-relations names (a cancel's report names the cancel's client id, not the order's).
  const reads = new Set(relations.orders.flatMap((views) => views.reads));
  const placing = ORDER_OPERATIONS.newOrder;
  const placed = new Map<string, RoundTrip>();
  const problems: Array<{ exchange: RoundTrip; problem: string }> = [];
  let judgedViews = 0;
  for (const { exchange } of ctx.session.timeline) {
    const id = exchange.op.operationId;
    if (!ok(exchange) || (id !== placing && !reads.has(id))) continue;
    const json = exchange.response?.json;
    const items = (Array.isArray(json) ? json : [json]).filter(
      (item): item is Record<string, unknown> => typeof item === "object" && item !== null,
    );
    for (const item of items) {
      const key = `${item.symbol}#${item.orderId}`;
      if (typeof item.orderId !== "number") continue;
      if (id === placing && !placed.has(key)) placed.set(key, exchange);
      const placedBy = placed.get(key);
      if (!placedBy) continue;
      judgedViews += 1;
      const where = id === placing ? `${placing}'s answer` : `${id}'s view of order ${item.orderId}`;
      const sent = [...placedBy.plan.params, ...(placedBy.plan.wire?.alsoInBody ?? [])];
      for (const problem of [
        ...echoProblems(sent, item, where),
        ...unsentProblems(sent, item, where, unsentDefaults(ctx, String(item.symbol))),
      ])
        problems.push({ exchange, problem });
    }
  }
  const first = problems[0];
  if (first)
    ctx.session.fail(
      CHECK,
      first.exchange,
      `an order shows other than what placed it: ${problems
        .slice(0, 3)
        .map((p) => p.problem)
        .join("; ")}${problems.length > 3 ? ` (${problems.length} in all)` : ""}`,
    );
  else {
    const last = [...placed.values()].at(-1);
    if (last && judgedViews > 0) ctx.session.pass(CHECK, last);
  }
}

/** The defaults of `symbol` an order placed without them shows (exchangeInfo's, as the run read it). */
function unsentDefaults(ctx: RunContext, symbol: string): UnsentDefaults {
  return { selfTradePreventionMode: rulesFor(ctx.market, symbol)?.defaultSelfTradePreventionMode };
}

export async function orderViewsCheck(ctx: RunContext): Promise<void> {
  const relations = relationsOf(ctx);
  if (!relations) return;
  for (const views of relations.orders) await judgeViews(ctx, views);
}

/** One view of an order: the operation that reported it, and the order's object in its answer. */
interface View {
  exchange: RoundTrip;
  order: Record<string, unknown>;
}

async function judgeViews(ctx: RunContext, views: OrderViews): Promise<void> {
  const lacking = views.reads.map((id) => op(ctx, id)).find((o) => o && unreachable(ctx, o));
  if (lacking) {
    const reason = unreachable(ctx, lacking) ?? "";
    for (const id of [...views.reads, ...views.reports]) ctx.session.recorder.skip(CHECK, id, reason);
    unjudged(ctx, views.name, [...views.reads, ...views.reports, views.open.operation], reason);
    return;
  }
  if (!ctx.trading || !ctx.session.canSign)
    unjudged(
      ctx,
      views.name,
      views.reports,
      ctx.session.canSign
        ? "trading is not allowed (--allow-trading): no order was placed or cancelled to compare its report"
        : "no credentials: no order was placed or cancelled to compare its report",
    );
  // Every symbol the run trades: an order's views on one symbol say nothing of another's.
  for (const rules of tradedRules(ctx)) {
    const made = await makeStates(ctx, rules);
    try {
      await compareReads(ctx, views, made?.orderIds ?? [], rules.symbol);
    } finally {
      if (made) await finishStates(ctx, views, made);
    }
  }
}

/** A view judged: its verdict, and the relation marked judged on its operation in the coverage report. */
function passView(ctx: RunContext, views: OrderViews, exchange: RoundTrip): void {
  judged(ctx, views.name, [exchange.op.operationId]);
  ctx.session.pass(CHECK, exchange);
}

function failView(ctx: RunContext, views: OrderViews, exchange: RoundTrip, message: string): void {
  judged(ctx, views.name, [exchange.op.operationId]);
  ctx.session.fail(CHECK, exchange, message);
}

const idOf = (views: OrderViews, order: unknown) => valueAt(order, views.id);
const statusOf = (views: OrderViews, order: unknown) => valueAt(order, views.status);

/** The fields of an order that views must agree on, as comparable text. */
function state(views: OrderViews, order: unknown): string {
  return JSON.stringify(
    views.fields.map((pointer) => {
      const value = valueAt(order, pointer);
      const dec = tryParseDec(value);
      return dec === undefined ? value : formatDec(dec);
    }),
  );
}

function differences(views: OrderViews, a: unknown, b: unknown): string {
  return views.fields
    .filter((pointer) => !sameValue(valueAt(a, pointer), valueAt(b, pointer)))
    .map(
      (pointer) =>
        `${pointer} ${JSON.stringify(valueAt(a, pointer))} vs ${JSON.stringify(valueAt(b, pointer))}`,
    )
    .join(", ");
}

async function readList(
  ctx: RunContext,
  operationId: string,
  label: string,
  symbol: string,
): Promise<RoundTrip | undefined> {
  const operation = op(ctx, operationId);
  if (!operation) return undefined;
  const limit = operation.behaviour.limit;
  const values = symbolValues(ctx, operation, {
    symbol,
    ...(limit ? { [limit.parameter]: Math.min(LIST_ITEMS, limit.maximum) } : {}),
  });
  const exchange = await ctx.session.call({ op: operation, params: encodeParams(operation, values) }, label);
  if (ok(exchange)) return exchange;
  ctx.session.fail(CHECK, exchange, `${label}: a valid request was refused (${describeAnswer(exchange)})`);
  return undefined;
}

async function queryOne(
  ctx: RunContext,
  views: OrderViews,
  operationId: string,
  id: unknown,
  symbol: string,
): Promise<View | undefined> {
  const operation = op(ctx, operationId);
  const idParameter = views.id.split("/").pop() ?? "";
  if (!operation?.parameters.some((p) => p.name === idParameter)) return undefined;
  const values = symbolValues(ctx, operation, { symbol, [idParameter]: id });
  const exchange = await ctx.session.call(
    { op: operation, params: encodeParams(operation, values) },
    `order views: ${operationId} ${id}`,
  );
  const order = bodyObject(exchange);
  if (ok(exchange) && order && idOf(views, order) === id) return { exchange, order };
  if (!ok(exchange))
    ctx.session.fail(
      CHECK,
      exchange,
      `order views: ${operationId} of order ${id}, which the lists show, was refused (${describeAnswer(exchange)})`,
    );
  return undefined;
}

/** The reads that answer a list, and those that answer one order (by its id). */
function splitReads(ctx: RunContext, views: OrderViews): { lists: string[]; singles: string[] } {
  const idParameter = views.id.split("/").pop() ?? "";
  const lists: string[] = [];
  const singles: string[] = [];
  for (const id of views.reads) {
    const operation = op(ctx, id);
    if (!operation) continue;
    const takesId = operation.parameters.some((p) => p.name === idParameter && p.required !== true);
    // An operation that needs the id to answer reads one order; one that lists without it, a list.
    const lookup = operation.behaviour.unknownReferences?.order !== undefined;
    (takesId && lookup ? singles : lists).push(id);
  }
  return { lists, singles };
}

async function compareReads(
  ctx: RunContext,
  views: OrderViews,
  own: unknown[],
  symbol: string,
): Promise<void> {
  const { lists, singles } = splitReads(ctx, views);
  const first = new Map<string, RoundTrip>();
  for (const id of lists) {
    const exchange = await readList(ctx, id, `order views: ${id} on ${symbol} (first round)`, symbol);
    if (exchange) first.set(id, exchange);
  }
  const listed = (exchange: RoundTrip | undefined) =>
    (listAt(exchange?.response?.json, "") ?? []).filter(
      (o): o is Record<string, unknown> => typeof o === "object" && o !== null,
    );
  const ids = pickOrders(views, [...first.values()].flatMap(listed), own);
  if (ids.length === 0) {
    unjudged(ctx, views.name, views.reads, `the account has no order on ${symbol} to read`);
    for (const id of views.reads)
      ctx.session.recorder.note(CHECK, id, `the account has no order on ${symbol} to read`);
    return;
  }
  const singleViews = new Map<unknown, View[]>();
  for (const id of ids)
    for (const single of singles) {
      const view = await queryOne(ctx, views, single, id, symbol);
      if (view) singleViews.set(id, [...(singleViews.get(id) ?? []), view]);
    }
  const second = new Map<string, RoundTrip>();
  for (const id of lists) {
    const exchange = await readList(ctx, id, `order views: ${id} on ${symbol} (second round)`, symbol);
    if (exchange) second.set(id, exchange);
  }
  const find = (exchange: RoundTrip | undefined, id: unknown): View | undefined => {
    const order = listed(exchange).find((o) => idOf(views, o) === id);
    return order && exchange ? { exchange, order } : undefined;
  };
  for (const id of ids) {
    const before = lists.map((l) => find(first.get(l), id)).filter((v): v is View => v !== undefined);
    const after = lists.map((l) => find(second.get(l), id)).filter((v): v is View => v !== undefined);
    judgeOrder(ctx, views, id, before, singleViews.get(id) ?? [], after);
  }
  judgeOpenList(ctx, views, ids, first, second, find);
}

/** Up to SAMPLE orders: every one of the run's own, then one per status and type the lists show. */
function pickOrders(views: OrderViews, listed: Record<string, unknown>[], own: unknown[]): unknown[] {
  const ids: unknown[] = [...own];
  const kinds = new Set<string>();
  for (const order of [...listed].reverse()) {
    const id = idOf(views, order);
    const kind = `${String(statusOf(views, order))} ${String(valueAt(order, "/type"))}`;
    if (id === undefined || ids.includes(id) || kinds.has(kind)) continue;
    kinds.add(kind);
    ids.push(id);
    if (ids.length >= own.length + SAMPLE) break;
  }
  return ids;
}

/**
 * Judges the views of one order: `before` (first round of the lists), `middle` (query_order),
 * `after` (second round), each in the order it was read. A view in a final status must be equalled
 * by every view read after it; when no list shows the order changed between the rounds, all views
 * must agree.
 */
function judgeOrder(
  ctx: RunContext,
  views: OrderViews,
  id: unknown,
  before: View[],
  middle: View[],
  after: View[],
): void {
  const chronological = [...before, ...middle, ...after];
  const fixedAt = chronological.findIndex((view) =>
    views.final.includes(String(statusOf(views, view.order))),
  );
  if (fixedAt >= 0) {
    const fixed = chronological[fixedAt] as View;
    for (const later of chronological.slice(fixedAt)) {
      if (state(views, later.order) === state(views, fixed.order)) passView(ctx, views, later.exchange);
      else
        failView(
          ctx,
          views,
          later.exchange,
          `order ${String(id)}: ${later.exchange.op.operationId} shows ${differences(views, later.order, fixed.order)} (the first from it, the second from ${fixed.exchange.op.operationId} before it), and ${String(statusOf(views, fixed.order))} is a final status`,
        );
    }
    return;
  }
  // Not final: judged only when the lists show it unchanged between the rounds.
  const moved = before.some((b) => {
    const a = after.find((x) => x.exchange.op.operationId === b.exchange.op.operationId);
    return a !== undefined && state(views, a.order) !== state(views, b.order);
  });
  if (moved) {
    unjudged(
      ctx,
      views.name,
      chronological.map((v) => v.exchange.op.operationId),
      "every order read changed while it was read",
    );
    ctx.session.recorder.note(
      CHECK,
      chronological[0]?.exchange.op.operationId ?? "",
      `order ${String(id)} changed while it was read; not judged`,
    );
    return;
  }
  if (chronological.length >= 2) majority(ctx, views, id, chronological);
}

/** The state most views show is the order's; every view that shows another fails. */
function majority(ctx: RunContext, views: OrderViews, id: unknown, all: View[]): void {
  const counts = new Map<string, View[]>();
  for (const view of all)
    counts.set(state(views, view.order), [...(counts.get(state(views, view.order)) ?? []), view]);
  const groups = [...counts.values()].sort((a, b) => b.length - a.length);
  const reference = groups[0]?.[0] as View;
  for (const view of all) {
    if (state(views, view.order) === state(views, reference.order)) passView(ctx, views, view.exchange);
    else
      failView(
        ctx,
        views,
        view.exchange,
        `order ${id}: ${view.exchange.op.operationId} shows ${differences(views, view.order, reference.order)} (the first from it, the second from ${reference.exchange.op.operationId}), while the order did not change`,
      );
  }
}

/** The open list holds exactly the orders whose status is open (judged on orders that did not move). */
function judgeOpenList(
  ctx: RunContext,
  views: OrderViews,
  ids: unknown[],
  first: Map<string, RoundTrip>,
  second: Map<string, RoundTrip>,
  find: (exchange: RoundTrip | undefined, id: unknown) => View | undefined,
): void {
  const openId = views.open.operation;
  const [open1, open2] = [first.get(openId), second.get(openId)];
  if (!open1 || !open2) return;
  for (const exchange of [open1, open2]) {
    const wrong = (listAt(exchange.response?.json, "") ?? []).filter(
      (o) => !views.open.statuses.includes(String(statusOf(views, o))),
    );
    if (wrong.length > 0)
      failView(
        ctx,
        views,
        exchange,
        `${openId} lists order ${String(idOf(views, wrong[0]))} with status ${String(statusOf(views, wrong[0]))}; it lists only ${views.open.statuses.join(", ")}`,
      );
  }
  // The reads in the order they were made: the first round's lists, then the second's.
  const rounds = [...first.keys()];
  const at = (list: string, round: 0 | 1) => round * rounds.length + rounds.indexOf(list);
  const others = rounds.filter((id) => id !== openId);
  for (const id of ids) {
    const steadyList = others.find((list) => {
      const [a, b] = [find(first.get(list), id), find(second.get(list), id)];
      return a && b && state(views, a.order) === state(views, b.order);
    });
    if (steadyList === undefined) continue;
    const steady = [find(first.get(steadyList), id), find(second.get(steadyList), id)] as const;
    const status = String(statusOf(views, steady[0]?.order));
    const shouldList = views.open.statuses.includes(status);
    if (!shouldList && !views.final.includes(status)) continue;
    // Only an open-list read made between the two steady reads saw that state (a busy market may
    // fill the order just before the first of them).
    const bracketed = ([0, 1] as const).filter(
      (round) => at(steadyList, 0) < at(openId, round) && at(openId, round) < at(steadyList, 1),
    );
    for (const exchange of bracketed.map((round) => (round === 0 ? open1 : open2))) {
      const lists = find(exchange, id) !== undefined;
      if (lists === shouldList) passView(ctx, views, exchange);
      else
        failView(
          ctx,
          views,
          exchange,
          `${openId} ${lists ? "lists" : "does not list"} order ${String(id)}, whose status is ${status} (${steady[0]?.exchange.op.operationId}, twice)`,
        );
    }
  }
}

interface Made {
  symbol: string;
  resting: { clientOrderId: string; orderId: unknown };
  taker: { exchange: RoundTrip; orderId: unknown; executed: Dec };
  orderIds: unknown[];
}

/** A LIMIT SELL resting inside the spread, partly filled by a MARKET BUY of half its quantity. */
async function makeStates(ctx: RunContext, rules: SymbolRules): Promise<Made | undefined> {
  const newOrder = op(ctx, "new_order");
  const note = (reason: string): undefined => {
    ctx.session.recorder.note(
      CHECK,
      "new_order",
      `no partly filled order made on ${rules.symbol}: ${reason}`,
    );
    return undefined;
  };
  if (!newOrder || !ctx.trading || !ctx.session.canSign) return undefined;
  const types = rules.orderTypes;
  if (types.length > 0 && !(types.includes("LIMIT") && types.includes("MARKET")))
    return note("LIMIT or MARKET not listed");
  const prices = await bestPrices(ctx, `order views: best prices of ${rules.symbol}`, rules.symbol);
  if (!prices) return note("a side of the book is empty");
  const price = prices.bid + rules.tick;
  if (rules.tick <= ZERO || price >= prices.ask) return note("no price inside the spread");
  const half = smallestQuantity(rules, price);
  const symbol = rules.symbol;
  const sell = await placeOrder(
    ctx,
    newOrder,
    {
      symbol,
      side: "SELL",
      type: "LIMIT",
      timeInForce: "GTC",
      price: formatDec(price),
      quantity: formatDec(half * 2n),
    },
    "order views: a LIMIT SELL resting inside the spread",
  );
  if (!ok(sell.exchange)) return note(`the LIMIT SELL was refused (${describeAnswer(sell.exchange)})`);
  const buy = await placeOrder(
    ctx,
    newOrder,
    { symbol, side: "BUY", type: "MARKET", quantity: formatDec(half) },
    "order views: a MARKET BUY of half of it",
  );
  const executed = tryParseDec(buy.body?.executedQty) ?? ZERO;
  return {
    symbol,
    resting: { clientOrderId: sell.clientOrderId, orderId: sell.body?.orderId },
    taker: { exchange: buy.exchange, orderId: buy.body?.orderId, executed },
    orderIds: [sell.body?.orderId, buy.body?.orderId].filter((id) => id !== undefined),
  };
}

/** Cancels the partly filled order, compares the reports with query_order, and offsets the trades. */
async function finishStates(ctx: RunContext, views: OrderViews, made: Made): Promise<void> {
  const cancel = op(ctx, "cancel_order");
  const newOrder = op(ctx, "new_order");
  if (!cancel || !newOrder) return;
  const cancelled = await ctx.session.call(
    {
      op: cancel,
      params: encodeParams(cancel, { symbol: made.symbol, origClientOrderId: made.resting.clientOrderId }),
    },
    "order views: cancel the partly filled order",
  );
  if (ok(cancelled)) ctx.ledger.closed(made.resting.clientOrderId);
  const [single] = splitReads(ctx, views).singles;
  const resting = single ? await queryOne(ctx, views, single, made.resting.orderId, made.symbol) : undefined;
  const taker =
    single && made.taker.orderId !== undefined
      ? await queryOne(ctx, views, single, made.taker.orderId, made.symbol)
      : undefined;
  if (ok(cancelled) && resting) compareReport(ctx, views, cancelled, resting);
  if (ok(made.taker.exchange) && taker) compareReport(ctx, views, made.taker.exchange, taker);
  // The run sold what the resting order executed and bought what the taker executed.
  const sold = tryParseDec(resting?.order.executedQty) ?? made.taker.executed;
  const net = made.taker.executed - sold;
  if (net !== ZERO)
    await placeOrder(
      ctx,
      newOrder,
      {
        symbol: made.symbol,
        side: net > ZERO ? "SELL" : "BUY",
        type: "MARKET",
        quantity: formatDec(net > ZERO ? net : -net),
      },
      "order views: MARKET order offsetting the two",
    );
}

/** A report in a final status is the order's last state: query_order afterwards must equal it. */
function compareReport(ctx: RunContext, views: OrderViews, report: RoundTrip, later: View): void {
  const body = bodyObject(report);
  if (!body || !views.final.includes(String(statusOf(views, body)))) return;
  if (state(views, body) === state(views, later.order)) {
    passView(ctx, views, report);
    passView(ctx, views, later.exchange);
  } else
    failView(
      ctx,
      views,
      report,
      `order ${String(idOf(views, body))}: ${report.op.operationId} reported ${differences(views, body, later.order)} (the first from it, the second from ${later.exchange.op.operationId} afterwards); the status it reported is final`,
    );
}

/**
 * The reports of a cancel (one order, or a list such as cancel_all_orders'): each order reported in
 * a final status must read the same from query_order afterwards. The trading phase calls it with
 * the answers of its cancels.
 */
async function judgeCancelReports(ctx: RunContext, exchange: RoundTrip): Promise<void> {
  const views = relationsOf(ctx)?.orders.find((v) => v.reports.includes(exchange.op.operationId));
  if (!views || !ok(exchange) || !ctx.session.recorder.enabled(CHECK)) return;
  const [single] = splitReads(ctx, views).singles;
  if (!single) return;
  const json = exchange.response?.json;
  const reported = (Array.isArray(json) ? json : [json]).filter(
    (o): o is Record<string, unknown> => typeof o === "object" && o !== null && idOf(views, o) !== undefined,
  );
  for (const order of reported) {
    const symbol = typeof order.symbol === "string" ? order.symbol : ctx.values.symbol;
    const later = await queryOne(ctx, views, single, idOf(views, order), symbol);
    if (later)
      compareReport(ctx, views, { ...exchange, response: { ...exchange.response!, json: order } }, later);
  }
}

/**
 * The newest pages of the order lists (kit/newest-page.ts) on every symbol new_order gave the
 * account orders on during the run, at the list's largest limit and at a small one.
 */
async function judgeNewestPages(ctx: RunContext): Promise<void> {
  const relations = relationsOf(ctx);
  if (!relations || !ctx.session.canSign) return;
  const placed = ctx.ledger.acceptedIds();
  const lists = new Set(relations.orders.flatMap((views) => splitReads(ctx, views).lists));
  for (const id of lists) {
    const operation = op(ctx, id);
    const largest = operation && newestPageLimit(operation);
    if (!operation || !largest || unreachable(ctx, operation)) continue;
    const parameter = operation.behaviour.limit!.parameter;
    for (const [symbol, known] of placed)
      for (const limit of new Set([largest, Math.min(SMALL_PAGE, largest)])) {
        const label = `order views: ${id} ${symbol}, the newest ${limit}`;
        const values = { ...symbolValues(ctx, operation), symbol, [parameter]: limit };
        const exchange = await ctx.session.call(
          { op: operation, params: encodeParams(operation, values) },
          label,
        );
        const page = ok(exchange)
          ? newestPageOf(operation, symbol, limit, exchange.response?.json)
          : undefined;
        if (!page) {
          ctx.session.fail(
            CHECK,
            exchange,
            `${label}: ${ok(exchange) ? "not a list of orders" : `a valid request was refused (${describeAnswer(exchange)})`}`,
          );
          continue;
        }
        const findings = judgeNewestPage(page, known, "new_order gave the account during the run");
        if (findings.length === 0) ctx.session.pass(CHECK, exchange);
        for (const f of findings) ctx.session.fail(CHECK, exchange, `${f.subject}: ${f.message}`);
      }
  }
}

/** The order answers and reads whose items are orders. */
const ORDER_VIEWS = new Set(["new_order", "query_order", "open_orders", "all_orders", "cancel_order"]);

/** Every order view of the run: self-trade prevention's fields only where it acted (preventionFieldsProblem). */
function judgePreventionFields(ctx: RunContext): void {
  const { session } = ctx;
  if (!session.recorder.enabled(CHECK)) return;
  const found = firstOrderProblem(session.timeline, ORDER_VIEWS, preventionFieldsProblem);
  if (found?.problem) session.fail(CHECK, found.exchange, found.problem);
  else if (found) session.pass(CHECK, found.exchange);
}
