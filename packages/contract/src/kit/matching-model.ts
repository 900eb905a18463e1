/**
 * The model of the stateful exploration: what the tester expects the target to hold after each
 * step of a sequence. It knows the orders the sequence placed (their quantities, what they
 * executed, their status) and the foreign liquidity the sequence started with (the top levels of
 * the book), and it matches a taker the way the spec's order semantics say (price, then time
 * priority; IOC and FOK never rest, FOK fills all or nothing, LIMIT_MAKER never takes, a quote
 * budget buys what the lot step allows). Pure data and functions, no I/O.
 */
import { type Dec, div, floorToStep, mul, ZERO } from "../core/decimal.js";

export type Side = "BUY" | "SELL";

export const OPEN_STATUSES: readonly string[] = ["NEW", "PARTIALLY_FILLED", "PENDING_NEW"];
export const FINAL_STATUSES: readonly string[] = [
  "FILLED",
  "CANCELED",
  "REJECTED",
  "EXPIRED",
  "EXPIRED_IN_MATCH",
];

/** One price level of the liquidity the sequence found on the book (not its own). */
export interface Level {
  price: Dec;
  qty: Dec;
}

export interface ModelOrder {
  /** Step of the sequence that placed it (1-based), for messages. */
  step: number;
  clientOrderId: string;
  orderId: number | undefined;
  side: Side;
  type: string;
  timeInForce: string | undefined;
  price: Dec | undefined;
  stopPrice: Dec | undefined;
  icebergQty: Dec | undefined;
  /** The quantity asked for; for a quote-budget order, what the budget bought (known once placed). */
  origQty: Dec;
  quoteOrderQty: Dec | undefined;
  executedQty: Dec;
  cumQuote: Dec;
  status: string;
  /** Working on the book (a limit order with quantity left); an untriggered stop is open, not resting. */
  resting: boolean;
  /** Time priority among the sequence's own orders. */
  seq: number;
  /** transactTime of the new_order answer, once seen. */
  transactTime?: number;
}

export interface PlannedFill {
  price: Dec;
  qty: Dec;
  /** The own order taken from, or undefined for the foreign liquidity. */
  maker: ModelOrder | undefined;
}

export interface TakerSpec {
  side: Side;
  /** Limit price; undefined for a market order. */
  limit: Dec | undefined;
  maxQty: Dec | undefined;
  maxQuote: Dec | undefined;
}

export class ExplorationModel {
  readonly orders: ModelOrder[] = [];
  /** Foreign liquidity, best first: bids descending, asks ascending. */
  readonly foreignBids: Level[];
  readonly foreignAsks: Level[];
  /** Trades the sequence is expected to have made, in order. */
  readonly trades: Array<{ price: Dec; qty: Dec }> = [];
  /** Base quantity bought from (positive) or sold to (negative) the foreign liquidity. */
  netForeign: Dec = ZERO;
  private nextSeq = 0;

  constructor(
    foreignBids: Level[],
    foreignAsks: Level[],
    readonly step: Dec,
  ) {
    this.foreignBids = foreignBids.map((l) => ({ ...l }));
    this.foreignAsks = foreignAsks.map((l) => ({ ...l }));
  }

  open(): ModelOrder[] {
    return this.orders.filter((o) => OPEN_STATUSES.includes(o.status));
  }

  closed(): ModelOrder[] {
    return this.orders.filter((o) => FINAL_STATUSES.includes(o.status));
  }

  /** The open order with this client id, else the newest with it (how a lookup by client id resolves). */
  byClientOrderId(clientOrderId: string): ModelOrder | undefined {
    const same = this.orders.filter((o) => o.clientOrderId === clientOrderId && o.orderId !== undefined);
    return same.find((o) => OPEN_STATUSES.includes(o.status)) ?? same.at(-1);
  }

  /** Own resting orders of one side, in priority order (best price first, then oldest). */
  restingOn(side: Side): ModelOrder[] {
    return this.orders
      .filter((o) => o.side === side && o.resting)
      .sort((a, b) => {
        const byPrice = side === "BUY" ? cmp(b.price!, a.price!) : cmp(a.price!, b.price!);
        return byPrice !== 0 ? byPrice : a.seq - b.seq;
      });
  }

  /**
   * The fills a taker gets, walking own resting orders and the known foreign levels together in
   * price priority (foreign first at an equal price: it was there before). `exhausts` is true when
   * the taker would walk past the known liquidity (its outcome cannot be predicted).
   */
  plan(taker: TakerSpec): { fills: PlannedFill[]; exhausts: boolean } {
    const opposite: Side = taker.side === "BUY" ? "SELL" : "BUY";
    const own = this.restingOn(opposite).map((o) => ({
      price: o.price!,
      left: o.origQty - o.executedQty,
      maker: o as ModelOrder | undefined,
    }));
    const foreign = (opposite === "SELL" ? this.foreignAsks : this.foreignBids).map((l) => ({
      price: l.price,
      left: l.qty,
      maker: undefined as ModelOrder | undefined,
    }));
    const better = (a: Dec, b: Dec) => (opposite === "SELL" ? a < b : a > b);
    const queue = [...foreign.filter((l) => l.left > ZERO), ...own].sort((a, b) =>
      a.price === b.price ? (a.maker ? 1 : 0) - (b.maker ? 1 : 0) : better(a.price, b.price) ? -1 : 1,
    );
    const crosses = (price: Dec) =>
      taker.limit === undefined || (taker.side === "BUY" ? price <= taker.limit : price >= taker.limit);
    const fills: PlannedFill[] = [];
    let qty = ZERO;
    let quote = ZERO;
    for (const entry of queue) {
      if (!crosses(entry.price)) return { fills, exhausts: false };
      let take = entry.left;
      if (taker.maxQty !== undefined) take = min(take, taker.maxQty - qty);
      if (taker.maxQuote !== undefined)
        take = min(take, floorToStep(div(taker.maxQuote - quote, entry.price), this.step));
      if (take <= ZERO) return { fills, exhausts: false };
      fills.push({ price: entry.price, qty: take, maker: entry.maker });
      qty += take;
      quote += mul(entry.price, take);
      // It took less than the level had: the taker is done before the known liquidity is.
      if (take < entry.left) return { fills, exhausts: false };
    }
    // Everything known was taken and the taker still wants more: beyond the known levels.
    const wantsMore =
      (taker.maxQty === undefined || qty < taker.maxQty) &&
      (taker.maxQuote === undefined || quote < taker.maxQuote);
    const lastForeign = foreign.at(-1);
    const pastKnown = wantsMore && (lastForeign === undefined || crosses(lastForeign.price));
    return { fills, exhausts: pastKnown };
  }

  /** Records an accepted order and applies its fills; returns the order. */
  accept(
    order: Omit<ModelOrder, "executedQty" | "cumQuote" | "status" | "resting" | "seq">,
    fills: PlannedFill[],
    restsIfLeft: boolean,
    untriggeredStop = false,
  ): ModelOrder {
    const placed: ModelOrder = {
      ...order,
      executedQty: ZERO,
      cumQuote: ZERO,
      status: "NEW",
      resting: false,
      seq: this.nextSeq++,
    };
    if (placed.quoteOrderQty !== undefined) placed.origQty = fills.reduce((s, f) => s + f.qty, ZERO);
    for (const fill of fills) this.applyFill(placed, fill);
    const left = placed.origQty - placed.executedQty;
    if (untriggeredStop) placed.status = "NEW";
    else if (left === ZERO && placed.origQty > ZERO) placed.status = "FILLED";
    else if (restsIfLeft) {
      placed.status = placed.executedQty > ZERO ? "PARTIALLY_FILLED" : "NEW";
      placed.resting = true;
    } else placed.status = "EXPIRED";
    this.orders.push(placed);
    return placed;
  }

  private applyFill(taker: ModelOrder, fill: PlannedFill): void {
    const quote = mul(fill.price, fill.qty);
    taker.executedQty += fill.qty;
    taker.cumQuote += quote;
    this.trades.push({ price: fill.price, qty: fill.qty });
    const maker = fill.maker;
    if (maker) {
      maker.executedQty += fill.qty;
      maker.cumQuote += quote;
      if (maker.executedQty === maker.origQty) {
        maker.status = "FILLED";
        maker.resting = false;
      } else maker.status = "PARTIALLY_FILLED";
      return;
    }
    const levels = taker.side === "BUY" ? this.foreignAsks : this.foreignBids;
    const level = levels.find((l) => l.price === fill.price);
    if (level) level.qty -= fill.qty;
    this.netForeign += taker.side === "BUY" ? fill.qty : -fill.qty;
  }

  cancel(order: ModelOrder): void {
    order.status = "CANCELED";
    order.resting = false;
  }

  /** The foreign levels that still hold something, best first. */
  remainingForeign(side: Side): Level[] {
    return (side === "BUY" ? this.foreignBids : this.foreignAsks).filter((l) => l.qty > ZERO);
  }
}

function cmp(a: Dec, b: Dec): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function min(a: Dec, b: Dec): Dec {
  return a < b ? a : b;
}

/** The own orders a fill list touched as makers, each once. */
export function makersOf(fills: readonly PlannedFill[]): ModelOrder[] {
  const out: ModelOrder[] = [];
  for (const fill of fills) if (fill.maker && !out.includes(fill.maker)) out.push(fill.maker);
  return out;
}
