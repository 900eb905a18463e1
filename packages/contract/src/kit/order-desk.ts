/**
 * The orders of the trading phase, for every check that judges them (order_lifecycle, and the
 * negative, auth and default probes aimed at the operations that create or cancel orders): LIMIT
 * BUY orders far below the market, each under a client order id written to the ledger before the
 * request is sent, and the reads and cancels that follow them. It records no verdict of its own;
 * `succeeded` and `holds` record for the check that asks.
 */
import { parseDec, tryParseDec } from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams, type ParamList, type Placement } from "../http/request.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { CheckName } from "../session/verdicts.js";
import { bodyObject, describeAnswer, isRateLimited, ok } from "./answers.js";
import type { RunContext } from "./context.js";
import type { FarBuy } from "./market.js";
import { orderOperations, type TradingOps } from "./order-operations.js";
import { refusedNewOrder } from "./order-state.js";

export {
  ORDER_OPERATION_IDS,
  ORDER_OPERATIONS,
  orderOperations,
  type TradingOps,
} from "./order-operations.js";

import type { Values } from "./values.js";

export interface Placed {
  clientOrderId: string;
  orderId?: number;
  exchange: RoundTrip;
}

/** The orders the trading phase leaves resting: one per parameter placement and response variant. */
export interface Resting {
  orders: Array<{ label: string; placed: Placed }>;
  /** The answer to the order sent without the response-variant parameter, when one was sent. */
  withoutVariant?: RoundTrip;
}

/** The items of a list answer (objects only). */
export function listOf(exchange: RoundTrip): Record<string, unknown>[] {
  const json = exchange.response?.json;
  return Array.isArray(json)
    ? (json.filter((x) => typeof x === "object" && x !== null) as Record<string, unknown>[])
    : [];
}

export function sameDecimal(a: unknown, b: string): boolean {
  const parsed = tryParseDec(a);
  return parsed !== undefined && parsed === parseDec(b);
}

export class OrderDesk {
  constructor(
    readonly ctx: RunContext,
    readonly ops: TradingOps,
    readonly symbol: string,
    readonly far: FarBuy,
  ) {}

  /** The desk, or why the run cannot trade. */
  static open(ctx: RunContext): OrderDesk | { reason: string } {
    const ops = orderOperations(ctx.session.model);
    if ("reason" in ops) return ops;
    if (!ctx.trading)
      return { reason: "trading not allowed: pass --allow-trading, or use an Endpoint with status test" };
    if (!ctx.session.canSign) return { reason: "trading needs --api-key and --api-secret" };
    if (!ctx.rules) return { reason: "exchangeInfo lists no symbol to trade" };
    if ("reason" in ctx.farBuy) return { reason: ctx.farBuy.reason };
    return new OrderDesk(ctx, ops, ctx.rules.symbol, ctx.farBuy);
  }

  get session() {
    return this.ctx.session;
  }

  orderValues(clientOrderId: string, extra: Values = {}): Values {
    return {
      symbol: this.symbol,
      side: "BUY",
      type: "LIMIT",
      timeInForce: "GTC",
      quantity: this.far.quantity,
      price: this.far.price,
      newClientOrderId: clientOrderId,
      ...extra,
    };
  }

  /** new_order's parameters under a fresh client order id, written to the ledger. */
  freshOrderParams(extra: Values = {}): ParamList {
    const clientOrderId = this.ctx.ledger.nextClientOrderId();
    this.ctx.ledger.sent(this.symbol, clientOrderId);
    return encodeParams(this.ops.newOrder, this.orderValues(clientOrderId, extra));
  }

  /** Registers an order the server created, from its answer. */
  private adopt(exchange: RoundTrip): void {
    const body = bodyObject(exchange);
    if (!body || !ok(exchange)) return;
    const clientOrderId = typeof body.clientOrderId === "string" ? body.clientOrderId : undefined;
    const orderId = typeof body.orderId === "number" ? body.orderId : undefined;
    const symbol = typeof body.symbol === "string" ? body.symbol : this.symbol;
    if (clientOrderId) this.ctx.ledger.adopt(symbol, clientOrderId, orderId);
  }

  /**
   * Settles the ledger entry of an order-creating request from its answer: accepted → open
   * (under the id the answer gives), refused with 4xx → never created. Without an answer, or
   * with a 5xx, the order may exist, so the entry stays for the clean-up to check.
   */
  settle = (exchange: RoundTrip): void => {
    const sent = exchange.plan.params.find(([n]) => n === "newClientOrderId")?.[1];
    if (ok(exchange)) {
      this.adopt(exchange);
      if (sent !== undefined && sent !== bodyObject(exchange)?.clientOrderId) this.ctx.ledger.closed(sent);
    } else if (sent !== undefined && refusedNewOrder(exchange)) {
      this.ctx.ledger.closed(sent);
    }
  };

  /** Closes in the ledger every order of ours a cancel answer lists. */
  closeListed = (exchange: RoundTrip): void => {
    for (const o of listOf(exchange))
      if (typeof o.clientOrderId === "string") this.ctx.ledger.closed(o.clientOrderId);
    for (const o of listOf(exchange))
      if (typeof o.origClientOrderId === "string") this.ctx.ledger.closed(o.origClientOrderId);
  };

  isOpen(placed: Placed): boolean {
    return this.ctx.ledger.get(placed.clientOrderId)?.state === "open";
  }

  /** The step must succeed for `check`; a refusal fails it (or skips it when rate limited). */
  succeeded(check: CheckName, exchange: RoundTrip, what: string): boolean {
    if (ok(exchange)) return true;
    if (isRateLimited(exchange)) {
      this.session.recorder.skip(check, exchange.op.operationId, `rate limited during ${what}`);
      return false;
    }
    this.session.fail(check, exchange, `${what} failed: ${describeAnswer(exchange)}`);
    return false;
  }

  /** Records `holds` for `check`: a pass, or a failure saying `message`. */
  holds(check: CheckName, exchange: RoundTrip, holds: boolean, message: string): boolean {
    if (holds) this.session.pass(check, exchange);
    else this.session.fail(check, exchange, message);
    return holds;
  }

  async place(label: string, extra: Values = {}, placement?: Placement): Promise<Placed> {
    const clientOrderId = this.ctx.ledger.nextClientOrderId();
    this.ctx.ledger.sent(this.symbol, clientOrderId);
    const params = encodeParams(this.ops.newOrder, this.orderValues(clientOrderId, extra));
    const exchange = await this.session.call(
      { op: this.ops.newOrder, params, ...(placement ? { placement } : {}) },
      label,
    );
    const body = bodyObject(exchange);
    const orderId = ok(exchange) && typeof body?.orderId === "number" ? body.orderId : undefined;
    if (ok(exchange)) this.ctx.ledger.opened(clientOrderId, orderId);
    else if (refusedNewOrder(exchange)) this.ctx.ledger.closed(clientOrderId);
    return { clientOrderId, exchange, ...(orderId !== undefined ? { orderId } : {}) };
  }

  async cancel(
    placed: Placed,
    label: string,
    by: "orderId" | "origClientOrderId" = "orderId",
  ): Promise<RoundTrip> {
    const values: Values = { symbol: this.symbol };
    if (by === "orderId" && placed.orderId !== undefined) values.orderId = placed.orderId;
    else values.origClientOrderId = placed.clientOrderId;
    const exchange = await this.session.call(
      { op: this.ops.cancelOrder, params: encodeParams(this.ops.cancelOrder, values) },
      label,
    );
    if (ok(exchange)) this.ctx.ledger.closed(placed.clientOrderId);
    return exchange;
  }

  async query(values: Values, label: string): Promise<RoundTrip> {
    return this.session.call(
      {
        op: this.ops.queryOrder,
        params: encodeParams(this.ops.queryOrder, { symbol: this.symbol, ...values }),
      },
      label,
    );
  }

  async openList(label: string, withSymbol = true): Promise<RoundTrip> {
    return this.session.call(
      {
        op: this.ops.openOrders,
        params: encodeParams(this.ops.openOrders, withSymbol ? { symbol: this.symbol } : {}),
      },
      label,
    );
  }

  /** Parameters naming the desk's symbol, for an operation that takes only that. */
  symbolParams(operation: ContractOperation): ParamList {
    return encodeParams(operation, { symbol: this.symbol });
  }

  async allOrders(values: Values, label: string): Promise<RoundTrip> {
    return this.session.call(
      {
        op: this.ops.allOrders,
        params: encodeParams(this.ops.allOrders, { symbol: this.symbol, ...values }),
      },
      label,
    );
  }

  /** Open orders on the symbol (or every symbol) that this run did not create. */
  async foreignOrders(withSymbol: boolean): Promise<number | undefined> {
    const exchange = await this.openList(
      `safety: open orders not created by this run${withSymbol ? "" : " (all symbols)"}`,
      withSymbol,
    );
    if (!ok(exchange)) return undefined;
    return listOf(exchange).filter((o) => !this.ctx.ledger.owns(o.clientOrderId)).length;
  }

  /**
   * Why cancel_all_orders may not be sent on the symbol (it would cancel orders this run did not
   * create, or that cannot be known), or undefined when it may.
   */
  async cancelAllForbidden(): Promise<string | undefined> {
    const foreign = await this.foreignOrders(true);
    if (foreign === 0) return undefined;
    return foreign === undefined
      ? "could not list open orders, so cancel_all_orders might cancel orders this run did not create"
      : `the account has ${foreign} open order(s) on ${this.symbol} not created by this run; cancel_all_orders would cancel them`;
  }

  /**
   * Orders left resting in each parameter placement new_order accepts (query, form body, split)
   * and each response variant (ACK, FULL, and none: the declared default).
   */
  async placeResting(): Promise<Resting> {
    const resting: Resting = { orders: [] };
    const cases: Array<{ label: string; extra: Values; placement: Placement }> = [
      {
        label: "new_order: parameters in the form body, ACK",
        extra: { newOrderRespType: "ACK" },
        placement: "body",
      },
      {
        label: "new_order: parameters split between query and body, FULL",
        extra: { newOrderRespType: "FULL" },
        placement: "split",
      },
      { label: "new_order: no newOrderRespType (declared default)", extra: {}, placement: "query" },
    ];
    for (const c of cases) {
      if (!this.ops.newOrder.acceptsFormBody && c.placement !== "query") continue;
      const placed = await this.place(c.label, c.extra, c.placement);
      resting.orders.push({ label: c.label, placed });
      if (c.extra.newOrderRespType === undefined) resting.withoutVariant = placed.exchange;
    }
    return resting;
  }

  /** cancel_all_orders on the desk's symbol; the orders it lists are closed in the ledger. */
  async cancelAll(label: string): Promise<RoundTrip | undefined> {
    const cancelAll = this.ops.cancelAll;
    if (!cancelAll) return undefined;
    const exchange = await this.session.call({ op: cancelAll, params: this.symbolParams(cancelAll) }, label);
    if (ok(exchange)) this.closeListed(exchange);
    return exchange;
  }

  /** An order kept open while the read-only pass of the user_data operations runs. */
  async restingOrder(): Promise<Placed | undefined> {
    const placed = await this.place("setup: an open order for the user_data operations", {
      newOrderRespType: "ACK",
    });
    return placed.orderId !== undefined ? placed : undefined;
  }

  async cancelResting(placed: Placed): Promise<void> {
    if (!this.isOpen(placed)) return;
    await this.cancel(placed, "clean-up: cancel the open order of the user_data pass");
  }
}
