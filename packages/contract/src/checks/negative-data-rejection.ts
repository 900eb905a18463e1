/**
 * negative_data_rejection: a request that breaks the spec (a value outside its schema, a
 * missing required parameter, an `x-mutually-exclusive` pair, an `x-order-type-rules` violation,
 * an `x-parameter-conditions` condition not met, a decimal off its `x-wire-pattern`, a parameter
 * given twice) must be refused with a 4xx. The cases come from values.ts. The pass over each
 * operation sends them; the trading phase sends the ones aimed at new_order, cancel_order and
 * cancel_all_orders, built on the order desk's orders.
 *
 * A parameter given twice (x-refusals duplicate-parameter) is sent on every read with an x-limit
 * parameter (its limit twice) and on new_order (its quantity twice, in the query and in a form
 * body): once with two different values, once with the same value twice. A server that takes
 * either value answers a request the client could not have meant. The repeat is always within one
 * part: a name once in the query and once in the body is x-parameter-placement's case (the
 * query's value wins; wire_variants judges it), not a repeat.
 */

import { formatDec, parseDec } from "../core/decimal.js";
import type { ContractOperation, SchemaNode } from "../core/operations.js";
import { encodeParams, type ParamList, type Placement } from "../http/request.js";
import { bodyObject, ok } from "../kit/answers.js";
import { cannotCall, enabled, expectRefusal, type RunContext, targetValues } from "../kit/context.js";
import type { OrderDesk, Placed } from "../kit/order-desk.js";
import { negativeExpectation, refusalOf } from "../kit/refusal-codes.js";
import { negativeCases, type TextCase } from "../kit/values.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "negative_data_rejection";

export const negativeDataRejection: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "negative",
  description:
    "schema-invalid input (missing, wrong type, out of range, unknown enum, excluded pairs) gets 4xx + Error",
  // Each refusal with the code x-refusals names for the rule the case breaks.
  covers: [
    "x-mutually-exclusive",
    "x-order-type-rules",
    "x-parameter-conditions",
    "x-wire-pattern",
    "x-refusals",
  ],
  hooks: [
    { phase: "operation", run: negativePass },
    {
      phase: "trading",
      run: {
        newOrder: negativeOrderProbes,
        cancel: (desk, _target, spare) => negativeCancelProbes(desk, spare),
        cancelAll: negativeCancelAllProbes,
      },
    },
  ],
  seenToCatch: [
    "symbol-and-symbols-accepted",
    "out-of-range-limit-clamped",
    "missing-parameter-generic-code",
    "unknown-side-generic-code",
    "iceberg-not-gtc-accepted",
    "decimal-exponent-notation-accepted",
    "repeated-parameter-first-value-taken",
  ],
};

async function negativePass(ctx: RunContext, operation: ContractOperation): Promise<void> {
  if (!enabled(ctx, CHECK)) return;
  const lacking = cannotCall(ctx, operation);
  if (lacking) {
    ctx.session.recorder.skip(CHECK, operation.operationId, lacking);
    return;
  }
  const cases = negativeCases(operation, encodeParams(operation, targetValues(operation, ctx)));
  if (cases.length === 0) {
    ctx.session.recorder.skip(CHECK, operation.operationId, "no parameters to violate");
    return;
  }
  for (const c of cases) {
    if (truncatedBySpec(ctx, operation, c) || tolerated(ctx, operation, c)) continue;
    const exchange = await ctx.session.call({ op: operation, params: c.params }, c.label);
    expectRefusal(ctx, CHECK, exchange, negativeExpectation(ctx, operation.operationId, c));
  }
  await limitRepeated(ctx, operation);
}

/** A parameter given twice in one part of a request, as a negative case. */
export interface RepeatCase {
  label: string;
  what: string;
  params: ParamList;
}

/**
 * The repeats of `name` in `params` (a valid request that sends it once): another valid value
 * (`other`) right after it, then the same value again. Where the request puts the pair is the
 * caller's (`where`: "the query", "the form body"); both stay in that one part. Pure.
 */
export function repeatCases(params: ParamList, name: string, other: string, where: string): RepeatCase[] {
  const at = params.findIndex(([n]) => n === name);
  if (at < 0) return [];
  const value = params[at]![1];
  const repeated = (second: string): ParamList => [
    ...params.slice(0, at + 1),
    [name, second],
    ...params.slice(at + 1),
  ];
  const rule = "x-refusals duplicate-parameter";
  return [
    {
      label: `negative: ${name} twice in ${where} (${value}, then ${other})`,
      what: `a request with ${name} given twice in ${where}, ${value} then ${other} (${rule})`,
      params: repeated(other),
    },
    {
      label: `negative: ${name} twice in ${where} (${value} both times)`,
      what: `a request with ${name} given twice in ${where}, ${value} both times (${rule})`,
      params: repeated(value),
    },
  ];
}

/**
 * Two different values a parameter's schema allows: the first two of its enum, or its smallest
 * integer and the next (1 where no minimum is stated); undefined where it allows no two. Pure.
 */
export function twoValidValues(schema: SchemaNode): [string, string] | undefined {
  if (schema.enum) {
    const [first, second] = schema.enum;
    return first !== undefined && second !== undefined ? [String(first), String(second)] : undefined;
  }
  if (schema.type !== "integer") return undefined;
  const low = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : (schema.minimum ?? 1);
  const high = schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : schema.maximum;
  return high === undefined || low + 1 <= high ? [String(low), String(low + 1)] : undefined;
}

/** A read with an x-limit parameter, its limit given twice in the query: refused as x-refusals says. */
async function limitRepeated(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const name = operation.behaviour.limit?.parameter;
  const param = operation.parameters.find((p) => p.name === name && p.in === "query");
  const values = param && twoValidValues(param.resolvedSchema);
  if (!param || !values) return;
  const params = encodeParams(operation, { ...targetValues(operation, ctx), [param.name]: values[0] });
  const refusal = refusalOf(ctx, "duplicate-parameter", operation.operationId);
  for (const c of repeatCases(params, param.name, values[1], "the query")) {
    const exchange = await ctx.session.call({ op: operation, params: c.params }, c.label);
    expectRefusal(ctx, CHECK, exchange, { what: c.what, ...refusal });
  }
}

/** new_order's negative cases, each under a fresh client order id (one accepted by mistake rests). */
async function negativeOrderProbes(desk: OrderDesk): Promise<void> {
  const { ctx } = desk;
  const { newOrder } = desk.ops;
  if (!enabled(ctx, CHECK)) return;
  const base = encodeParams(newOrder, desk.orderValues(BASE_ID));

  for (const c of negativeCases(newOrder, base)) {
    if (tolerated(ctx, newOrder, c)) continue;
    const params = withFreshId(desk, c.params);
    const exchange = await ctx.session.call({ op: newOrder, params }, c.label);
    expectRefusal(ctx, CHECK, exchange, negativeExpectation(ctx, exchange.op.operationId, c));
    desk.settle(exchange);
  }
  await quantityRepeated(desk);
}

/**
 * new_order with its quantity given twice (the far order's, then twice it; then the same twice),
 * in the query and, where the operation takes a form body, in the body. Each under a fresh client
 * order id of the ledger; one taken by mistake is cancelled at once.
 */
async function quantityRepeated(desk: OrderDesk): Promise<void> {
  const { ctx } = desk;
  const { newOrder } = desk.ops;
  const placements: Array<[Placement, string]> = [["query", "the query"]];
  if (newOrder.acceptsFormBody) placements.push(["body", "the form body"]);
  const refusal = refusalOf(ctx, "duplicate-parameter", newOrder.operationId);
  const double = formatDec(parseDec(desk.far.quantity) * 2n);
  const base = encodeParams(newOrder, desk.orderValues(BASE_ID));
  for (const [placement, where] of placements) {
    for (const c of repeatCases(base, "quantity", double, where)) {
      const params = withFreshId(desk, c.params);
      const exchange = await ctx.session.call({ op: newOrder, params, placement }, c.label);
      expectRefusal(ctx, CHECK, exchange, { what: c.what, ...refusal });
      desk.settle(exchange);
      await cancelTaken(desk, exchange);
    }
  }
}

/** The client order id of the negative cases' base order, replaced by a fresh one in each. */
const BASE_ID = "mct-negative-base";

/**
 * A case's parameters with the base order's client id replaced by a fresh one, written to the
 * ledger before it is sent (one accepted by mistake rests, and the clean-up sees it); a case that
 * changed the id itself keeps its own.
 */
function withFreshId(desk: OrderDesk, params: ParamList): ParamList {
  return params.map(([n, v]): [string, string] => {
    if (n !== "newClientOrderId" || v !== BASE_ID) return [n, v];
    const fresh = desk.ctx.ledger.nextClientOrderId();
    desk.ctx.ledger.sent(desk.symbol, fresh);
    return [n, fresh];
  });
}

/** Cancels at once an order a negative case placed by mistake (settled in the ledger already). */
async function cancelTaken(desk: OrderDesk, exchange: RoundTrip): Promise<void> {
  const clientOrderId = bodyObject(exchange)?.clientOrderId;
  if (!ok(exchange) || typeof clientOrderId !== "string") return;
  await desk.cancel(
    { clientOrderId, exchange },
    "negative: cancel the order taken by mistake",
    "origClientOrderId",
  );
}

/** cancel_order's negative cases, built on an open order (one accepted by mistake cancels it). */
async function negativeCancelProbes(desk: OrderDesk, spare: Placed | undefined): Promise<void> {
  const { ctx } = desk;
  const { cancelOrder } = desk.ops;
  if (!enabled(ctx, CHECK)) return;
  if (spare?.orderId === undefined) {
    ctx.session.recorder.skip(CHECK, cancelOrder.operationId, "no open order to aim the probes at");
    return;
  }
  const spareId = spare.orderId;
  const base = encodeParams(cancelOrder, { symbol: desk.symbol, orderId: spareId });
  for (const c of negativeCases(cancelOrder, base)) {
    if (tolerated(ctx, cancelOrder, c)) continue;
    const exchange = await ctx.session.call({ op: cancelOrder, params: c.params }, c.label);
    const accepted = expectRefusal(
      ctx,
      CHECK,
      exchange,
      negativeExpectation(ctx, exchange.op.operationId, c),
    );
    if (accepted && bodyObject(exchange)?.orderId === spareId) ctx.ledger.closed(spare.clientOrderId);
  }
}

/**
 * cancel_all_orders' negative cases on the desk's symbol; the case without a symbol only when
 * the account has no open order elsewhere that it could cancel.
 */
async function negativeCancelAllProbes(desk: OrderDesk): Promise<void> {
  const { ctx } = desk;
  const cancelAll = desk.ops.cancelAll;
  if (!cancelAll || !enabled(ctx, CHECK)) return;
  const elsewhere = await desk.foreignOrders(false);
  const base = desk.symbolParams(cancelAll);
  for (const c of negativeCases(cancelAll, base)) {
    if (tolerated(ctx, cancelAll, c)) continue;
    const dropsSymbol = !c.params.some(([n]) => n === "symbol");
    if (dropsSymbol && elsewhere !== 0) {
      ctx.session.recorder.note(
        CHECK,
        cancelAll.operationId,
        "the 'symbol missing' case was not sent: the account has open orders elsewhere that it could cancel",
      );
      continue;
    }
    const exchange: RoundTrip = await ctx.session.call({ op: cancelAll, params: c.params }, c.label);
    if (expectRefusal(ctx, CHECK, exchange, negativeExpectation(ctx, exchange.op.operationId, c)))
      desk.closeListed(exchange);
  }
}

/** Whether the target accepts a negative case on purpose (see RunContext.tolerates); notes it if so. */
export function tolerated(ctx: RunContext, operation: ContractOperation, c: TextCase): boolean {
  if (c.parameter === undefined || c.text === undefined || !ctx.tolerates) return false;
  const reason = ctx.tolerates(operation.operationId, c.parameter, c.text);
  if (reason === undefined) return false;
  ctx.session.recorder.note(CHECK, operation.operationId, `${c.label}: not sent; ${reason}`);
  return true;
}

/**
 * Whether a negative case is a limit above the maximum that x-limit says is truncated, not
 * refused: it is then not negative data (limit_semantics checks the truncation); noted, not sent.
 */
export function truncatedBySpec(ctx: RunContext, operation: ContractOperation, c: TextCase): boolean {
  const rule = operation.behaviour.limit;
  if (rule?.aboveMaximum !== "truncate" || c.parameter !== rule.parameter) return false;
  if (c.text === undefined || !/^[0-9]+$/.test(c.text) || Number(c.text) <= rule.maximum) return false;
  ctx.session.recorder.note(
    CHECK,
    operation.operationId,
    `${c.label}: not sent; x-limit says a ${rule.parameter} above ${rule.maximum} is truncated (limit_semantics checks it)`,
  );
  return true;
}
