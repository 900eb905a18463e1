/**
 * account_isolation: an account sees, cancels and counts only its own orders.
 *
 * With a second account (--second-api-key; the embedded server has one): the run's order rests,
 * and the second account does not find it (query_order by orderId and by client id: the
 * unknown-order refusal), cannot cancel it (the unknown-order refusal, and the order still rests),
 * and does not list it (open_orders with and without symbol, all_orders); the other way round the
 * same for an order of the second account; the second account's order counter
 * (X-MBX-ORDER-COUNT-*) counts its own orders, not the run's; and a client id is the account's own
 * (unique "among the account's open orders"): the second account's order under the id of the run's
 * open order is taken, and cancelling it by that id leaves the run's order resting, as does the
 * second account's cancel_all_orders on its symbol. Where the target serves the account view of
 * the sandbox document, each account reads its own: the second account's `uid`, read just after the
 * run's, is not the run's.
 *
 * Without one, what the account's own history shows: an orderId the exchange issued (below the
 * run's own) that the account's all_orders does not hold is not the account's, so query_order
 * refuses it as unknown; on a sandbox (where a faulty server could only cancel a sandbox order)
 * cancel_order refuses it too.
 */

import { type Credentials, encodeParams } from "../http/request.js";
import { VIEWS, viewOperation } from "../kit/account-views.js";
import { bodyObject, describeAnswer, isRateLimited, ok } from "../kit/answers.js";
import { op, type RunContext, restingPlans, whyNoTrading } from "../kit/context.js";
import type { FarBuy } from "../kit/market.js";
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
  queryOwn,
} from "../kit/own-orders.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "account_isolation";
const PURPOSE = "account isolation";
/** The operations it sends: every order operation. */
const OPERATIONS = ORDER_OPERATION_IDS;

export const accountIsolation: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "accounts",
  description:
    "an account sees, cancels and counts only its own orders: another account's are unknown to it (and an orderId absent from its all_orders is unknown)",
  covers: ["x-unknown-reference"],
  hooks: [{ phase: "trading-behaviour", run: accountIsolationCheck }],
  appliesTo: (operation) => OPERATIONS.includes(operation.operationId),
  notApplicable: "reads no order",
  seenToCatch: [
    "other-account-orders-listed",
    "other-account-order-queryable",
    "other-account-order-queryable-on-ethusdt",
    "order-count-per-address",
    "client-id-unique-across-accounts",
    "cancel-all-by-symbol-not-account",
    "account-view-kept-without-the-key",
  ],
};

/**
 * What an answer to a read or cancel of `order` made as an account that does not own it shows
 * wrongly: the order itself (it must be the unknown-order refusal). Pure.
 */
export function foreignLookupProblem(
  what: string,
  clientOrderId: string,
  answer: { status: number; body: Record<string, unknown> | undefined },
  isUnknownRefusal: boolean,
): string | undefined {
  if (answer.status >= 200 && answer.status < 300) {
    const body = answer.body ?? {};
    return body.clientOrderId === clientOrderId || body.origClientOrderId === clientOrderId
      ? `${what} answered the other account's order ${clientOrderId}`
      : `${what} answered an order for an id the account does not own`;
  }
  return isUnknownRefusal ? undefined : `${what}: not the unknown-order refusal the spec names`;
}

/** The order counters of an answer, by header name (X-MBX-ORDER-COUNT-10S → 10S). */
export function orderCounts(headers: Record<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [name, value] of Object.entries(headers)) {
    const match = /^x-mbx-order-count-(\w+)$/i.exec(name);
    if (match && /^\d+$/.test(value.trim())) counts.set(match[1]!.toUpperCase(), Number(value));
  }
  return counts;
}

async function accountIsolationCheck(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK)) return;
  const skip = (reason: string) => {
    for (const id of OPERATIONS) ctx.session.recorder.skip(CHECK, id, reason);
  };
  const noTrading = whyNoTrading(ctx);
  if (noTrading) return skip(noTrading);
  const plans = restingPlans(ctx);
  if (plans.length === 0) return skip("no symbol to rest an order on");
  // Every symbol the run trades: an account's orders are its own on each.
  for (const plan of plans) {
    const far = plan.farBuy;
    ctx.progress({
      type: "stage",
      message: ctx.second
        ? `${PURPOSE}: an order of each account on ${far.symbol}, looked up, cancelled and listed through the other (cancelled afterwards)`
        : `${PURPOSE}: ids absent from the account's all_orders on ${far.symbol} looked up (no second account: --second-api-key)`,
    });
    if (ctx.second) await betweenAccounts(ctx, far, ctx.second);
    else await ownHistory(ctx, far);
  }
}

function judge(ctx: RunContext, exchange: RoundTrip | undefined, problem: string | undefined): void {
  if (!exchange?.response || isRateLimited(exchange)) return;
  if (problem) ctx.session.fail(CHECK, exchange, `${problem} (${describeAnswer(exchange)})`);
  else ctx.session.pass(CHECK, exchange);
}

async function betweenAccounts(ctx: RunContext, far: FarBuy, second: Credentials): Promise<void> {
  const orders: OwnOrder[] = [];
  try {
    const mine = await placeFar(ctx, far, `${PURPOSE}: a far order of the run's account`);
    if (!ok(mine.placed.exchange)) return;
    orders.push(mine);
    const counterBefore = orderCounts(mine.placed.exchange.response!.headers);
    const theirs = await placeFar(ctx, far, `${PURPOSE}: a far order of the second account`, {}, second);
    if (!ok(theirs.placed.exchange)) {
      ctx.session.recorder.note(
        CHECK,
        "new_order",
        `the second account could not place an order (${describeAnswer(theirs.placed.exchange)}); only the run's order was looked up through it`,
      );
    } else {
      orders.push(theirs);
      judgeCounters(ctx, theirs.placed.exchange, counterBefore, ctx.ledger.placedAs(second));
    }
    await throughOther(ctx, mine, second, "the second account");
    if (orders.includes(theirs)) await throughOther(ctx, theirs, undefined, "the run's account");
    if (ctx.ledger.get(mine.clientOrderId)?.state === "open")
      await sameClientId(ctx, far, mine, second, orders);
    if (ctx.ledger.get(mine.clientOrderId)?.state === "open") await cancelAllAsOther(ctx, mine, second);
    await accountsApart(ctx, second);
  } finally {
    for (const order of orders) await cancelIfOpen(ctx, order, `${PURPOSE}: cancel`);
  }
}

/**
 * The second account places an order under the client id of the run's open order `mine`: ids are
 * unique among one account's open orders, so it is taken (a refusal while a fresh id is taken is
 * the finding), and cancelling it by that id, as the second account, cancels that order and
 * leaves the run's resting. Orders placed are added to `orders` (cancelled by the caller).
 */
async function sameClientId(
  ctx: RunContext,
  far: FarBuy,
  mine: OwnOrder,
  second: Credentials,
  orders: OwnOrder[],
): Promise<void> {
  const id = mine.clientOrderId;
  const label = `${PURPOSE}: the second account's order under the client id of the run's open order`;
  const theirs = await placeFar(ctx, far, label, { newClientOrderId: id }, second);
  if (!ok(theirs.placed.exchange)) {
    const fresh = await placeFar(
      ctx,
      far,
      `${PURPOSE}: the second account's order under a fresh id`,
      {},
      second,
    );
    if (!ok(fresh.placed.exchange)) return;
    orders.push(fresh);
    return judge(
      ctx,
      theirs.placed.exchange,
      `the second account's order under ${id}, the client id of the run's open order, was refused while one under a fresh id was taken: a client id is unique among one account's open orders (new_order's newClientOrderId), not across accounts`,
    );
  }
  orders.push(theirs);
  const cancelled = await cancelOwn(
    ctx,
    { ...theirs, orderId: undefined },
    `${PURPOSE}: cancel_order by the shared client id as the second account`,
    { as: second },
  );
  if (cancelled)
    judge(
      ctx,
      cancelled,
      sharedIdCancelProblem(id, theirs.orderId, {
        accepted: ok(cancelled),
        orderId: bodyObject(cancelled)?.orderId,
      }),
    );
  await stillRests(ctx, mine, `the second account cancelled its own order ${id}, the client id of the run's`);
}

/**
 * The second account's cancel_all_orders on the symbol of the run's open order `mine` cancels its
 * own orders only: the run's order rests after it, and the answer does not list it. Sent only when
 * every open order of the second account there is the run's: it would cancel the user's own.
 */
async function cancelAllAsOther(ctx: RunContext, mine: OwnOrder, second: Credentials): Promise<void> {
  const cancelAll = op(ctx, ORDER_OPERATIONS.cancelAll);
  if (!cancelAll) return;
  const listed = await openOrders(
    ctx,
    mine.symbol,
    `${PURPOSE}: open_orders of the second account before its cancel_all_orders`,
    second,
  );
  if (!listed || !ok(listed)) return;
  const foreign = itemsOf(listed).filter((o) => !ctx.ledger.owns(o.clientOrderId, second));
  if (foreign.length > 0)
    return ctx.session.recorder.note(
      CHECK,
      ORDER_OPERATIONS.cancelAll,
      `the second account's cancel_all_orders not sent: it has ${foreign.length} open order(s) on ${mine.symbol} this run did not place`,
    );
  const exchange = await ctx.session.call(
    { op: cancelAll, params: encodeParams(cancelAll, { symbol: mine.symbol }), as: second },
    `${PURPOSE}: cancel_all_orders as the second account, on the symbol of the run's open order`,
  );
  const cancelled = itemsOf(exchange);
  for (const o of cancelled)
    if (typeof o.origClientOrderId === "string") ctx.ledger.closed(o.origClientOrderId, second);
  if (ok(exchange))
    judge(
      ctx,
      exchange,
      cancelled.some((o) => o.orderId === mine.orderId)
        ? `cancel_all_orders as the second account lists the run's order ${mine.orderId} among those it cancelled`
        : undefined,
    );
  await stillRests(ctx, mine, "the second account cancelled all its orders on the symbol");
}

/** `order` still rests for its owner after `what` (an action of another account). */
async function stillRests(ctx: RunContext, order: OwnOrder, what: string): Promise<void> {
  const owner = order.placed.exchange.plan.as;
  const still = await queryOwn(
    ctx,
    order,
    `${PURPOSE}: query_order by its owner`,
    owner ? { as: owner } : {},
  );
  if (still && ok(still))
    judge(
      ctx,
      still,
      bodyObject(still)?.status === "NEW"
        ? undefined
        : `after ${what}, the order ${order.clientOrderId} is ${String(bodyObject(still)?.status)}; another account's action must leave it resting`,
    );
}

/**
 * What the second account's cancel by the client id `id` it shares with the run's open order shows
 * wrongly: it must cancel its own order `theirs`. Pure.
 */
export function sharedIdCancelProblem(
  id: string,
  theirs: number | undefined,
  answer: { accepted: boolean; orderId: unknown },
): string | undefined {
  if (!answer.accepted)
    return `cancel_order by origClientOrderId ${id} as the second account did not cancel its own open order`;
  const orderId = answer.orderId;
  return theirs === undefined || orderId === theirs
    ? undefined
    : `cancel_order by origClientOrderId ${id} as the second account cancelled orderId ${String(orderId)}, not its own ${theirs}`;
}

/**
 * The second account's first order of the run (`placed`: its orders placed so far, this one
 * included; later ones, after the orders of other steps, are not judged here): its counters count
 * its own orders. When the run's account had placed n orders in the same window (`mine`, its
 * counters just before), a shared counter would read n + 1.
 */
function judgeCounters(ctx: RunContext, theirs: RoundTrip, mine: Map<string, number>, placed: number): void {
  if (placed !== 1) return;
  for (const [interval, count] of orderCounts(theirs.response!.headers)) {
    const own = mine.get(interval);
    if (own === undefined || own < 2) continue;
    judge(
      ctx,
      theirs,
      count > own
        ? `the second account's order counter ${interval} reads ${count} after its first order, above the run's account's ${own}: it counts the other account's orders`
        : undefined,
    );
  }
}

/** `order` looked up, cancelled and listed by the account that does not own it (`as`; undefined: the run's own). */
async function throughOther(
  ctx: RunContext,
  order: OwnOrder,
  as: Credentials | undefined,
  who: string,
): Promise<void> {
  const options = as ? { as } : {};
  const lookup = (exchange: RoundTrip | undefined, what: string) =>
    exchange &&
    judge(
      ctx,
      exchange,
      foreignLookupProblem(
        `${what} as ${who}`,
        order.clientOrderId,
        { status: exchange.response?.status ?? 0, body: bodyObject(exchange) },
        unknownOrderRefusal(exchange.op, exchange),
      ),
    );
  lookup(
    await queryOwn(ctx, order, `${PURPOSE}: query_order of another account's order`, options),
    "query_order by orderId",
  );
  lookup(
    await queryOwn(
      ctx,
      { ...order, orderId: undefined },
      `${PURPOSE}: query_order of another account's order by client id`,
      options,
    ),
    "query_order by origClientOrderId",
  );
  lookup(
    await cancelOwn(ctx, order, `${PURPOSE}: cancel_order of another account's order`, options),
    "cancel_order",
  );
  for (const symbol of [order.symbol, undefined]) {
    const list = await openOrders(ctx, symbol, `${PURPOSE}: open_orders of ${who}`, as);
    if (list && ok(list))
      judge(
        ctx,
        list,
        itemsOf(list).some((o) => o.clientOrderId === order.clientOrderId)
          ? `open_orders${symbol ? "" : " without symbol"} as ${who} lists the other account's order ${order.clientOrderId}`
          : undefined,
      );
  }
  const all = await allOrders(ctx, order.symbol, `${PURPOSE}: all_orders of ${who}`, {}, as);
  if (all && ok(all))
    judge(
      ctx,
      all,
      itemsOf(all).some((o) => o.clientOrderId === order.clientOrderId)
        ? `all_orders as ${who} lists the other account's order ${order.clientOrderId}`
        : undefined,
    );
  await stillRests(ctx, order, `${who} tried to cancel it`);
}

/** Without a second account: ids below the run's own that its all_orders does not hold are unknown to it. */
async function ownHistory(ctx: RunContext, far: FarBuy): Promise<void> {
  const mine = await placeFar(ctx, far, `${PURPOSE}: a far order of the run's account`);
  try {
    if (!ok(mine.placed.exchange) || mine.orderId === undefined) return;
    let probed = 0;
    for (let id = mine.orderId - 1; id > 0 && id >= mine.orderId - 20 && probed < 2; id -= 1) {
      const listed = await allOrders(ctx, far.symbol, `${PURPOSE}: all_orders from orderId ${id}`, {
        orderId: id,
        limit: 1,
      });
      if (!listed || !ok(listed)) return;
      if (itemsOf(listed)[0]?.orderId === id) continue; // the account's own order
      probed += 1;
      const other: OwnOrder = { ...mine, orderId: id, clientOrderId: `not-the-run's-${id}` };
      const query = await queryOwn(ctx, other, `${PURPOSE}: query_order of an id absent from all_orders`);
      if (query)
        judge(
          ctx,
          query,
          foreignLookupProblem(
            `query_order of orderId ${id}, which all_orders does not hold`,
            other.clientOrderId,
            { status: query.response?.status ?? 0, body: bodyObject(query) },
            unknownOrderRefusal(query.op, query),
          ),
        );
      if (!ctx.movePrices) continue;
      const cancel = await cancelOwn(ctx, other, `${PURPOSE}: cancel_order of an id absent from all_orders`);
      if (cancel)
        judge(
          ctx,
          cancel,
          foreignLookupProblem(
            `cancel_order of orderId ${id}, which all_orders does not hold`,
            other.clientOrderId,
            { status: cancel.response?.status ?? 0, body: bodyObject(cancel) },
            unknownOrderRefusal(cancel.op, cancel),
          ),
        );
    }
    if (probed === 0)
      ctx.session.recorder.note(CHECK, "query_order", "every id below the run's order was the account's own");
  } finally {
    await cancelIfOpen(ctx, mine, `${PURPOSE}: cancel`);
  }
}

/**
 * The account view (the sandbox document's account_information), where served, read by the run's
 * account and at once by the second: each is its own account, so the two `uid`s differ (a view
 * kept without the API key in its key shows the first reader's account to the second).
 */
async function accountsApart(ctx: RunContext, second: Credentials): Promise<void> {
  const view = viewOperation(VIEWS.account);
  if (!view) return;
  const read = (as: Credentials | undefined, whose: string) =>
    ctx.session.call(
      { op: view, params: encodeParams(view, {}), ...(as ? { as } : {}) },
      `${PURPOSE}: the account view, as ${whose}`,
      { responseChecks: false },
    );
  const mine = await read(undefined, "the run's account");
  const theirs = await read(second, "the second account");
  const [a, b] = [bodyObject(mine)?.uid, bodyObject(theirs)?.uid];
  if (!ok(mine) || !ok(theirs) || typeof a !== "number" || typeof b !== "number") return;
  // Shown on open_orders: the report's rows are the API's operations, and the view is not one.
  const listed = op(ctx, ORDER_OPERATIONS.openOrders);
  const shown = listed ? { ...theirs, op: listed } : theirs;
  if (a === b)
    ctx.session.fail(
      CHECK,
      shown,
      `the second account's account view, read just after the run's, shows the run's uid ${a}: each account reads its own`,
    );
  else ctx.session.pass(CHECK, shown);
}
