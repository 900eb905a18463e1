/**
 * One sequence of the exploration against the real target: its requests (each recorded with the
 * step that sent it), the reads after every step (query_order of the orders the step touched,
 * open_orders and all_orders, each judged against the model), the set-up (the foreign liquidity
 * and the last trade id) and the tear-down (cancel what is open, sweep, read the bracket, offset
 * what the sequence bought or sold from others). The market is judged quiet when the trades made
 * since the set-up are exactly those the model predicts and the foreign levels are as it expects;
 * otherwise the model's predictions are not judged (a busy market must not raise false alarms),
 * while the invariants still are.
 */
import type { OrderTypeRule } from "@marketapi/spec/model";
import { type Dec, formatDec, tryParseDec, ZERO } from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams, type Placement } from "../http/request.js";
import { bodyObject, describeAnswer, errorCode, isRateLimited, ok } from "../kit/answers.js";
import type { RunContext } from "../kit/context.js";
import { type ExplorationView, levelsOf } from "../kit/market-view.js";
import {
  ExplorationModel,
  FINAL_STATUSES,
  type Level,
  type ModelOrder,
  OPEN_STATUSES,
  type PlannedFill,
} from "../kit/matching-model.js";
import { arithmeticProblems } from "../kit/order-answers.js";
import type { TradingOps } from "../kit/order-desk.js";
import { recordSent } from "../kit/order-placing.js";
import type { Values } from "../kit/values.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ClientIdSpace } from "./client-ids.js";
import type { ExplorationCoverage } from "./coverage.js";
import {
  type OrderAnswer,
  orderProblems,
  type Problem,
  passedOver,
  ReadHistory,
  type ShortTaker,
  shortTaker,
} from "./judge.js";

type Json = Record<string, unknown>;

export interface ExplorationOps extends TradingOps {
  orderBook: ContractOperation;
  trades: ContractOperation | undefined;
}

/** What the report names the exploration's orders after. */
export const EXPLORATION_PURPOSE = "exploration";
/** Refusal codes the spec names for what a sequence may provoke (x-refusals); undefined: any 4xx. */
export interface RefusalCodes {
  duplicateClientOrderId?: number | undefined;
  wouldTake?: number | undefined;
  notCancelable?: number | undefined;
  nothingToCancel?: number | undefined;
  idsDisagree?: number | undefined;
  filterFailure?: number | undefined;
  unknownOrder?: number | undefined;
}

/** What every sequence of one exploration shares. */
export interface ExplorationEnv {
  ctx: RunContext;
  ops: ExplorationOps;
  /** The symbol the current sequence trades on: the run's traded symbols take turns, a sequence each. */
  view: ExplorationView;
  orderTypeRules: Record<string, OrderTypeRule>;
  ids: ClientIdSpace | undefined;
  codes: RefusalCodes;
  coverage: ExplorationCoverage;
  /** The session's request count at which the exploration must stop (raised to shrink a failure). */
  requestLimit: number;
  /** The session's request count when the exploration started. */
  startedAt: number;
  /** Unique stems of client order ids across the exploration. */
  nextStem(): string;
}

export interface StepRecord {
  step: number;
  description: string;
  exchange: RoundTrip;
}

export interface StepProblem extends Problem {
  step: number;
  description: string;
  exchange: RoundTrip;
}

/** Requests a tear-down may need besides one cancel per open order. */
const TEARDOWN_RESERVE = 5;
const BOOK_LEVELS = 5;

export class SequenceRun {
  readonly exchanges: StepRecord[] = [];
  readonly problems: StepProblem[] = [];
  /** Assertions that held, by operation. */
  readonly held = new Map<string, number>();
  readonly reads = new ReadHistory();
  model!: ExplorationModel;
  step = 0;
  description = "set-up";
  /** Orders on the symbol that were open when the sequence started (not its own). */
  foreignOpen = new Set<number>();
  foreignStops = 0;
  /** A cancel_all_orders with nothing open was sent (once a sequence is enough). */
  cancelledAllEmpty = false;
  /** Orders the target created although the model expected a refusal (cancelled at tear-down). */
  readonly unexpected: ModelOrder[] = [];
  /** The sequence's takers that expired with quantity left, as their answers showed. */
  private readonly shortTakers: ShortTaker[] = [];
  private lastTradeId: number | undefined;
  private bracketReadable = false;
  private readRotation = 0;
  /** Why the sequence could not run (set-up failed), or stopped. */
  skipped: string | undefined;

  constructor(readonly env: ExplorationEnv) {}

  get symbol(): string {
    return this.env.view.symbol;
  }

  /** Whether `requests` more (and the tear-down) fit in the exploration's budget. */
  canAfford(requests: number): boolean {
    const teardown = TEARDOWN_RESERVE + (this.model?.open().length ?? 0) + this.unexpected.length;
    return this.env.ctx.session.requests + requests + teardown <= this.env.requestLimit;
  }

  begin(description: string): void {
    this.step += 1;
    this.description = description;
  }

  async call(
    op: ContractOperation,
    values: Values,
    label: string,
    placement?: Placement,
  ): Promise<RoundTrip> {
    const exchange = await this.env.ctx.session.call(
      { op, params: encodeParams(op, values), ...(placement ? { placement } : {}) },
      `exploration step ${this.step}: ${label}`,
    );
    this.exchanges.push({ step: this.step, description: this.description, exchange });
    this.env.coverage.see(exchange);
    return exchange;
  }

  problem(kind: Problem["kind"], exchange: RoundTrip, text: string): void {
    this.problems.push({ kind, text, step: this.step, description: this.description, exchange });
  }

  hold(exchange: RoundTrip, count = 1): void {
    const id = exchange.op.operationId;
    this.held.set(id, (this.held.get(id) ?? 0) + count);
  }

  /**
   * A request the model says must be served; false (with a problem) when it was not. `kind` is
   * "prediction" where the outcome rests on the state the model predicts (whether an order is still
   * open, what the book holds), which others trading on the symbol can change.
   */
  served(exchange: RoundTrip, what: string, kind: Problem["kind"] = "invariant"): boolean {
    if (ok(exchange)) return true;
    if (!exchange.response || isRateLimited(exchange)) {
      this.skipped = `${what}: ${describeAnswer(exchange)}`;
      return false;
    }
    this.problem(
      kind,
      exchange,
      `${what} was refused (${describeAnswer(exchange)}); the model expects it served`,
    );
    return false;
  }

  /** A request the model says must be refused, with the code the spec names. Returns true if it was accepted. */
  refused(
    exchange: RoundTrip,
    what: string,
    code: number | undefined,
    kind: Problem["kind"] = "invariant",
  ): boolean {
    const status = exchange.response?.status;
    if (status === undefined || isRateLimited(exchange)) {
      this.skipped = `${what}: ${describeAnswer(exchange)}`;
      return false;
    }
    if (status < 400 || status >= 500) {
      this.problem(
        kind,
        exchange,
        `${what} got ${describeAnswer(exchange)}; the model expects a 4xx refusal${code !== undefined ? ` with code ${code}` : ""}`,
      );
      return status < 300;
    }
    const got = errorCode(exchange);
    if (code !== undefined && got !== code)
      this.problem(kind, exchange, `${what} was refused with code ${got}; the spec names ${code}`);
    else this.hold(exchange);
    return false;
  }

  judge(exchange: RoundTrip, body: Json, order: ModelOrder, answer: OrderAnswer, where: string): void {
    const problems = orderProblems(body, order, this.symbol, answer);
    if (answer === "order" || answer === "cancel")
      for (const text of this.reads.problems(body, where)) problems.push({ kind: "invariant", text });
    for (const p of problems) this.problem(p.kind, exchange, `${where}: ${p.text}`);
    if (problems.length === 0) this.hold(exchange);
  }

  /** A new_order answer: what it carries is judged (state from RESULT on, fills in FULL). */
  judgeNewOrder(exchange: RoundTrip, order: ModelOrder, fills: PlannedFill[]): void {
    const body = bodyObject(exchange) ?? {};
    const answer: OrderAnswer = Array.isArray(body.fills)
      ? "FULL"
      : typeof body.status === "string"
        ? "RESULT"
        : "ACK";
    this.judge(exchange, body, order, answer, `new_order answer (${answer})`);
    const short = answer === "ACK" ? undefined : shortTaker(body, order);
    if (short) this.shortTakers.push(short);
    if (typeof body.transactTime === "number") order.transactTime = body.transactTime;
    const rule = exchange.op.behaviour.orderArithmetic;
    if (answer !== "FULL" || !rule) return;
    for (const text of arithmeticProblems(rule, body, order.timeInForce ?? ""))
      this.problem("invariant", exchange, `new_order answer: ${text} (x-order-arithmetic)`);
    const got = (body[rule.fills.list] as Json[]).map(
      (f) =>
        `${formatDec(tryParseDec(f[rule.fills.qty]) ?? ZERO)} @ ${formatDec(tryParseDec(f[rule.fills.price]) ?? ZERO)}`,
    );
    const want = fills.map((f) => `${formatDec(f.qty)} @ ${formatDec(f.price)}`);
    if (got.join(", ") !== want.join(", "))
      this.problem(
        "prediction",
        exchange,
        `new_order answer: fills ${got.join(", ") || "none"}; the model expects ${want.join(", ") || "none"}`,
      );
  }

  // ---- set-up -------------------------------------------------------------------------------

  /** Reads the book, the last trade id and the open orders; false (with `skipped`) if it cannot start. */
  async setUp(): Promise<boolean> {
    const { ops, view } = this.env;
    if (!this.canAfford(3)) {
      this.skipped = "the exploration's request budget is used up";
      return false;
    }
    const book = await this.call(
      ops.orderBook,
      { symbol: this.symbol, limit: BOOK_LEVELS },
      "the book at the start",
    );
    const body = bodyObject(book);
    if (!ok(book) || !body) {
      this.skipped = `order_book: ${describeAnswer(book)}`;
      return false;
    }
    this.model = new ExplorationModel(
      levelsOf(body.bids).slice(0, BOOK_LEVELS),
      levelsOf(body.asks).slice(0, BOOK_LEVELS),
      view.step,
    );
    this.lastTradeId = await this.newestTradeId();
    const open = await this.call(ops.openOrders, { symbol: this.symbol }, "open orders at the start");
    if (!ok(open)) {
      this.skipped = `open_orders: ${describeAnswer(open)}`;
      return false;
    }
    for (const o of listOf(open)) {
      if (typeof o.orderId === "number") this.foreignOpen.add(o.orderId);
      if (typeof o.type === "string" && isStopType(o.type)) this.foreignStops += 1;
    }
    return true;
  }

  private async newestTradeId(): Promise<number | undefined> {
    const trades = this.env.ops.trades;
    if (!trades) return undefined;
    const exchange = await this.call(
      trades,
      { symbol: this.symbol, limit: 1 },
      "the newest trade at the start",
    );
    const last = listOf(exchange).at(-1);
    this.bracketReadable = ok(exchange);
    return typeof last?.id === "number" ? last.id : undefined;
  }

  // ---- the reads after every step -----------------------------------------------------------

  async observe(touched: readonly ModelOrder[]): Promise<void> {
    for (const order of touched) if (order.orderId !== undefined) await this.queryRead(order);
    await this.openRead();
    await this.allRead();
  }

  /** query_order of one order: by orderId, by client id (where that finds it), or by both, in turn. */
  private async queryRead(order: ModelOrder): Promise<void> {
    const byClient =
      this.model.byClientOrderId(order.clientOrderId) === order &&
      !this.unexpected.some((o) => o.clientOrderId === order.clientOrderId && o !== order);
    const mode = byClient ? this.readRotation++ % 3 : 0;
    const values: Values = { symbol: this.symbol };
    if (mode !== 1) values.orderId = order.orderId;
    if (mode !== 0) values.origClientOrderId = order.clientOrderId;
    const how = mode === 0 ? "orderId" : mode === 1 ? "origClientOrderId" : "orderId and origClientOrderId";
    const exchange = await this.call(this.env.ops.queryOrder, values, `query_order by ${how}`);
    if (!this.served(exchange, `query_order of step ${order.step}'s order by ${how}`)) return;
    this.judge(exchange, bodyObject(exchange) ?? {}, order, "order", `query_order by ${how}`);
  }

  private async openRead(): Promise<void> {
    const exchange = await this.call(this.env.ops.openOrders, { symbol: this.symbol }, "open_orders");
    if (!this.served(exchange, "open_orders")) return;
    const listed = listOf(exchange);
    for (const item of listed) {
      const orderId = item.orderId;
      if (typeof orderId !== "number" || this.foreignOpen.has(orderId)) continue;
      const order = this.byOrderId(orderId);
      if (!order) {
        this.problem(
          "invariant",
          exchange,
          `open_orders lists order ${orderId}, which no accepted step created`,
        );
        continue;
      }
      if (!OPEN_STATUSES.includes(String(item.status)))
        this.problem(
          "invariant",
          exchange,
          `open_orders lists order ${orderId} with the final status ${String(item.status)}`,
        );
      const final = this.reads.seenFinal(orderId);
      if (final)
        this.problem("invariant", exchange, `open_orders lists order ${orderId}, shown closed in ${final}`);
      if (order.timeInForce === "IOC" || order.timeInForce === "FOK" || order.type === "MARKET")
        this.problem(
          "invariant",
          exchange,
          `open_orders lists order ${orderId}, a ${order.type} ${order.timeInForce ?? ""} order that never rests`,
        );
      this.judge(exchange, item, order, "order", "open_orders");
      const taker = this.shortTakers.find((t) => passedOver(t, order));
      if (taker)
        this.problem(
          "invariant",
          exchange,
          `open_orders lists step ${order.step}'s ${order.side} at ${order.price === undefined ? "?" : formatDec(order.price)} still working, though step ${taker.step}'s ${taker.side} ${taker.price === undefined ? "MARKET order" : `IOC at ${formatDec(taker.price)}`} expired with quantity left: a taker takes every order its price reaches before the rest expires`,
        );
    }
    for (const order of this.model.open()) {
      if (!listed.some((item) => item.orderId === order.orderId))
        this.problem(
          "prediction",
          exchange,
          `open_orders does not list step ${order.step}'s order ${order.orderId}, which the model has ${order.status}`,
        );
    }
  }

  private async allRead(): Promise<void> {
    const placed = this.model.orders.filter((o) => o.orderId !== undefined);
    if (placed.length === 0) return;
    const first = Math.min(...placed.map((o) => o.orderId!));
    const exchange = await this.call(
      this.env.ops.allOrders,
      { symbol: this.symbol, orderId: first },
      `all_orders from orderId ${first}`,
    );
    if (!this.served(exchange, "all_orders")) return;
    const listed = listOf(exchange);
    for (const order of placed) {
      const item = listed.find((i) => i.orderId === order.orderId);
      if (!item) {
        this.problem(
          "invariant",
          exchange,
          `all_orders from orderId ${first} does not list step ${order.step}'s order ${order.orderId}`,
        );
        continue;
      }
      this.judge(exchange, item, order, "order", "all_orders");
    }
    // Orders the model expected refused: their reads count what they executed (see the bracket).
    for (const order of this.unexpected) {
      const item = listed.find((i) => i.orderId === order.orderId);
      if (item) this.judge(exchange, item, order, "order", "all_orders");
    }
  }

  byOrderId(orderId: number): ModelOrder | undefined {
    return (
      this.model.orders.find((o) => o.orderId === orderId) ??
      this.unexpected.find((o) => o.orderId === orderId)
    );
  }

  // ---- tear-down ----------------------------------------------------------------------------

  /** Cancels what is open, sweeps, judges the bracket, offsets what was traded with others. */
  async tearDown(): Promise<void> {
    if (!this.model) return;
    this.begin("tear-down");
    const { ops } = this.env;
    for (const order of [...this.model.open(), ...this.unexpected]) {
      const exchange = await this.call(
        ops.cancelOrder,
        { symbol: this.symbol, orderId: order.orderId },
        `cancel step ${order.step}'s order`,
      );
      if (ok(exchange)) this.env.ctx.ledger.closed(order.clientOrderId);
      if (!this.model.orders.includes(order)) continue;
      if (this.served(exchange, `cancelling step ${order.step}'s open order`, "prediction")) {
        this.model.cancel(order);
        this.judge(exchange, bodyObject(exchange) ?? {}, order, "cancel", "cancel_order at tear-down");
      }
    }
    await this.sweep();
    await this.bracket();
    await this.offset();
  }

  /** Any open order on the symbol that was not open at the start is this sequence's: cancel it. */
  private async sweep(): Promise<void> {
    const { ops } = this.env;
    const open = await this.call(ops.openOrders, { symbol: this.symbol }, "open orders left");
    for (const item of listOf(open)) {
      if (typeof item.orderId !== "number" || this.foreignOpen.has(item.orderId)) continue;
      const cancel = await this.call(
        ops.cancelOrder,
        { symbol: this.symbol, orderId: item.orderId },
        `cancel order ${item.orderId} left open`,
      );
      if (typeof item.clientOrderId === "string" && ok(cancel))
        this.env.ctx.ledger.closed(item.clientOrderId);
    }
  }

  /**
   * Whether the market stayed quiet: the trades since the set-up are the model's, and the
   * foreign levels are as the model left them. Predictions are dropped when it did not.
   */
  private async bracket(): Promise<void> {
    const quiet = await this.foreignLevelsAsExpected();
    if (!quiet) {
      this.dropPredictions("the book's foreign levels changed during the sequence (the market moved)");
      return;
    }
    const trades = this.env.ops.trades;
    if (
      !trades ||
      !this.bracketReadable ||
      (this.model.trades.length === 0 && this.lastTradeId === undefined)
    )
      return;
    const want = this.model.trades;
    const limit = Math.min(1000, want.length + 10);
    const exchange = await this.call(trades, { symbol: this.symbol, limit }, "the trades since the start");
    if (!ok(exchange)) return;
    const made = listOf(exchange).filter(
      (t) => typeof t.id === "number" && (this.lastTradeId === undefined || t.id > this.lastTradeId),
    );
    const qtyOf = (t: Json) => tryParseDec(t.qty) ?? ZERO;
    const unforeseen =
      made.reduce((sum, t) => sum + qtyOf(t), ZERO) - want.reduce((sum, t) => sum + t.qty, ZERO);
    // A trade the model did not foresee between two of the sequence's orders shows in the reads of
    // both; one with another party in it, in one or none: then someone else traded, the market moved.
    // A full page of trades all made since the start is more than the sequence accounts for.
    if ((unforeseen > ZERO && this.executedBeyondModel() < 2n * unforeseen) || made.length >= limit) {
      this.dropPredictions("others traded during the sequence (trades it cannot account for)");
      return;
    }
    const got = made.map(
      (t) => `${formatDec(tryParseDec(t.qty) ?? ZERO)} @ ${formatDec(tryParseDec(t.price) ?? ZERO)}`,
    );
    const expected = want.map((t) => `${formatDec(t.qty)} @ ${formatDec(t.price)}`);
    if (got.join(", ") === expected.join(", ")) this.hold(exchange);
    else
      this.problem(
        "prediction",
        exchange,
        `the trades since the sequence started are ${got.join(", ") || "none"}; its orders' fills were ${expected.join(", ") || "none"}`,
      );
  }

  /** What the reads show the sequence's orders executed beyond what the model expects. */
  private executedBeyondModel(): Dec {
    let sum = ZERO;
    for (const order of [...this.model.orders, ...this.unexpected]) {
      const read = order.orderId === undefined ? undefined : this.reads.executed(order.orderId);
      if (read !== undefined && read > order.executedQty) sum += read - order.executedQty;
    }
    return sum;
  }

  private async foreignLevelsAsExpected(): Promise<boolean> {
    const book = await this.call(
      this.env.ops.orderBook,
      { symbol: this.symbol, limit: BOOK_LEVELS },
      "the book at the end",
    );
    const body = bodyObject(book);
    if (!ok(book) || !body) return false;
    const same = (got: Level[], want: Level[]) => {
      const expected = want.filter((l) => l.qty > ZERO);
      return expected.every((l, i) => got[i]?.price === l.price && got[i]?.qty === l.qty);
    };
    return (
      same(levelsOf(body.bids), this.model.foreignBids) && same(levelsOf(body.asks), this.model.foreignAsks)
    );
  }

  private dropPredictions(why: string): void {
    const dropped = this.problems.filter((p) => p.kind === "prediction").length;
    for (let i = this.problems.length - 1; i >= 0; i -= 1)
      if (this.problems[i]!.kind === "prediction") this.problems.splice(i, 1);
    if (dropped > 0) this.notJudged = `${dropped} prediction(s) not judged: ${why}`;
  }

  notJudged: string | undefined;

  /** Sells what the sequence bought from others (or buys back what it sold), with a MARKET order. */
  private async offset(): Promise<void> {
    const net = this.model.netForeign;
    if (net === ZERO || !this.env.view.types.includes("MARKET")) return;
    const side = net > ZERO ? "SELL" : "BUY";
    const quantity: Dec = net > ZERO ? net : -net;
    const id = `${this.env.nextStem()}o`;
    recordSent(this.env.ctx, this.symbol, id, EXPLORATION_PURPOSE);
    const exchange = await this.call(
      this.env.ops.newOrder,
      {
        symbol: this.symbol,
        side,
        type: "MARKET",
        quantity: formatDec(quantity),
        newClientOrderId: id,
        newOrderRespType: "RESULT",
      },
      "offset what was traded with others",
    );
    this.env.ctx.ledger.closed(id);
    if (!ok(exchange))
      this.env.ctx.progress({
        type: "stage",
        message: `exploration: the offsetting MARKET ${side} of ${formatDec(quantity)} was refused (${describeAnswer(exchange)})`,
      });
  }

  /** Invariant problems, and prediction problems left after the bracket. */
  failed(): boolean {
    return this.problems.length > 0;
  }
}

export function listOf(exchange: RoundTrip): Json[] {
  const json = exchange.response?.json;
  return Array.isArray(json) ? (json.filter((x) => typeof x === "object" && x !== null) as Json[]) : [];
}

export function isStopType(type: string): boolean {
  return type.startsWith("STOP_LOSS") || type.startsWith("TAKE_PROFIT");
}

export { FINAL_STATUSES };
