/**
 * Judging an order as an answer reports it against the model. Two kinds of problem:
 * - invariants hold whatever the market does: what was sent is echoed (side, type, price,
 *   quantities, ids), the status agrees with the executed quantity, executed quantities never
 *   shrink and a final status never changes from one read to the next, IOC and FOK never rest;
 * - predictions are the model's exact state (status, executed and quote quantities), judged only
 *   when the sequence's bracket shows the market did not move (see sequence.ts).
 */
import { type Dec, formatDec, tryParseDec, ZERO } from "../core/decimal.js";
import { FINAL_STATUSES, type ModelOrder, OPEN_STATUSES, type Side } from "../kit/matching-model.js";

type Json = Record<string, unknown>;

/** A taker of the sequence that ended EXPIRED with quantity left: an IOC, or a MARKET order. */
export interface ShortTaker {
  step: number;
  side: Side;
  /** Its limit price; undefined for a MARKET order (any price). */
  price: Dec | undefined;
}

/** The taker an order answer shows ended short, or undefined: an IOC or MARKET order EXPIRED with quantity left. */
export function shortTaker(body: Json, order: ModelOrder): ShortTaker | undefined {
  const executed = tryParseDec(body.executedQty);
  const asked = tryParseDec(body.origQty);
  const takes = order.type === "MARKET" || (order.type === "LIMIT" && order.timeInForce === "IOC");
  if (
    !takes ||
    body.status !== "EXPIRED" ||
    executed === undefined ||
    asked === undefined ||
    executed >= asked
  )
    return undefined;
  return { step: order.step, side: order.side, price: order.type === "MARKET" ? undefined : order.price };
}

/**
 * Whether `resting`, a LIMIT order of the sequence placed before `taker` and still working after
 * it, lay within the taker's reach: the other side, at its limit price or better (any price for a
 * MARKET order). A taker that expired short leaves none such: it takes every order its price
 * reaches before the rest expires (self-trade prevention ends it EXPIRED_IN_MATCH instead). Pure.
 */
export function passedOver(
  taker: ShortTaker,
  resting: Pick<ModelOrder, "step" | "side" | "type" | "price">,
): boolean {
  if (resting.step >= taker.step || resting.side === taker.side) return false;
  if (resting.type !== "LIMIT" && resting.type !== "LIMIT_MAKER") return false;
  if (taker.price === undefined || resting.price === undefined) return resting.price !== undefined;
  return taker.side === "BUY" ? resting.price <= taker.price : resting.price >= taker.price;
}

export interface Problem {
  kind: "invariant" | "prediction";
  text: string;
}

/** Which answer an order object came in: the fields each carries differ. */
export type OrderAnswer = "ACK" | "RESULT" | "FULL" | "order" | "cancel";

const hasState = (answer: OrderAnswer) => answer !== "ACK";

function decimalProblem(body: Json, field: string, want: Dec, what: string): string | undefined {
  const got = tryParseDec(body[field]);
  if (got === want) return undefined;
  return `${field} ${JSON.stringify(body[field])}, ${what} ${formatDec(want)}`;
}

/** What was sent, echoed: ids, symbol, side, type, time in force, prices and quantities. */
function echoProblems(body: Json, order: ModelOrder, symbol: string, answer: OrderAnswer): string[] {
  const out: string[] = [];
  const idField = answer === "cancel" ? "origClientOrderId" : "clientOrderId";
  if (body.symbol !== symbol) out.push(`symbol ${JSON.stringify(body.symbol)}, sent ${symbol}`);
  if (order.orderId !== undefined && body.orderId !== order.orderId)
    out.push(`orderId ${JSON.stringify(body.orderId)}, placed as ${order.orderId}`);
  if (body[idField] !== order.clientOrderId)
    out.push(`${idField} ${JSON.stringify(body[idField])}, placed as ${JSON.stringify(order.clientOrderId)}`);
  if (!hasState(answer)) return out;
  if (body.side !== order.side) out.push(`side ${JSON.stringify(body.side)}, sent ${order.side}`);
  if (body.type !== order.type) out.push(`type ${JSON.stringify(body.type)}, sent ${order.type}`);
  if (order.timeInForce !== undefined && body.timeInForce !== order.timeInForce)
    out.push(`timeInForce ${JSON.stringify(body.timeInForce)}, sent ${order.timeInForce}`);
  const sent: Array<[string, Dec | undefined]> = [
    ["price", order.price],
    ["stopPrice", order.stopPrice],
    ["icebergQty", order.icebergQty],
    ["origQuoteOrderQty", order.quoteOrderQty],
  ];
  for (const [field, want] of sent) {
    if (want === undefined || body[field] === undefined) continue;
    const problem = decimalProblem(body, field, want, "sent");
    if (problem) out.push(problem);
  }
  if (order.quoteOrderQty === undefined) {
    const problem = decimalProblem(body, "origQty", order.origQty, "sent");
    if (problem) out.push(problem);
  }
  return out;
}

/** The status must say what the quantities say (and what the spec's order states mean). */
function statusProblems(body: Json, answer: OrderAnswer): string[] {
  if (!hasState(answer)) return [];
  const executed = tryParseDec(body.executedQty);
  const orig = tryParseDec(body.origQty);
  const quote = tryParseDec(body.cummulativeQuoteQty);
  const status = String(body.status);
  if (executed === undefined || orig === undefined || quote === undefined)
    return ["executedQty, origQty and cummulativeQuoteQty must be decimal text"];
  const out: string[] = [];
  if (executed > orig) out.push(`executedQty ${formatDec(executed)} exceeds origQty ${formatDec(orig)}`);
  if ((executed === ZERO) !== (quote === ZERO))
    out.push(`executedQty ${formatDec(executed)} with cummulativeQuoteQty ${formatDec(quote)}`);
  if (status === "FILLED" && executed !== orig)
    out.push(`status FILLED with ${formatDec(executed)} of ${formatDec(orig)} executed`);
  if (status === "NEW" && executed !== ZERO) out.push(`status NEW with ${formatDec(executed)} executed`);
  if (status === "PARTIALLY_FILLED" && (executed === ZERO || executed === orig))
    out.push(`status PARTIALLY_FILLED with ${formatDec(executed)} of ${formatDec(orig)} executed`);
  if (OPEN_STATUSES.includes(status) && executed === orig && orig > ZERO)
    out.push(`status ${status} with everything executed`);
  return out;
}

/** The model's state: status, executed and quote quantities (and a quote order's quantity). */
function stateProblems(body: Json, order: ModelOrder, answer: OrderAnswer): string[] {
  if (!hasState(answer)) return [];
  const out: string[] = [];
  if (body.status !== order.status)
    out.push(`status ${JSON.stringify(body.status)}, the model expects ${order.status}`);
  const executed = decimalProblem(body, "executedQty", order.executedQty, "the model expects");
  if (executed) out.push(executed);
  const quote = decimalProblem(body, "cummulativeQuoteQty", order.cumQuote, "the model expects");
  if (quote) out.push(quote);
  if (order.quoteOrderQty !== undefined) {
    const orig = decimalProblem(body, "origQty", order.origQty, "the quote budget buys");
    if (orig) out.push(orig);
  }
  return out;
}

/** Times: an order's `time` is its new_order answer's transactTime, and updateTime is never before it. */
function timeProblems(body: Json, order: ModelOrder, answer: OrderAnswer): string[] {
  if (answer !== "order" || order.transactTime === undefined) return [];
  const out: string[] = [];
  if (typeof body.time === "number" && body.time !== order.transactTime)
    out.push(`time ${body.time}, the new_order answer's transactTime was ${order.transactTime}`);
  if (typeof body.time === "number" && typeof body.updateTime === "number" && body.updateTime < body.time)
    out.push(`updateTime ${body.updateTime} before time ${body.time}`);
  return out;
}

/** Everything wrong with an order as `answer` reports it, by kind. */
export function orderProblems(body: Json, order: ModelOrder, symbol: string, answer: OrderAnswer): Problem[] {
  return [
    ...echoProblems(body, order, symbol, answer).map((text) => ({ kind: "invariant" as const, text })),
    ...statusProblems(body, answer).map((text) => ({ kind: "invariant" as const, text })),
    ...timeProblems(body, order, answer).map((text) => ({ kind: "invariant" as const, text })),
    ...stateProblems(body, order, answer).map((text) => ({ kind: "prediction" as const, text })),
  ];
}

/** What the reads showed of each order, to hold later reads to: executed never shrinks, a final status stays. */
export class ReadHistory {
  private readonly seen = new Map<number, { executed: Dec; status: string; where: string }>();

  /** Problems of this read against the earlier ones; then remembers it. */
  problems(body: Json, where: string): string[] {
    const orderId = body.orderId;
    const executed = tryParseDec(body.executedQty);
    const status = typeof body.status === "string" ? body.status : undefined;
    if (typeof orderId !== "number" || executed === undefined || status === undefined) return [];
    const before = this.seen.get(orderId);
    const out: string[] = [];
    if (before && executed < before.executed)
      out.push(
        `order ${orderId}: executedQty ${formatDec(executed)} in ${where}, after ${formatDec(before.executed)} in ${before.where}`,
      );
    if (before && FINAL_STATUSES.includes(before.status) && status !== before.status)
      out.push(
        `order ${orderId}: status ${status} in ${where}, after the final ${before.status} in ${before.where}`,
      );
    if (!before || !FINAL_STATUSES.includes(before.status) || executed > before.executed)
      this.seen.set(orderId, { executed, status, where });
    return out;
  }

  /** The largest executed quantity a read has shown for this order. */
  executed(orderId: number): Dec | undefined {
    return this.seen.get(orderId)?.executed;
  }

  /** Whether a read has shown this order in a final status. */
  seenFinal(orderId: number): string | undefined {
    const before = this.seen.get(orderId);
    return before && FINAL_STATUSES.includes(before.status) ? before.where : undefined;
  }
}
