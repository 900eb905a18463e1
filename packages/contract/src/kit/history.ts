/**
 * History for the read checks: on a thin target (no trades, an empty book) the order, paging and
 * window checks have nothing to observe. When trading is allowed, the tester first makes the
 * smallest history they need: a few trades between its own orders (a resting LIMIT SELL and a
 * LIMIT IOC BUY at the same price, in the smallest size the filters allow, at the target's own
 * price), and two resting orders on each side of the book. Afterwards it cancels what rests and
 * offsets with a MARKET order whatever its trades left bought or sold. Exceeding a limit's default
 * (hundreds of items) is not cheap, so it is not attempted: limit_semantics notes it.
 */
import { type Dec, formatDec, tryParseDec, ZERO } from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { bodyObject, ok } from "./answers.js";
import { op, type RunContext } from "./context.js";
import { noPriceFallback, smallestQuantity } from "./market.js";
import { placeOrder } from "./order-placing.js";
import { afterCancel } from "./order-state.js";
import type { Values } from "./values.js";

/** Enough items for every read check: cursor paging looks at 7, a window at 4, an order at 2. */
export const WANTED_TRADES = 8;
const WANTED_LEVELS = 2;

export interface MadeHistory {
  /** Cancels what rests and offsets what the trades left; safe to call once. */
  cleanUp(): Promise<void>;
}

const NOTHING: MadeHistory = { cleanUp: async () => {} };

/**
 * Makes the history the read checks need, when trading is allowed and the target's history is
 * thinner than that; otherwise does nothing (the checks then note what they could not observe).
 */
export async function makeHistory(ctx: RunContext): Promise<MadeHistory> {
  const newOrder = op(ctx, "new_order");
  if (!ctx.trading || !ctx.session.canSign || !ctx.rules || !newOrder) return NOTHING;
  const { trades, bids, asks, price } = await survey(ctx);
  const needTrades = Math.max(0, WANTED_TRADES - trades);
  const needBids = Math.max(0, WANTED_LEVELS - bids);
  const needAsks = Math.max(0, WANTED_LEVELS - asks);
  if (needTrades + needBids + needAsks === 0) return NOTHING;
  const at = price ?? noPriceFallback(ctx.rules);
  const tick = ctx.rules.tick;
  const lowest = at - tick * BigInt(WANTED_LEVELS + 1);
  if (lowest <= ZERO) return NOTHING;
  const quantity = formatDec(smallestQuantity(ctx.rules, lowest));
  ctx.progress({
    type: "stage",
    message: `history on ${ctx.values.symbol}: ${needTrades} trade(s) between own orders and ${needBids + needAsks} resting order(s), ${quantity} @ ${formatDec(at)}${price === undefined ? " (no market price: the price the filters allow for the smallest quantity)" : ""}`,
  });
  const made = new History(ctx, newOrder, quantity);
  for (let i = 0; i < needTrades; i++) {
    if (!(await made.trade(formatDec(at)))) break;
  }
  for (let k = 0; k < needBids; k++) await made.rest("BUY", formatDec(at - tick * BigInt(k + 2)));
  for (let k = 0; k < needAsks; k++) await made.rest("SELL", formatDec(at + tick * BigInt(k + 2)));
  return made;
}

interface Survey {
  trades: number;
  bids: number;
  asks: number;
  /** The best ask, else the best bid, else the last trade's price. */
  price: Dec | undefined;
}

async function survey(ctx: RunContext): Promise<Survey> {
  const symbol = ctx.values.symbol;
  const read = async (id: string, values: Values) => {
    const operation = op(ctx, id);
    if (!operation) return undefined;
    const exchange = await ctx.session.call(
      { op: operation, params: encodeParams(operation, values) },
      `history: how much ${id} holds`,
    );
    return ok(exchange) ? exchange.response?.json : undefined;
  };
  const recent = await read("recent_trades_list", { symbol, limit: WANTED_TRADES });
  const answer = await read("order_book", { symbol, limit: 5 });
  const book = typeof answer === "object" && answer !== null ? (answer as Record<string, unknown>) : {};
  const list = Array.isArray(recent) ? (recent as Record<string, unknown>[]) : [];
  const side = (name: string) => (Array.isArray(book[name]) ? (book[name] as unknown[][]) : []);
  const bestOf = (levels: unknown[][]) => tryParseDec(levels[0]?.[0]);
  const price = bestOf(side("asks")) ?? bestOf(side("bids")) ?? tryParseDec(list.at(-1)?.price);
  return {
    trades: list.length,
    bids: side("bids").length,
    asks: side("asks").length,
    price: price !== undefined && price > ZERO ? price : undefined,
  };
}

class History {
  private readonly placed: Array<{ clientOrderId: string; side: string }> = [];
  private cleaned = false;

  constructor(
    private readonly ctx: RunContext,
    private readonly newOrder: ContractOperation,
    private readonly quantity: string,
  ) {}

  /** One trade: a resting SELL and an IOC BUY crossing it. False when the target refused either. */
  async trade(price: string): Promise<boolean> {
    const sell = await this.place({ side: "SELL", timeInForce: "GTC", price }, "history: SELL to trade with");
    return (
      sell && (await this.place({ side: "BUY", timeInForce: "IOC", price }, "history: IOC BUY crossing it"))
    );
  }

  async rest(side: "BUY" | "SELL", price: string): Promise<void> {
    await this.place({ side, timeInForce: "GTC", price }, `history: a resting ${side}`);
  }

  private async place(values: Values, label: string): Promise<boolean> {
    const placed = await placeOrder(
      this.ctx,
      this.newOrder,
      { symbol: this.ctx.values.symbol, type: "LIMIT", quantity: this.quantity, ...values },
      label,
    );
    if (!ok(placed.exchange)) return false;
    this.placed.push({ clientOrderId: placed.clientOrderId, side: String(values.side) });
    return true;
  }

  /**
   * Cancels what still rests, then reads every order it placed (each may have traded with the
   * others' orders meanwhile) and offsets the net quantity with one MARKET order.
   */
  async cleanUp(): Promise<void> {
    if (this.cleaned) return;
    this.cleaned = true;
    const cancel = op(this.ctx, "cancel_order");
    const query = op(this.ctx, "query_order");
    const symbol = this.ctx.values.symbol;
    let net = ZERO;
    for (const { clientOrderId, side } of this.placed) {
      if (cancel && this.ctx.ledger.get(clientOrderId)?.state !== "closed") {
        const exchange = await this.ctx.session.call(
          { op: cancel, params: encodeParams(cancel, { symbol, origClientOrderId: clientOrderId }) },
          "history: cancel a resting order",
        );
        if (afterCancel(cancel, exchange).state === "closed") this.ctx.ledger.closed(clientOrderId);
      }
      if (!query) continue;
      const read = await this.ctx.session.call(
        { op: query, params: encodeParams(query, { symbol, origClientOrderId: clientOrderId }) },
        "history: what the order executed",
      );
      const executed = tryParseDec(bodyObject(read)?.executedQty) ?? ZERO;
      net += side === "BUY" ? executed : -executed;
    }
    if (net === ZERO) return;
    const side = net > ZERO ? "SELL" : "BUY";
    await placeOrder(
      this.ctx,
      this.newOrder,
      { symbol, side, type: "MARKET", quantity: formatDec(net > ZERO ? net : -net) },
      `history: MARKET ${side} offsetting what the trades left`,
    );
  }
}
