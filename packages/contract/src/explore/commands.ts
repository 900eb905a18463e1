/**
 * The steps a sequence is made of, as fast-check model-based commands: place an order (every
 * listed type resting far from the market, limit orders resting inside the spread or taking what
 * crosses them in sizes that fill in part, market orders by quantity or by quote budget; every
 * response variant and parameter placement; fresh, server-made and reused client order ids),
 * cancel one order (by orderId, by client id, by both, or by two ids that disagree), cancel all,
 * and query one order. Each command's `check` says whether it applies to the model's state and
 * fits the budget; `run` sends it, judges the answer against the model, then reads everything.
 */
import fc from "fast-check";
import { ceilToStep, type Dec, parseDec } from "../core/decimal.js";
import type { Placement } from "../http/request.js";
import { bodyObject, ok } from "../kit/answers.js";
import { insidePrice, quoteBudget, unitAt } from "../kit/market-view.js";
import {
  type ModelOrder,
  makersOf,
  OPEN_STATUSES,
  type PlannedFill,
  type Side,
} from "../kit/matching-model.js";
import { recordSent } from "../kit/order-placing.js";
import { farShape, limitShape, marketShape, type OrderShape } from "../kit/order-shapes.js";
import type { Values } from "../kit/values.js";
import { clientIdFor } from "./client-ids.js";
import { EXPLORATION_PURPOSE, isStopType, type SequenceRun } from "./sequence.js";

type Command = fc.AsyncCommand<SequenceRun, SequenceRun>;

/** Requests a step costs at most: the write, a query per order it touches (say three), two lists. */
const STEP_COST = 6;

export type IdChoice =
  | { mode: "fresh"; length: number; pick: number }
  | { mode: "server" }
  | { mode: "reuse"; pick: number };

export interface PlaceChoice {
  /**
   * far: any listed type, resting far from the market; rest: a limit resting inside the spread;
   * take: a limit against one of the sequence's own resting orders (sizes that fill in part);
   * limit: a limit at any of those prices; market: by quantity or quote budget.
   */
  intent: "far" | "rest" | "take" | "limit" | "market";
  side: Side;
  typePick: number;
  tifPick: number;
  pricePick: number;
  units: number;
  byQuote: boolean;
  iceberg: boolean;
  /** newOrderRespType's value, or undefined to leave it out (the declared default). */
  variant: string | undefined;
  placement: Placement;
  id: IdChoice;
}

interface Refusal {
  what: string;
  code: number | undefined;
}

interface ResolvedPlace {
  shape: OrderShape;
  fills: PlannedFill[];
  refusal: Refusal | undefined;
  /** The order whose client id is reused, if any. */
  reused: ModelOrder | undefined;
}

const opposite = (side: Side): Side => (side === "BUY" ? "SELL" : "BUY");

/** The prices a limit order of `side` may take: own orders it would take, the book's best, inside the spread. */
function limitPrices(run: SequenceRun, side: Side): Dec[] {
  const { model, env } = run;
  const prices: Dec[] = [];
  const push = (price: Dec | undefined) => {
    if (price !== undefined && !prices.includes(price)) prices.push(price);
  };
  // Own orders the price would take come first, twice: partial fills need them often.
  for (const o of model.restingOn(opposite(side))) push(o.price);
  const own = [...prices];
  const bid = model.remainingForeign("BUY")[0]?.price;
  const ask = model.remainingForeign("SELL")[0]?.price;
  push(side === "BUY" ? ask : bid);
  if (bid !== undefined && ask !== undefined)
    for (const ticks of [1, 2, 3]) push(insidePrice(env.view, side, bid, ask, ticks));
  return [...own, ...prices];
}

/** The smallest quantity every filter accepts at any price the sequence trades at. */
function unit(run: SequenceRun): Dec | undefined {
  const bid = run.model.foreignBids[0]?.price;
  return bid === undefined ? undefined : unitAt(run.env.view, bid);
}

function shapeOf(run: SequenceRun, c: PlaceChoice): OrderShape | undefined {
  const { env } = run;
  const rules = env.orderTypeRules;
  if (c.intent === "far") {
    const types = env.view.types.filter((t) => t !== "MARKET");
    if (types.length === 0) return undefined;
    const type = types[c.typePick % types.length]!;
    const iceberg = c.iceberg && env.view.icebergAllowed && type === "LIMIT";
    return farShape(env.view, rules, type, c.side, c.units, iceberg);
  }
  const size = unit(run);
  if (size === undefined) return undefined;
  if (c.intent === "market") {
    const best =
      run.model.remainingForeign(opposite(c.side))[0]?.price ??
      run.model.restingOn(opposite(c.side))[0]?.price;
    if (best === undefined) return undefined;
    const amount = c.byQuote
      ? { quote: quoteBudget(env.view, c.units, best) }
      : { quantity: size * BigInt(c.units) };
    return marketShape(env.view, rules, c.side, amount);
  }
  const tif = ["GTC", "IOC", "GTC", "IOC", "FOK", "MAKER"][c.tifPick % 6]!;
  // A taker of the sequence's own orders is an IOC more often: its partial fill then expires.
  const takerTif = ["IOC", "GTC", "IOC", "FOK", "IOC", "GTC", "MAKER"][c.tifPick % 7]!;
  const quantity = size * BigInt(c.units);
  const limit = (side: Side, price: Dec, timeInForce: string) =>
    timeInForce === "MAKER"
      ? limitShape(env.view, rules, "LIMIT_MAKER", "GTC", side, price, quantity)
      : limitShape(env.view, rules, "LIMIT", timeInForce, side, price, quantity);
  if (c.intent === "take") {
    const bid = run.model.remainingForeign("BUY")[0]?.price;
    const ask = run.model.remainingForeign("SELL")[0]?.price;
    const inside = (o: ModelOrder) =>
      (bid === undefined || o.price! > bid) && (ask === undefined || o.price! < ask);
    const resting = [...run.model.restingOn("BUY"), ...run.model.restingOn("SELL")].filter(inside);
    if (resting.length === 0) return undefined;
    const maker = resting[c.pricePick % resting.length]!;
    // Half, all, one and a half or twice what the maker has left: partial fills on either side.
    const left = maker.origQty - maker.executedQty;
    const wanted = ceilToStep((left * BigInt(c.units)) / 2n, env.view.step);
    const qty = wanted > size ? wanted : size;
    return takerTif === "MAKER"
      ? limitShape(env.view, rules, "LIMIT_MAKER", "GTC", opposite(maker.side), maker.price!, qty)
      : limitShape(env.view, rules, "LIMIT", takerTif, opposite(maker.side), maker.price!, qty);
  }
  if (c.intent === "rest") {
    const bid = run.model.remainingForeign("BUY")[0]?.price;
    const ask = run.model.remainingForeign("SELL")[0]?.price;
    const price =
      bid !== undefined && ask !== undefined
        ? insidePrice(env.view, c.side, bid, ask, 1 + (c.pricePick % 3))
        : undefined;
    return price === undefined ? undefined : limit(c.side, price, c.tifPick % 2 === 0 ? "GTC" : "MAKER");
  }
  const prices = limitPrices(run, c.side);
  if (prices.length === 0) return undefined;
  return limit(c.side, prices[c.pricePick % prices.length]!, tif);
}

/** What placing `c` does to the model's state, or undefined when it does not apply now. */
export function resolvePlace(run: SequenceRun, c: PlaceChoice): ResolvedPlace | undefined {
  const shape = shapeOf(run, c);
  if (!shape) return undefined;
  const { model, env } = run;
  const reasons: Refusal[] = [];
  let fills: PlannedFill[] = [];
  if (shape.taker) {
    const plan = model.plan(shape.taker);
    if (plan.exhausts) return undefined;
    fills = plan.fills;
    if (!env.view.selfTradeAllowed && fills.some((f) => f.maker)) return undefined;
    if (c.intent === "far" && fills.length > 0) return undefined;
    if (c.intent === "market" && fills.length === 0) return undefined;
    if (shape.makerOnly && fills.length > 0)
      reasons.push({ what: `a ${shape.label} that would take`, code: env.codes.wouldTake });
    const qty = fills.reduce((s, f) => s + f.qty, 0n);
    if (shape.allOrNothing && shape.taker.maxQty !== undefined && qty < shape.taker.maxQty) fills = [];
  }
  if (shape.untriggeredStop && env.view.maxAlgoOrders !== undefined) {
    const stops = model.open().filter((o) => isStopType(o.type)).length + run.foreignStops;
    if (stops >= env.view.maxAlgoOrders)
      reasons.push({
        what: `a stop order beyond MAX_NUM_ALGO_ORDERS ${env.view.maxAlgoOrders}`,
        code: env.codes.filterFailure,
      });
  }
  if (env.view.maxOrders !== undefined && model.open().length + run.foreignOpen.size >= env.view.maxOrders)
    reasons.push({
      what: `an order beyond MAX_NUM_ORDERS ${env.view.maxOrders}`,
      code: env.codes.filterFailure,
    });
  let reused: ModelOrder | undefined;
  if (c.id.mode === "reuse") {
    // Every other reuse aims at an open order (a collision), the rest at any order placed so far.
    const placed = model.orders.filter((o) => o.orderId !== undefined);
    const open = placed.filter((o) => OPEN_STATUSES.includes(o.status));
    const pool = c.id.pick % 2 === 0 && open.length > 0 ? open : placed;
    if (pool.length === 0) return undefined;
    reused = pool[Math.floor(c.id.pick / 2) % pool.length]!;
    const clientOrderId = reused.clientOrderId;
    if (model.open().some((o) => o.clientOrderId === clientOrderId))
      reasons.push({
        what: `an order reusing the client order id of open order ${reused.orderId}`,
        code: env.codes.duplicateClientOrderId,
      });
  }
  // Two reasons at once: the spec does not say which refusal wins.
  if (reasons.length > 1) return undefined;
  return { shape, fills: reasons.length > 0 ? [] : fills, refusal: reasons[0], reused };
}

function describeChoice(c: PlaceChoice, shape: OrderShape): string {
  const id =
    c.id.mode === "server"
      ? "no client id"
      : c.id.mode === "reuse"
        ? "a reused client id"
        : `a ${c.id.length}-character client id`;
  return `${shape.label}, ${c.variant ?? "no newOrderRespType"}, ${c.placement}, ${id}`;
}

export class PlaceCommand implements Command {
  constructor(readonly choice: PlaceChoice) {}

  check(run: SequenceRun): boolean {
    return (
      run.skipped === undefined && run.canAfford(STEP_COST) && resolvePlace(run, this.choice) !== undefined
    );
  }

  async run(_model: SequenceRun, run: SequenceRun): Promise<void> {
    const resolved = resolvePlace(run, this.choice)!;
    const { shape, refusal, reused } = resolved;
    run.begin(`new_order: ${describeChoice(this.choice, shape)}`);
    const { env } = run;
    const id = this.clientId(run, reused);
    const values: Values = { symbol: run.symbol, ...shape.values };
    if (this.choice.variant !== undefined) values.newOrderRespType = this.choice.variant;
    if (id !== undefined) values.newClientOrderId = id;
    const duplicate = refusal !== undefined && reused !== undefined;
    if (id !== undefined && !duplicate) recordSent(env.ctx, run.symbol, id, EXPLORATION_PURPOSE);
    const exchange = await run.call(env.ops.newOrder, values, shape.label, this.choice.placement);
    if (refusal) {
      const accepted = run.refused(exchange, refusal.what, refusal.code, "prediction");
      if (accepted) this.adoptUnexpected(run, exchange, id, resolved);
      else if (id !== undefined && !duplicate) env.ctx.ledger.closed(id);
      await run.observe([]);
      return;
    }
    if (!run.served(exchange, `a valid ${shape.label}`, "prediction")) {
      if (id !== undefined && (exchange.response?.status ?? 500) < 500) env.ctx.ledger.closed(id);
      await run.observe([]);
      return;
    }
    const order = this.accept(run, exchange, id, resolved);
    run.judgeNewOrder(exchange, order, resolved.fills);
    await run.observe([order, ...makersOf(resolved.fills)]);
  }

  private clientId(run: SequenceRun, reused: ModelOrder | undefined): string | undefined {
    const c = this.choice.id;
    if (c.mode === "server") return undefined;
    if (c.mode === "reuse") return reused!.clientOrderId;
    const space = run.env.ids;
    const stem = run.env.nextStem();
    return space ? clientIdFor(space, stem, c.length, c.pick) : stem;
  }

  private accept(
    run: SequenceRun,
    exchange: Parameters<SequenceRun["judge"]>[0],
    id: string | undefined,
    r: ResolvedPlace,
  ): ModelOrder {
    const body = bodyObject(exchange) ?? {};
    const v = r.shape.values;
    const dec = (name: string) => (typeof v[name] === "string" ? parseDec(v[name] as string) : undefined);
    const orderId = typeof body.orderId === "number" ? body.orderId : undefined;
    const clientOrderId = id ?? (typeof body.clientOrderId === "string" ? body.clientOrderId : "");
    const order = run.model.accept(
      {
        step: run.step,
        clientOrderId,
        orderId,
        side: r.shape.side,
        type: r.shape.type,
        timeInForce: typeof v.timeInForce === "string" ? v.timeInForce : undefined,
        price: dec("price"),
        stopPrice: dec("stopPrice"),
        icebergQty: dec("icebergQty"),
        origQty: dec("quantity") ?? 0n,
        quoteOrderQty: dec("quoteOrderQty"),
      },
      r.fills,
      r.shape.restsIfLeft,
      r.shape.untriggeredStop,
    );
    const ledger = run.env.ctx.ledger;
    if (id !== undefined) ledger.opened(id, orderId);
    else if (clientOrderId) ledger.adopt(run.symbol, clientOrderId, orderId, EXPLORATION_PURPOSE);
    if (!OPEN_STATUSES.includes(order.status) && clientOrderId) ledger.closed(clientOrderId);
    for (const maker of makersOf(r.fills))
      if (!OPEN_STATUSES.includes(maker.status)) ledger.closed(maker.clientOrderId);
    return order;
  }

  /** An order the model expected refused was created: keep it for the tear-down to cancel. */
  private adoptUnexpected(
    run: SequenceRun,
    exchange: Parameters<SequenceRun["judge"]>[0],
    id: string | undefined,
    r: ResolvedPlace,
  ): void {
    const body = bodyObject(exchange) ?? {};
    if (typeof body.orderId !== "number") return;
    const clientOrderId = typeof body.clientOrderId === "string" ? body.clientOrderId : (id ?? "");
    run.env.ctx.ledger.adopt(run.symbol, clientOrderId, body.orderId, EXPLORATION_PURPOSE);
    // What was sent is known, so the reads of the order are judged on it; what it executed is not.
    const v = r.shape.values;
    const dec = (name: string) => (typeof v[name] === "string" ? parseDec(v[name] as string) : undefined);
    run.unexpected.push({
      step: run.step,
      clientOrderId,
      orderId: body.orderId,
      side: r.shape.side,
      type: r.shape.type,
      timeInForce: typeof v.timeInForce === "string" ? v.timeInForce : undefined,
      price: dec("price"),
      stopPrice: dec("stopPrice"),
      icebergQty: dec("icebergQty"),
      origQty: dec("quantity") ?? 0n,
      quoteOrderQty: dec("quoteOrderQty"),
      executedQty: 0n,
      cumQuote: 0n,
      status: "NEW",
      resting: false,
      seq: -1,
    });
  }

  toString(): string {
    const c = this.choice;
    return `place(${c.intent} ${c.side} ×${c.units}${c.byQuote ? " quote" : ""}${c.iceberg ? " iceberg" : ""} type#${c.typePick} tif#${c.tifPick} price#${c.pricePick} ${c.variant ?? "-"} ${c.placement} ${c.id.mode})`;
  }
}

export type LookupChoice = "orderId" | "origClientOrderId" | "both" | "mismatch";

interface ResolvedLookup {
  target: ModelOrder;
  values: Values;
  /** The id of another order sent with the target's orderId (a lookup whose ids disagree). */
  other: ModelOrder | undefined;
}

function resolveLookup(run: SequenceRun, pick: number, by: LookupChoice): ResolvedLookup | undefined {
  // Two picks in three aim at an open order (partly filled ones first), the rest at any order.
  const placed = run.model.orders.filter((o) => o.orderId !== undefined);
  const open = placed.filter((o) => OPEN_STATUSES.includes(o.status));
  const partial = open.filter((o) => o.status === "PARTIALLY_FILLED");
  const pool =
    pick % 4 < 2 || open.length === 0 ? placed : pick % 4 === 2 && partial.length > 0 ? partial : open;
  if (pool.length === 0) return undefined;
  const chosen = pool[Math.floor(pick / 4) % pool.length]!;
  const values: Values = { symbol: run.symbol };
  if (by === "mismatch") {
    const other = placed.find((o) => o.clientOrderId !== chosen.clientOrderId);
    if (!other) return undefined;
    return {
      target: chosen,
      values: { ...values, orderId: chosen.orderId, origClientOrderId: other.clientOrderId },
      other,
    };
  }
  // An order the model expected refused may carry the same client id: which one it names is unknown.
  if (by !== "orderId" && run.unexpected.some((o) => o.clientOrderId === chosen.clientOrderId))
    return undefined;
  const target = by === "origClientOrderId" ? run.model.byClientOrderId(chosen.clientOrderId)! : chosen;
  if (by !== "origClientOrderId") values.orderId = target.orderId;
  if (by !== "orderId") values.origClientOrderId = target.clientOrderId;
  return { target, values, other: undefined };
}

export class CancelCommand implements Command {
  constructor(
    readonly pick: number,
    readonly by: LookupChoice,
    readonly cancelId: number | undefined,
  ) {}

  check(run: SequenceRun): boolean {
    return (
      run.skipped === undefined &&
      run.canAfford(STEP_COST) &&
      resolveLookup(run, this.pick, this.by) !== undefined
    );
  }

  async run(_model: SequenceRun, run: SequenceRun): Promise<void> {
    const { target, values, other } = resolveLookup(run, this.pick, this.by)!;
    const { env } = run;
    const open = OPEN_STATUSES.includes(target.status);
    run.begin(
      `cancel_order of step ${target.step}'s ${target.status} order by ${this.by}${other ? ` (origClientOrderId of step ${other.step}'s order)` : ""}`,
    );
    const cancelId =
      this.cancelId !== undefined && env.ids
        ? clientIdFor(env.ids, env.nextStem(), this.cancelId, this.cancelId)
        : undefined;
    if (cancelId !== undefined) values.newClientOrderId = cancelId;
    const exchange = await run.call(env.ops.cancelOrder, values, `cancel by ${this.by}`);
    if (other || !open) {
      const what = other
        ? "a cancel whose orderId and origClientOrderId name different orders"
        : `a cancel of a ${target.status} order`;
      const accepted = run.refused(
        exchange,
        what,
        other ? env.codes.idsDisagree : env.codes.notCancelable,
        other ? "invariant" : "prediction",
      );
      if (accepted && ok(exchange) && other && open) {
        run.model.cancel(target);
        env.ctx.ledger.closed(target.clientOrderId);
      }
      await run.observe([target]);
      return;
    }
    if (run.served(exchange, `a cancel of the ${target.status} order ${target.orderId}`, "prediction")) {
      run.model.cancel(target);
      env.ctx.ledger.closed(target.clientOrderId);
      const body = bodyObject(exchange) ?? {};
      run.judge(exchange, body, target, "cancel", "cancel_order answer");
      if (cancelId !== undefined && body.clientOrderId !== cancelId)
        run.problem(
          "invariant",
          exchange,
          `cancel_order answer: clientOrderId ${JSON.stringify(body.clientOrderId)}, the cancel sent newClientOrderId ${cancelId}`,
        );
    }
    await run.observe([target]);
  }

  toString(): string {
    return `cancel(#${this.pick} by ${this.by}${this.cancelId !== undefined ? " with newClientOrderId" : ""})`;
  }
}

export class CancelAllCommand implements Command {
  check(run: SequenceRun): boolean {
    // With nothing open it is a refusal worth seeing once a sequence, not again and again.
    const worth = run.model.open().length > 0 || !run.cancelledAllEmpty;
    return (
      worth &&
      run.skipped === undefined &&
      run.env.ops.cancelAll !== undefined &&
      run.foreignOpen.size === 0 &&
      run.canAfford(STEP_COST + run.model.orders.length)
    );
  }

  async run(_model: SequenceRun, run: SequenceRun): Promise<void> {
    const { env } = run;
    const open = run.model.open();
    run.begin(`cancel_all_orders with ${open.length} open order(s)`);
    const exchange = await run.call(env.ops.cancelAll!, { symbol: run.symbol }, "cancel_all_orders");
    if (open.length === 0) {
      run.cancelledAllEmpty = true;
      run.refused(exchange, "cancel_all_orders with no open order", env.codes.nothingToCancel, "prediction");
      await run.observe([]);
      return;
    }
    if (run.served(exchange, `cancel_all_orders with ${open.length} open order(s)`, "prediction")) {
      const reports = Array.isArray(exchange.response?.json)
        ? (exchange.response!.json as Array<Record<string, unknown>>)
        : [];
      for (const order of open) {
        run.model.cancel(order);
        env.ctx.ledger.closed(order.clientOrderId);
        const report = reports.find((r) => r.orderId === order.orderId);
        if (!report)
          run.problem(
            "prediction",
            exchange,
            `cancel_all_orders does not report step ${order.step}'s open order ${order.orderId}`,
          );
        else run.judge(exchange, report, order, "cancel", "cancel_all_orders report");
      }
      for (const report of reports)
        if (!open.some((o) => o.orderId === report.orderId))
          run.problem(
            "prediction",
            exchange,
            `cancel_all_orders reports order ${String(report.orderId)}, which was not open`,
          );
    }
    await run.observe(open);
  }

  toString(): string {
    return "cancelAll()";
  }
}

export class QueryCommand implements Command {
  constructor(
    readonly pick: number,
    readonly by: LookupChoice,
  ) {}

  check(run: SequenceRun): boolean {
    return (
      run.skipped === undefined &&
      run.canAfford(STEP_COST) &&
      resolveLookup(run, this.pick, this.by) !== undefined
    );
  }

  async run(_model: SequenceRun, run: SequenceRun): Promise<void> {
    const { target, values, other } = resolveLookup(run, this.pick, this.by)!;
    run.begin(`query_order of step ${target.step}'s order by ${this.by}`);
    const exchange = await run.call(run.env.ops.queryOrder, values, `query by ${this.by}`);
    if (other)
      run.refused(
        exchange,
        "a query whose orderId and origClientOrderId name different orders",
        run.env.codes.idsDisagree,
      );
    else if (run.served(exchange, `a query of order ${target.orderId} by ${this.by}`))
      run.judge(exchange, bodyObject(exchange) ?? {}, target, "order", `query_order by ${this.by}`);
  }

  toString(): string {
    return `query(#${this.pick} by ${this.by})`;
  }
}

export interface CommandOptions {
  variants: readonly string[];
  placements: readonly Placement[];
  idMax: number;
}

function placeArbitrary(
  options: CommandOptions,
  intents: readonly PlaceChoice["intent"][],
  reuse = true,
): fc.Arbitrary<Command> {
  const id = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        mode: fc.constant("fresh" as const),
        length: fc.integer({ min: 1, max: options.idMax }),
        pick: fc.nat(500),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ mode: "server" as const }) },
    {
      weight: reuse ? 2 : 0,
      arbitrary: fc.record({ mode: fc.constant("reuse" as const), pick: fc.nat(50) }),
    },
  );
  return fc
    .record({
      intent: fc.constantFrom<PlaceChoice["intent"]>(...intents),
      side: fc.constantFrom<Side>("BUY", "SELL"),
      typePick: fc.nat(20),
      tifPick: fc.nat(20),
      pricePick: fc.nat(20),
      units: fc.integer({ min: 1, max: 4 }),
      byQuote: fc.boolean(),
      iceberg: fc.boolean(),
      variant: fc.constantFrom<string | undefined>(...options.variants, undefined),
      placement: fc.constantFrom<Placement>(...options.placements),
      id,
    })
    .map((choice): Command => new PlaceCommand(choice));
}

/**
 * The opening of a sequence: one to three orders resting inside the spread, and mostly an order
 * taking from them, so that the steps after it have partly filled orders to read, cancel, collide
 * with and list.
 */
export function openingArbitrary(options: CommandOptions): fc.Arbitrary<Command[]> {
  return fc
    .tuple(
      fc.array(placeArbitrary(options, ["rest"], false), { minLength: 1, maxLength: 3 }),
      fc.option(placeArbitrary(options, ["take"], false), { nil: undefined, freq: 4 }),
    )
    .map(([rests, take]) => (take ? [...rests, take] : rests));
}

/** The command arbitraries of a sequence, placing weighted above the rest. */
export function commandArbitraries(options: CommandOptions): Array<fc.Arbitrary<Command>> {
  const place = placeArbitrary(options, ["far", "rest", "rest", "take", "take", "take", "limit", "market"]);
  const lookup = fc.constantFrom<LookupChoice>("orderId", "origClientOrderId", "both", "mismatch");
  const cancel = fc
    .tuple(fc.nat(50), lookup, fc.option(fc.integer({ min: 1, max: options.idMax }), { nil: undefined }))
    .map(([pick, by, cancelId]): Command => new CancelCommand(pick, by, cancelId));
  const query = fc.tuple(fc.nat(50), lookup).map(([pick, by]): Command => new QueryCommand(pick, by));
  const cancelAll = fc.constant<Command>(new CancelAllCommand());
  return [place, place, place, place, place, cancel, cancel, cancelAll, query];
}
