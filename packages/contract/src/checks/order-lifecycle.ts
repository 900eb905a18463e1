/**
 * The stateful part: order_lifecycle (new_order → query_order → open_orders contains it →
 * cancel_order → query_order shows CANCELED → gone from open_orders → all_orders contains it →
 * a second cancel is refused), the response variants of new_order and its parameter placements,
 * and the negative and auth probes of the operations that create or cancel orders.
 *
 * Safety: only LIMIT BUY orders far below the market are placed, each under a client order id
 * written to the ledger before the request is sent; cancel_all_orders runs only when the account
 * has no open order on the symbol that this run did not create.
 */
import { validateResponse } from "@marketapi/validators";
import { parseDec, tryParseDec } from "../decimal.js";
import { encodeParams, type ParamList, type Placement } from "../http/request.js";
import type { FarBuy } from "../market.js";
import type { ContractOperation } from "../operations.js";
import type { RoundTrip } from "../round-trip.js";
import { refusedNewOrder } from "../run/order-state.js";
import { negativeCases, type Values } from "../values.js";
import { authProbes } from "./auth-enforcement.js";
import type { ContractCheck } from "./check.js";
import {
  bodyObject,
  describeAnswer,
  enabled,
  expectRefusal,
  isRateLimited,
  ok,
  op,
  type RunContext,
  tolerated,
} from "./context.js";

export const orderLifecycle: ContractCheck = {
  name: "order_lifecycle",
  // new_order is sent with its parameters in the query, in a form body, and split between them.
  covers: ["x-parameter-placement"],
};

export const LIFECYCLE_OPERATIONS = [
  "new_order",
  "query_order",
  "open_orders",
  "cancel_order",
  "all_orders",
  "cancel_all_orders",
] as const;

interface Placed {
  clientOrderId: string;
  orderId?: number;
  exchange: RoundTrip;
}

interface TradingOps {
  newOrder: ContractOperation;
  queryOrder: ContractOperation;
  openOrders: ContractOperation;
  cancelOrder: ContractOperation;
  allOrders: ContractOperation;
  cancelAll: ContractOperation | undefined;
}

function list(exchange: RoundTrip): Record<string, unknown>[] {
  const json = exchange.response?.json;
  return Array.isArray(json)
    ? (json.filter((x) => typeof x === "object" && x !== null) as Record<string, unknown>[])
    : [];
}

function sameDecimal(a: unknown, b: string): boolean {
  const parsed = tryParseDec(a);
  return parsed !== undefined && parsed === parseDec(b);
}

export class TradingSection {
  private readonly ops: TradingOps;
  private readonly symbol: string;
  private readonly far: FarBuy;

  constructor(
    private readonly ctx: RunContext,
    ops: TradingOps,
    symbol: string,
    far: FarBuy,
  ) {
    this.ops = ops;
    this.symbol = symbol;
    this.far = far;
  }

  static create(ctx: RunContext): TradingSection | { reason: string } {
    const get = (id: string) => op(ctx, id);
    const [newOrder, queryOrder, openOrders, cancelOrder, allOrders] = [
      get("new_order"),
      get("query_order"),
      get("open_orders"),
      get("cancel_order"),
      get("all_orders"),
    ];
    if (!newOrder || !queryOrder || !openOrders || !cancelOrder || !allOrders) {
      return {
        reason: "the spec lacks one of new_order, query_order, open_orders, cancel_order, all_orders",
      };
    }
    if (!ctx.trading)
      return { reason: "trading not allowed: pass --allow-trading, or use an Endpoint with status test" };
    if (!ctx.session.canSign) return { reason: "trading needs --api-key and --api-secret" };
    if (!ctx.rules) return { reason: "exchangeInfo lists no symbol to trade" };
    if ("reason" in ctx.farBuy) return { reason: ctx.farBuy.reason };
    return new TradingSection(
      ctx,
      { newOrder, queryOrder, openOrders, cancelOrder, allOrders, cancelAll: get("cancel_all_orders") },
      ctx.rules.symbol,
      ctx.farBuy,
    );
  }

  private get session() {
    return this.ctx.session;
  }

  private orderValues(clientOrderId: string, extra: Values = {}): Values {
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

  private freshOrderParams(extra: Values = {}): ParamList {
    const clientOrderId = this.ctx.ledger.nextClientOrderId();
    this.ctx.ledger.sent(this.symbol, clientOrderId);
    return encodeParams(this.ops.newOrder, this.orderValues(clientOrderId, extra));
  }

  /** Registers an order the server created, from its answer. */
  private adopt = (exchange: RoundTrip): void => {
    const body = bodyObject(exchange);
    if (!body || !ok(exchange)) return;
    const clientOrderId = typeof body.clientOrderId === "string" ? body.clientOrderId : undefined;
    const orderId = typeof body.orderId === "number" ? body.orderId : undefined;
    const symbol = typeof body.symbol === "string" ? body.symbol : this.symbol;
    if (clientOrderId) this.ctx.ledger.adopt(symbol, clientOrderId, orderId);
  };

  /**
   * Settles the ledger entry of an order-creating request from its answer: accepted → open
   * (under the id the answer gives), refused with 4xx → never created. Without an answer, or
   * with a 5xx, the order may exist, so the entry stays for the clean-up to check.
   */
  private settle = (exchange: RoundTrip): void => {
    const sent = exchange.plan.params.find(([n]) => n === "newClientOrderId")?.[1];
    if (ok(exchange)) {
      this.adopt(exchange);
      if (sent !== undefined && sent !== bodyObject(exchange)?.clientOrderId) this.ctx.ledger.closed(sent);
    } else if (sent !== undefined && refusedNewOrder(exchange)) {
      this.ctx.ledger.closed(sent);
    }
  };

  private pass(exchange: RoundTrip): void {
    this.session.pass("order_lifecycle", exchange);
  }

  private fail(exchange: RoundTrip, message: string): void {
    this.session.fail("order_lifecycle", exchange, message);
  }

  /** The step must succeed; a refusal is a lifecycle failure (or a skip when rate limited). */
  private succeeded(exchange: RoundTrip, what: string): boolean {
    if (ok(exchange)) return true;
    if (isRateLimited(exchange)) {
      this.session.recorder.skip("order_lifecycle", exchange.op.operationId, `rate limited during ${what}`);
      return false;
    }
    this.fail(exchange, `${what} failed: ${describeAnswer(exchange)}`);
    return false;
  }

  private check(exchange: RoundTrip, holds: boolean, message: string): boolean {
    if (holds) this.pass(exchange);
    else this.fail(exchange, message);
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

  private async cancel(
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

  private async query(values: Values, label: string): Promise<RoundTrip> {
    return this.session.call(
      {
        op: this.ops.queryOrder,
        params: encodeParams(this.ops.queryOrder, { symbol: this.symbol, ...values }),
      },
      label,
    );
  }

  private async openList(label: string, withSymbol = true): Promise<RoundTrip> {
    return this.session.call(
      {
        op: this.ops.openOrders,
        params: encodeParams(this.ops.openOrders, withSymbol ? { symbol: this.symbol } : {}),
      },
      label,
    );
  }

  /** The lifecycle of one order. Returns false when the first order could not be placed. */
  async lifecycle(): Promise<boolean> {
    const { allOrders } = this.ops;
    const placed = await this.place("lifecycle: new_order (LIMIT BUY far below the market, RESULT)", {
      newOrderRespType: "RESULT",
    });
    const created = placed.exchange;
    if (!ok(created)) {
      const reason = `new_order refused the far-from-market LIMIT order (${describeAnswer(created)})`;
      if (created.response && created.response.status >= 500) this.fail(created, reason);
      for (const id of LIFECYCLE_OPERATIONS) this.session.recorder.skip("order_lifecycle", id, reason);
      return false;
    }
    const body = bodyObject(created) ?? {};
    this.check(
      created,
      placed.orderId !== undefined && body.clientOrderId === placed.clientOrderId && body.status === "NEW",
      `new_order answered ${JSON.stringify({ orderId: body.orderId, clientOrderId: body.clientOrderId, status: body.status })}; expected an orderId, clientOrderId ${placed.clientOrderId} and status NEW (the order is far from the market)`,
    );
    if (placed.orderId === undefined) return true;
    const orderId = placed.orderId;

    const q1 = await this.query({ orderId }, "lifecycle: query_order by orderId");
    if (this.succeeded(q1, "query_order of the new order")) {
      const o = bodyObject(q1) ?? {};
      const mismatches = [
        o.orderId !== orderId && `orderId ${o.orderId}`,
        o.symbol !== this.symbol && `symbol ${o.symbol}`,
        o.status !== "NEW" && `status ${o.status} (expected NEW)`,
        o.side !== "BUY" && `side ${o.side}`,
        o.type !== "LIMIT" && `type ${o.type}`,
        !sameDecimal(o.price, this.far.price) && `price ${o.price} (sent ${this.far.price})`,
        !sameDecimal(o.origQty, this.far.quantity) && `origQty ${o.origQty} (sent ${this.far.quantity})`,
      ].filter(Boolean);
      this.check(q1, mismatches.length === 0, `query_order shows ${mismatches.join(", ")}`);
    }
    const q2 = await this.query(
      { origClientOrderId: placed.clientOrderId },
      "lifecycle: query_order by origClientOrderId",
    );
    if (this.succeeded(q2, "query_order by origClientOrderId")) {
      this.check(
        q2,
        bodyObject(q2)?.orderId === orderId,
        `query_order by origClientOrderId found orderId ${bodyObject(q2)?.orderId}, not ${orderId}`,
      );
    }
    const open1 = await this.openList("lifecycle: open_orders contains the order");
    if (this.succeeded(open1, "open_orders")) {
      this.check(
        open1,
        list(open1).some((o) => o.orderId === orderId),
        `open_orders(${this.symbol}) does not list the new order ${orderId}`,
      );
    }
    const openAll = await this.openList("lifecycle: open_orders without symbol contains the order", false);
    if (this.succeeded(openAll, "open_orders without symbol")) {
      this.check(
        openAll,
        list(openAll).some((o) => o.orderId === orderId),
        `open_orders (all symbols) does not list the new order ${orderId}`,
      );
    }

    const cancelled = await this.cancel(placed, "lifecycle: cancel_order by orderId");
    if (this.succeeded(cancelled, "cancel_order of the open order")) {
      const c = bodyObject(cancelled) ?? {};
      this.check(
        cancelled,
        c.orderId === orderId && c.status === "CANCELED" && c.origClientOrderId === placed.clientOrderId,
        `cancel_order answered ${JSON.stringify({ orderId: c.orderId, status: c.status, origClientOrderId: c.origClientOrderId })}; expected orderId ${orderId}, status CANCELED, origClientOrderId ${placed.clientOrderId}`,
      );
    }
    const q3 = await this.query({ orderId }, "lifecycle: query_order after cancel");
    if (this.succeeded(q3, "query_order after cancel")) {
      this.check(
        q3,
        bodyObject(q3)?.status === "CANCELED",
        `query_order after cancel_order shows status ${bodyObject(q3)?.status}, expected CANCELED`,
      );
    }
    const open2 = await this.openList("lifecycle: open_orders no longer contains the order");
    if (this.succeeded(open2, "open_orders after cancel")) {
      this.check(
        open2,
        !list(open2).some((o) => o.orderId === orderId),
        `open_orders still lists order ${orderId} after it was cancelled`,
      );
    }
    const all = await this.session.call(
      { op: allOrders, params: encodeParams(allOrders, { symbol: this.symbol, orderId }) },
      "lifecycle: all_orders contains the cancelled order",
    );
    if (this.succeeded(all, "all_orders")) {
      const found = list(all).find((o) => o.orderId === orderId);
      this.check(
        all,
        found !== undefined && found.status === "CANCELED",
        found
          ? `all_orders shows order ${orderId} with status ${found.status}, expected CANCELED`
          : `all_orders does not list order ${orderId}`,
      );
    }
    const again = await this.cancel(placed, "lifecycle: cancelling the cancelled order again");
    if (isRateLimited(again))
      this.session.recorder.skip("order_lifecycle", this.ops.cancelOrder.operationId, "rate limited");
    else {
      const status = again.response?.status ?? 0;
      this.check(
        again,
        status >= 400 && status < 500,
        `cancelling an already cancelled order got ${describeAnswer(again)}; expected a 4xx refusal`,
      );
    }
    return true;
  }

  /** new_order's response variants and parameter placements; returns the orders left open. */
  async variants(): Promise<Placed[]> {
    const { newOrder } = this.ops;
    const open: Placed[] = [];
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
      if (!newOrder.acceptsFormBody && c.placement !== "query") continue;
      const placed = await this.place(c.label, c.extra, c.placement);
      if (this.succeeded(placed.exchange, c.label)) {
        this.check(placed.exchange, placed.orderId !== undefined, `${c.label}: the answer has no orderId`);
        if (placed.orderId !== undefined) open.push(placed);
      }
      if (
        c.extra.newOrderRespType === undefined &&
        newOrder.responseVariants?.default &&
        enabled(this.ctx, "defaults_honoured")
      ) {
        this.defaultVariant(placed.exchange, newOrder.responseVariants.default);
      }
    }
    return open;
  }

  private defaultVariant(exchange: RoundTrip, variant: string): void {
    if (!ok(exchange)) {
      this.session.recorder.skip(
        "defaults_honoured",
        exchange.op.operationId,
        `the order without newOrderRespType was refused (${describeAnswer(exchange)})`,
      );
      return;
    }
    const result = validateResponse(
      exchange.op.operationId,
      exchange.response!.status,
      exchange.response!.json,
      {
        variant,
      },
    );
    if (result.valid) this.session.pass("defaults_honoured", exchange);
    else {
      const first = result.errors[0]!;
      this.session.fail(
        "defaults_honoured",
        exchange,
        `without ${exchange.op.responseVariants?.parameter} the answer is not the declared default ${variant}: ${first.message}`,
        `${first.path || "/"} [${first.rule}]`,
      );
    }
  }

  async newOrderProbes(): Promise<void> {
    const { newOrder } = this.ops;
    if (enabled(this.ctx, "negative_data_rejection")) {
      const baseId = "mct-negative-base";
      const base = encodeParams(newOrder, this.orderValues(baseId));
      for (const c of negativeCases(newOrder, base)) {
        if (tolerated(this.ctx, newOrder, c)) continue;
        const params = c.params.map(([n, v]): [string, string] => {
          if (n !== "newClientOrderId" || v !== baseId) return [n, v];
          const fresh = this.ctx.ledger.nextClientOrderId();
          this.ctx.ledger.sent(this.symbol, fresh);
          return [n, fresh];
        });
        const exchange = await this.session.call({ op: newOrder, params }, c.label);
        expectRefusal(this.ctx, "negative_data_rejection", exchange, {
          what: c.label.replace(/^negative: /, ""),
        });
        this.settle(exchange);
      }
    }
    await authProbes(this.ctx, newOrder, {
      params: () => this.freshOrderParams(),
      control: "none",
      onAnswer: this.settle,
    });
  }

  /** cancel_order's auth and negative probes on an open order, then its cancel by origClientOrderId. */
  async cancelOrderProbes(target: Placed | undefined, spare: Placed | undefined): Promise<void> {
    const { cancelOrder } = this.ops;
    if (target?.orderId === undefined) {
      this.session.recorder.skip(
        "auth_enforcement",
        cancelOrder.operationId,
        "no open order to aim the probes at",
      );
      this.session.recorder.skip(
        "negative_data_rejection",
        cancelOrder.operationId,
        "no open order to aim the probes at",
      );
      return;
    }
    const targetId = target.orderId;
    const closeTarget = (exchange: RoundTrip) => {
      if (bodyObject(exchange)?.orderId === targetId) this.ctx.ledger.closed(target.clientOrderId);
    };
    await authProbes(this.ctx, cancelOrder, {
      params: () => encodeParams(cancelOrder, { symbol: this.symbol, orderId: targetId }),
      control: "none",
      onAccepted: closeTarget,
    });
    if (enabled(this.ctx, "negative_data_rejection") && spare?.orderId !== undefined) {
      const spareId = spare.orderId;
      const base = encodeParams(cancelOrder, { symbol: this.symbol, orderId: spareId });
      for (const c of negativeCases(cancelOrder, base)) {
        if (tolerated(this.ctx, cancelOrder, c)) continue;
        const exchange = await this.session.call({ op: cancelOrder, params: c.params }, c.label);
        const accepted = expectRefusal(this.ctx, "negative_data_rejection", exchange, {
          what: c.label.replace(/^negative: /, ""),
        });
        if (accepted && bodyObject(exchange)?.orderId === spareId)
          this.ctx.ledger.closed(spare.clientOrderId);
      }
    }
    if (this.ctx.ledger.get(target.clientOrderId)?.state === "open") {
      const exchange = await this.cancel(
        target,
        "lifecycle: cancel_order by origClientOrderId",
        "origClientOrderId",
      );
      if (this.succeeded(exchange, "cancel_order by origClientOrderId")) {
        const c = bodyObject(exchange) ?? {};
        this.check(
          exchange,
          c.orderId === targetId && c.status === "CANCELED",
          `cancel_order by origClientOrderId answered orderId ${c.orderId}, status ${c.status}`,
        );
      }
    }
  }

  /** Open orders on the symbol (or every symbol) that this run did not create. */
  private async foreignOrders(withSymbol: boolean): Promise<number | undefined> {
    const exchange = await this.openList(
      `safety: open orders not created by this run${withSymbol ? "" : " (all symbols)"}`,
      withSymbol,
    );
    if (!ok(exchange)) return undefined;
    return list(exchange).filter((o) => !this.ctx.ledger.owns(o.clientOrderId)).length;
  }

  /** cancel_all_orders, only when the account has no open order on the symbol that this run did not create. */
  async cancelAll(remaining: Placed[]): Promise<void> {
    const cancelAll = this.ops.cancelAll;
    const openOnes = () => remaining.filter((p) => this.ctx.ledger.get(p.clientOrderId)?.state === "open");
    if (!cancelAll) return;
    const recorder = this.session.recorder;
    const foreign = await this.foreignOrders(true);
    if (foreign === undefined || foreign > 0) {
      const reason =
        foreign === undefined
          ? "could not list open orders, so cancel_all_orders might cancel orders this run did not create"
          : `the account has ${foreign} open order(s) on ${this.symbol} not created by this run; cancel_all_orders would cancel them`;
      for (const check of ["auth_enforcement", "negative_data_rejection", "order_lifecycle"] as const)
        recorder.skip(check, cancelAll.operationId, reason);
      for (const p of openOnes()) await this.cancel(p, "clean-up: cancel_order");
      return;
    }
    const closeOurs = (exchange: RoundTrip) => {
      for (const o of list(exchange))
        if (typeof o.clientOrderId === "string") this.ctx.ledger.closed(o.clientOrderId);
      for (const o of list(exchange))
        if (typeof o.origClientOrderId === "string") this.ctx.ledger.closed(o.origClientOrderId);
    };
    await authProbes(this.ctx, cancelAll, {
      params: () => encodeParams(cancelAll, { symbol: this.symbol }),
      control: "none",
      onAccepted: closeOurs,
    });
    if (enabled(this.ctx, "negative_data_rejection")) {
      const elsewhere = await this.foreignOrders(false);
      const base = encodeParams(cancelAll, { symbol: this.symbol });
      for (const c of negativeCases(cancelAll, base)) {
        if (tolerated(this.ctx, cancelAll, c)) continue;
        const dropsSymbol = !c.params.some(([n]) => n === "symbol");
        if (dropsSymbol && elsewhere !== 0) {
          recorder.note(
            "negative_data_rejection",
            cancelAll.operationId,
            "the 'symbol missing' case was not sent: the account has open orders elsewhere that it could cancel",
          );
          continue;
        }
        const exchange = await this.session.call({ op: cancelAll, params: c.params }, c.label);
        if (
          expectRefusal(this.ctx, "negative_data_rejection", exchange, {
            what: c.label.replace(/^negative: /, ""),
          })
        )
          closeOurs(exchange);
      }
    }
    const expected = openOnes();
    if (expected.length === 0) {
      recorder.skip("order_lifecycle", cancelAll.operationId, "no open order left to cancel");
      return;
    }
    const exchange = await this.session.call(
      { op: cancelAll, params: encodeParams(cancelAll, { symbol: this.symbol }) },
      "lifecycle: cancel_all_orders",
    );
    if (this.succeeded(exchange, "cancel_all_orders")) {
      closeOurs(exchange);
      const reports = list(exchange);
      const missing = expected.filter(
        (p) => !reports.some((r) => r.orderId === p.orderId && r.status === "CANCELED"),
      );
      this.check(
        exchange,
        missing.length === 0,
        `cancel_all_orders did not report ${missing.map((p) => p.orderId).join(", ")} as CANCELED`,
      );
      const after = await this.openList("lifecycle: open_orders after cancel_all_orders");
      if (this.succeeded(after, "open_orders after cancel_all_orders")) {
        const left = list(after).filter((o) => expected.some((p) => p.orderId === o.orderId));
        this.check(
          after,
          left.length === 0,
          `open_orders still lists ${left.map((o) => o.orderId).join(", ")} after cancel_all_orders`,
        );
      }
    }
  }

  /** An order kept open while the read-only pass of the user_data operations runs. */
  async restingOrder(): Promise<Placed | undefined> {
    const placed = await this.place("setup: an open order for the user_data operations", {
      newOrderRespType: "ACK",
    });
    return placed.orderId !== undefined ? placed : undefined;
  }

  async cancelResting(placed: Placed): Promise<void> {
    if (this.ctx.ledger.get(placed.clientOrderId)?.state !== "open") return;
    await this.cancel(placed, "clean-up: cancel the open order of the user_data pass");
  }
}
