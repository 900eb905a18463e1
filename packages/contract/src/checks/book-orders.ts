/**
 * book_orders: the book holds the account's resting orders, and the trade list its fills. On each
 * symbol the run trades, with room inside the spread: a LIMIT BUY one tick above the best bid
 * shows in order_book as the best bid level with exactly its quantity; an iceberg one tick higher
 * shows only its visible quantity (icebergQty), never its whole; each change of the book (a place,
 * a cancel, a fill) moves lastUpdateId forward; a cancel takes the level away again. Then the
 * resting BUY is filled by the run's own SELL (where self-trades are allowed): the SELL's fills
 * name trade ids that recent_trades_list holds with the same price, quantity and maker side, and
 * the BUY's level is gone. A level is judged exactly only when the rest of that side of the book is
 * as it was (no one else's order came or went); lastUpdateId must move whatever others do.
 */
import { type Dec, formatDec, tryParseDec, ZERO } from "../core/decimal.js";
import { encodeParams } from "../http/request.js";
import { bodyObject, describeAnswer, isRateLimited, ok } from "../kit/answers.js";
import { op, type RunContext, whyNoTrading } from "../kit/context.js";
import { type SymbolPlan, smallestQuantity } from "../kit/market.js";
import type { Level } from "../kit/matching-model.js";
import {
  type BookView,
  cancelIfOpen,
  cancelOwn,
  decimalField,
  itemsOf,
  type OwnOrder,
  placeOwn,
  quantityAt,
  queryOwn,
  readBook,
} from "../kit/own-orders.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "book_orders";
const PURPOSE = "book orders";
/** Levels a side read from the book: the run's orders are at the top of it. */
const DEPTH = 20;

export const bookOrders: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "book",
  description:
    "the book shows the account's resting orders at their price (an iceberg's visible part only), lastUpdateId moves with every change, and the trade list holds the fills",
  covers: [],
  hooks: [{ phase: "trading-behaviour", run: bookOrdersCheck }],
  appliesTo: (operation) => ["order_book", "recent_trades_list"].includes(operation.operationId),
  notApplicable: "does not show the book or the trades",
  seenToCatch: [
    "resting-order-missing-from-depth",
    "iceberg-whole-quantity-in-depth",
    "last-update-id-frozen",
    "trade-ids-off-by-one",
  ],
};

/** One of the run's orders as the book should show it: its side, price and visible quantity. */
export interface Shown {
  side: "BUY" | "SELL";
  price: Dec;
  visible: Dec;
}

/** What bookProblems finds in one read of the book. */
export interface BookJudgement {
  problems: string[];
  judged: boolean;
  levelsDisagree: boolean;
  shared: Dec[];
  leftOut: Dec[];
  disagreeing: { price: Dec; off: Dec }[];
}

/**
 * What is wrong with `after`, given the book `before` and the run's orders placed (`add`) or
 * taken away (`remove`) in between: lastUpdateId that did not move forward, and, when the rest of
 * the side is unchanged (nobody else's order came or went), a level of the run's orders whose
 * quantity is not what they show, or a level left where the run's order was taken away. A level
 * that others' orders shared before is not judged (`shared`): what they did there between the two
 * reads shows only at that level, where it cannot be told from the run's own. Nor is a level the
 * caller leaves out (`leaveOut`: where the run's order traded with others', or where the market
 * explains what it shows). Each level judged wrong is in `disagreeing`, with how far off it was. Pure.
 */
export function bookProblems(
  before: Pick<BookView, "lastUpdateId" | "bids" | "asks">,
  after: Pick<BookView, "lastUpdateId" | "bids" | "asks">,
  change: { add?: Shown[]; remove?: Shown[] },
  leaveOut: readonly Dec[] = [],
): BookJudgement {
  const problems: string[] = [];
  const shared: Dec[] = [];
  const leftOut: Dec[] = [];
  const disagreeing: { price: Dec; off: Dec }[] = [];
  let levelsDisagree = false;
  if (
    before.lastUpdateId !== undefined &&
    after.lastUpdateId !== undefined &&
    after.lastUpdateId <= before.lastUpdateId
  )
    problems.push(
      `lastUpdateId did not move (${before.lastUpdateId} before, ${after.lastUpdateId} after the book changed)`,
    );
  const touched = [...(change.add ?? []), ...(change.remove ?? [])];
  let judged = false;
  for (const side of ["BUY", "SELL"] as const) {
    const mine = touched.filter((s) => s.side === side);
    if (mine.length === 0) continue;
    const levels = (book: Pick<BookView, "bids" | "asks">) => (side === "BUY" ? book.bids : book.asks);
    const prices = new Set(mine.map((s) => s.price));
    if (!sameLevels(levels(before), levels(after), prices)) continue;
    judged = true;
    for (const price of prices) {
      if (leaveOut.includes(price)) {
        leftOut.push(price);
        continue;
      }
      const added = (change.add ?? [])
        .filter((s) => s.side === side && s.price === price)
        .reduce((a, s) => a + s.visible, ZERO);
      const removed = (change.remove ?? [])
        .filter((s) => s.side === side && s.price === price)
        .reduce((a, s) => a + s.visible, ZERO);
      const want = quantityAt(levels(before), price) + added - removed;
      const got = quantityAt(levels(after), price);
      if (got === want) continue;
      levelsDisagree = true;
      if (quantityAt(levels(before), price) - removed > ZERO) shared.push(price);
      else {
        disagreeing.push({ price, off: got - want });
        problems.push(
          `the ${side === "BUY" ? "bid" : "ask"} level at ${formatDec(price)} holds ${formatDec(got)}; the run's order${added > ZERO ? ` (${formatDec(added)} visible) was placed there` : ` (${formatDec(removed)}) was taken away from there`}, so it should hold ${formatDec(want)}`,
        );
      }
    }
  }
  return { problems, judged, levelsDisagree, shared, leftOut, disagreeing };
}

/** Whether the levels of a side are the same before and after, leaving out `except` prices. */
function sameLevels(before: readonly Level[], after: readonly Level[], except: ReadonlySet<Dec>): boolean {
  const rest = (levels: readonly Level[]) =>
    levels.filter((l) => !except.has(l.price)).map((l) => `${l.price}:${l.qty}`);
  const a = rest(before);
  const b = rest(after);
  // The top of the book: compare as many levels as both reads hold past the run's own.
  const n = Math.min(a.length, b.length, DEPTH - except.size);
  return a.slice(0, n).join() === b.slice(0, n).join();
}

/**
 * What is wrong with a trade list against the fills of a taker: a fill whose trade id is missing,
 * or listed with another price, quantity or maker side. Pure.
 */
export function fillProblems(
  fills: ReadonlyArray<Record<string, unknown>>,
  trades: ReadonlyArray<Record<string, unknown>>,
  takerSide: "BUY" | "SELL",
): string[] {
  const problems: string[] = [];
  for (const fill of fills) {
    const trade = trades.find((t) => t.id === fill.tradeId);
    if (!trade) {
      problems.push(`fill trade id ${String(fill.tradeId)} is not in the trade list`);
      continue;
    }
    const price = tryParseDec(fill.price);
    const qty = tryParseDec(fill.qty);
    if (price === undefined || tryParseDec(trade.price) !== price)
      problems.push(
        `trade ${String(fill.tradeId)}: the fill says price ${String(fill.price)}, the trade list ${String(trade.price)}`,
      );
    if (qty === undefined || tryParseDec(trade.qty) !== qty)
      problems.push(
        `trade ${String(fill.tradeId)}: the fill says qty ${String(fill.qty)}, the trade list ${String(trade.qty)}`,
      );
    if (trade.isBuyerMaker !== (takerSide === "SELL"))
      problems.push(
        `trade ${String(fill.tradeId)}: isBuyerMaker ${String(trade.isBuyerMaker)}, but the taker was the ${takerSide}`,
      );
  }
  return problems;
}

async function bookOrdersCheck(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK)) return;
  const skip = (reason: string) => {
    for (const id of ["order_book", "recent_trades_list"]) ctx.session.recorder.skip(CHECK, id, reason);
  };
  const noTrading = whyNoTrading(ctx);
  if (noTrading) return skip(noTrading);
  if (ctx.symbols.length === 0) return skip("exchangeInfo lists no symbol to trade");
  for (const plan of ctx.symbols) await onSymbol(ctx, plan);
}

function note(ctx: RunContext, why: string): void {
  ctx.session.recorder.note(CHECK, "order_book", why);
}

function judge(ctx: RunContext, exchange: RoundTrip, result: { problems: string[] }, what: string): void {
  if (result.problems.length > 0) ctx.session.fail(CHECK, exchange, `${what}: ${result.problems.join("; ")}`);
  else ctx.session.pass(CHECK, exchange);
}

/**
 * Rounds of a symbol's whole scenario. Another account's order can join or leave the very level
 * of the run's order between two reads, where nothing else in the book shows it; a target that
 * shows the run's orders wrong does so in every round, while such a coincidence does not repeat.
 * So a round whose levels disagreed is judged only when it is the last.
 */
const BOOK_ROUNDS = 3;

async function onSymbol(ctx: RunContext, plan: SymbolPlan): Promise<void> {
  const symbol = plan.rules.symbol;
  const rounds: { when: string; off: Dec[] }[][] = [];
  for (let round = 1; round <= BOOK_ROUNDS; round++) {
    const reads: ReadChange[] = [];
    await symbolRound(ctx, plan, reads);
    leaveOutJoined(reads);
    rounds.push(disagreementsOf(reads));
    const disagreed = reads.filter((read) => read.result.problems.length > 0 && read.result.levelsDisagree);
    if (disagreed.length > 0 && round < BOOK_ROUNDS) {
      note(
        ctx,
        `${symbol}: in round ${round}, ${disagreed.map((read) => read.when).join(" and ")}, a level of the run's did not hold what its orders show; others' orders may have come or gone there, so the round was played again`,
      );
      continue;
    }
    if (disagreed.length > 0) leaveOutWhenMarket(reads, rounds);
    for (const read of reads) settle(ctx, symbol, read);
    return;
  }
}

/** One round of a symbol: the book's changes are collected in `reads`, to be judged by the caller. */
async function symbolRound(ctx: RunContext, plan: SymbolPlan, reads: ReadChange[]): Promise<void> {
  const { rules } = plan;
  const symbol = rules.symbol;
  if (rules.orderTypes.length > 0 && !rules.orderTypes.includes("LIMIT"))
    return note(ctx, `${symbol} takes no LIMIT orders`);
  const start = await readBook(ctx, symbol, DEPTH, `${PURPOSE}: the book of ${symbol}`);
  const bid = start?.bids[0]?.price;
  const ask = start?.asks[0]?.price;
  if (!start || bid === undefined || ask === undefined)
    return note(ctx, `${symbol}: the book has an empty side`);
  if (ask - bid < rules.tick * 3n)
    return note(ctx, `${symbol}: no room inside the spread for two levels of the run's own`);
  const first: Shown = {
    side: "BUY",
    price: bid + rules.tick,
    visible: smallestQuantity(rules, bid + rules.tick),
  };
  ctx.progress({
    type: "stage",
    message: `${PURPOSE}: orders of the run inside the spread of ${symbol}, read from the book (cancelled or filled by the run's own orders)`,
  });
  const own: OwnOrder[] = [];
  try {
    const resting = await place(ctx, symbol, first, `a LIMIT BUY one tick above the best bid`);
    if (!resting) return;
    own.push(resting);
    let book = await changed(
      ctx,
      start,
      symbol,
      { add: [first] },
      "after a LIMIT BUY was placed inside the spread",
      reads,
    );
    if (!book) return;
    if (rules.icebergAllowed && rules.tick * 3n <= ask - bid) {
      const price = bid + rules.tick * 2n;
      const iceberg: Shown = { side: "BUY", price, visible: smallestQuantity(rules, price) };
      const rounds: { when: string; off: Dec[] }[][] = [];
      for (let round = 1; round <= ICEBERG_ROUNDS && book; round++) {
        const outcome = await icebergRound(ctx, symbol, book, iceberg, own, round, rounds);
        book = outcome.book;
        if (!outcome.again) break;
      }
    } else note(ctx, `${symbol}: icebergs not allowed`);
    if ((await executedBy(ctx, resting)) > ZERO) {
      for (const read of reads) leaveOut(read, first.price, TRADED_WITH_OTHERS);
      return note(
        ctx,
        `${symbol}: others' orders traded with the run's BUY, so its fill by the run's SELL was not judged`,
      );
    }
    if (book) await fillFromOwnSell(ctx, plan, resting, first, book, reads);
  } finally {
    for (const order of own) await cancelIfOpen(ctx, order, `${PURPOSE}: cancel`);
  }
}

async function place(
  ctx: RunContext,
  symbol: string,
  shown: Shown,
  what: string,
  extra: Record<string, string> = {},
): Promise<OwnOrder | undefined> {
  const order = await placeOwn(
    ctx,
    {
      symbol,
      side: shown.side,
      type: "LIMIT",
      timeInForce: "GTC",
      price: formatDec(shown.price),
      quantity: formatDec(shown.visible),
      ...extra,
    },
    `${PURPOSE}: ${what} on ${symbol}`,
  );
  const exchange = order.placed.exchange;
  if (ok(exchange) && bodyObject(exchange)?.status === "NEW") return order;
  if (ok(exchange))
    note(
      ctx,
      `${symbol}: ${what} traded at once (${String(bodyObject(exchange)?.status)}): the market moved`,
    );
  else if (!isRateLimited(exchange))
    note(ctx, `${symbol}: ${what} was refused (${describeAnswer(exchange)})`);
  return undefined;
}

/**
 * The book after a change of the run's own, read and compared with the one before into `reads`
 * (judged at the end of the round); the new book, or undefined when it could not be read.
 */
async function changed(
  ctx: RunContext,
  before: BookView,
  symbol: string,
  change: { add?: Shown[]; remove?: Shown[] },
  when: string,
  reads: ReadChange[],
): Promise<BookView | undefined> {
  const read = await readChange(ctx, before, symbol, change, when);
  if (read) reads.push(read);
  return read?.after;
}

interface ReadChange {
  /** Levels not judged, each with the reason. */
  leftOut: Map<Dec, string>;
  before: BookView;
  after: BookView;
  change: { add?: Shown[]; remove?: Shown[] };
  result: BookJudgement;
  when: string;
}

/** The read judged again, leaving out the level at `price`, for the reason `why`. */
function leaveOut(read: ReadChange, price: Dec, why: string): void {
  read.result = bookProblems(read.before, read.after, read.change, [...read.result.leftOut, price]);
  read.leftOut.set(price, why);
}

const TRADED_WITH_OTHERS = "the run's order there traded with others' orders";

/**
 * Whether the rounds' disagreements are the market's: a target that shows the run's orders wrong
 * is off by the same amount at the same reads in every round, while others' orders that join or
 * leave the run's level do so by other amounts each time. Each round is its reads' `disagreeing`. Pure.
 */
export function marketExplains(rounds: readonly { when: string; off: Dec[] }[][]): boolean {
  const signature = (round: readonly { when: string; off: Dec[] }[]) =>
    round
      .filter((read) => read.off.length > 0)
      .map((read) => `${read.when}:${read.off.map(formatDec).join(",")}`)
      .join("|");
  return new Set(rounds.map(signature)).size > 1;
}

const MARKET_EXPLAINS =
  "it was off by another amount in each round (others' orders came to or left the run's level)";

function disagreementsOf(reads: readonly ReadChange[]): { when: string; off: Dec[] }[] {
  return reads.map((read) => ({ when: read.when, off: read.result.disagreeing.map((d) => d.off) }));
}

/**
 * Whether the excess `off` at `price` that a read after the run's order was placed showed stayed
 * there once the run's order left it (a later read that took it away): then others' orders joined
 * the run's level. A target that adds to the run's own order loses the excess with it. Pure.
 */
export function excessStayed(
  price: Dec,
  side: Shown["side"],
  off: Dec,
  later: readonly { after: Pick<BookView, "bids" | "asks">; change: { remove?: Shown[] } }[],
): boolean {
  if (off <= ZERO) return false;
  return later.some(
    (read) =>
      (read.change.remove ?? []).some((s) => s.side === side && s.price === price) &&
      quantityAt(side === "BUY" ? read.after.bids : read.after.asks, price) >= off,
  );
}

const EXCESS_STAYED =
  "others' orders joined the run's level: the excess stayed there after the run's order left";

/** Leaves out each level whose excess a later read of the round showed to be others' orders. */
function leaveOutJoined(reads: readonly ReadChange[]): void {
  reads.forEach((read, i) => {
    for (const { price, off } of read.result.disagreeing) {
      const side = read.change.add?.find((s) => s.price === price)?.side;
      if (side && excessStayed(price, side, off, reads.slice(i + 1))) leaveOut(read, price, EXCESS_STAYED);
    }
  });
}

/** Leaves out every level the rounds disagreed at, when the market explains the disagreements. */
function leaveOutWhenMarket(reads: readonly ReadChange[], rounds: { when: string; off: Dec[] }[][]): void {
  if (!marketExplains(rounds)) return;
  for (const read of reads)
    for (const { price } of read.result.disagreeing) leaveOut(read, price, MARKET_EXPLAINS);
}

/** What the order had executed by now (from an answer that states it, or query_order); 0 when unknown. */
async function executedBy(ctx: RunContext, order: OwnOrder, answer?: RoundTrip): Promise<Dec> {
  const known = answer && ok(answer) ? decimalField(bodyObject(answer), "executedQty") : undefined;
  if (known !== undefined) return known;
  const query = await queryOwn(ctx, order, `${PURPOSE}: what the run's order executed`);
  return (query && ok(query) ? decimalField(bodyObject(query), "executedQty") : undefined) ?? ZERO;
}

async function readChange(
  ctx: RunContext,
  before: BookView,
  symbol: string,
  change: { add?: Shown[]; remove?: Shown[] },
  when: string,
): Promise<ReadChange | undefined> {
  const after = await readBook(ctx, symbol, DEPTH, `${PURPOSE}: the book of ${symbol} ${when}`);
  return after
    ? { leftOut: new Map(), before, after, change, result: bookProblems(before, after, change), when }
    : undefined;
}

function settle(ctx: RunContext, symbol: string, read: ReadChange): void {
  if (!read.result.judged)
    note(ctx, `${symbol} ${read.when}: others' orders changed the book, so its levels were not judged`);
  for (const price of read.result.leftOut)
    note(
      ctx,
      `${symbol} ${read.when}: the level at ${formatDec(price)} was not judged: ${read.leftOut.get(price) ?? ""}`,
    );
  for (const price of read.result.shared)
    note(
      ctx,
      `${symbol} ${read.when}: the level at ${formatDec(price)} changed, and others' orders shared it with the run's, so it was not judged`,
    );
  judge(ctx, read.after.exchange, read.result, `order_book of ${symbol} ${read.when}`);
}

/**
 * Rounds of the iceberg's placement and cancel. Another account's order can come to (or leave)
 * the very level of the run's iceberg between two reads, where the rest of the side shows nothing;
 * a target that shows the iceberg wrong does so in every round, while such a coincidence does not
 * repeat: the other order stays at the level and is part of the next round's book before.
 */
const ICEBERG_ROUNDS = 3;

/**
 * One round: the iceberg placed, the book read, the iceberg cancelled, the book read. When a level
 * of the run's disagreed and rounds are left, nothing is judged and the round is played again.
 */
async function icebergRound(
  ctx: RunContext,
  symbol: string,
  book: BookView,
  iceberg: Shown,
  own: OwnOrder[],
  round: number,
  rounds: { when: string; off: Dec[] }[][],
): Promise<{ book: BookView | undefined; again: boolean }> {
  const placed = await place(
    ctx,
    symbol,
    { ...iceberg, visible: iceberg.visible * 2n },
    "an iceberg of two parts",
    { icebergQty: formatDec(iceberg.visible) },
  );
  if (!placed) return { book, again: false };
  own.push(placed);
  const added = await readChange(
    ctx,
    book,
    symbol,
    { add: [iceberg] },
    "after an iceberg was placed (its visible part only)",
  );
  if (!added) return { book, again: false };
  const cancel = await cancelOwn(ctx, placed, `${PURPOSE}: cancel the iceberg`);
  const removed =
    cancel && ok(cancel)
      ? await readChange(ctx, added.after, symbol, { remove: [iceberg] }, "after the iceberg was cancelled")
      : undefined;
  if ((await executedBy(ctx, placed, cancel)) > ZERO)
    for (const read of [added, removed]) if (read) leaveOut(read, iceberg.price, TRADED_WITH_OTHERS);
  const reads = removed ? [added, removed] : [added];
  leaveOutJoined(reads);
  rounds.push(disagreementsOf(reads));
  const disagreed = added.result.levelsDisagree || removed?.result.levelsDisagree === true;
  if (disagreed && removed && round < ICEBERG_ROUNDS) {
    note(
      ctx,
      `${symbol}: the iceberg's level did not hold what the run's orders show in round ${round}; others' orders may have come or gone there, so it was placed again`,
    );
    return { book: removed.after, again: true };
  }
  if (disagreed) leaveOutWhenMarket(reads, rounds);
  settle(ctx, symbol, added);
  if (removed) settle(ctx, symbol, removed);
  return { book: removed?.after, again: false };
}

/**
 * The run's resting BUY filled by its own LIMIT IOC SELL at the same price: the SELL's fills are
 * in the trade list as they were reported, and the BUY's level is gone from the book.
 */
async function fillFromOwnSell(
  ctx: RunContext,
  plan: SymbolPlan,
  resting: OwnOrder,
  shown: Shown,
  book: BookView,
  reads: ReadChange[],
): Promise<void> {
  const { rules } = plan;
  if (!rules.selfTradeAllowed)
    return note(ctx, `${rules.symbol}: self-trade prevention: the run's orders do not trade with each other`);
  const sell = await placeOwn(
    ctx,
    {
      symbol: rules.symbol,
      side: "SELL",
      type: "LIMIT",
      timeInForce: "IOC",
      price: formatDec(shown.price),
      quantity: formatDec(shown.visible),
      newOrderRespType: "FULL",
    },
    `${PURPOSE}: a LIMIT IOC SELL taking the run's BUY on ${rules.symbol}`,
  );
  const body = bodyObject(sell.placed.exchange);
  const fills = Array.isArray(body?.fills) ? (body.fills as Record<string, unknown>[]) : [];
  if (!ok(sell.placed.exchange) || fills.length === 0)
    return note(
      ctx,
      `${rules.symbol}: the run's SELL did not fill (${describeAnswer(sell.placed.exchange)})`,
    );
  // The BUY may have been taken by someone else first; then the SELL's fills are others' too.
  ctx.ledger.closed(resting.clientOrderId);
  const trades = op(ctx, "recent_trades_list");
  if (trades) {
    const list = await ctx.session.call(
      { op: trades, params: encodeParams(trades, { symbol: rules.symbol, limit: 50 }) },
      `${PURPOSE}: recent_trades_list of ${rules.symbol} after the run's fill`,
    );
    if (ok(list))
      judge(
        ctx,
        list,
        { problems: fillProblems(fills, itemsOf(list), "SELL") },
        `the trade list against the fills`,
      );
  }
  const filled = fills.reduce((sum, f) => sum + (tryParseDec(f.qty) ?? ZERO), ZERO);
  if (filled === shown.visible)
    await changed(ctx, book, rules.symbol, { remove: [shown] }, "after the run's BUY was filled", reads);
}
