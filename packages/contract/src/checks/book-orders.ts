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
 *
 * An untriggered stop is not in the book: on each symbol with a far price, a TAKE_PROFIT_LIMIT (or
 * STOP_LOSS_LIMIT) BUY whose stop is the far price is placed with its limit where the book shows
 * no level, and the book read again must not show its quantity there.
 *
 * At the end, every order_book answer of the run, whichever check or phase asked for it: two
 * answers of a symbol with the same lastUpdateId show the same book on the levels both show (the
 * id increases with every change, so one id is one book), and an answer sent after another was
 * answered never carries a smaller lastUpdateId.
 */
import { type Dec, formatDec, parseDec, tryParseDec, ZERO } from "../core/decimal.js";
import { encodeParams } from "../http/request.js";
import { bodyObject, describeAnswer, isRateLimited, ok } from "../kit/answers.js";
import { op, type RunContext, restingPlans, whyNoTrading } from "../kit/context.js";
import { type FarBuy, farPrice, type SymbolPlan, smallestQuantity } from "../kit/market.js";
import { levelsOf } from "../kit/market-view.js";
import type { Level } from "../kit/matching-model.js";
import {
  type BookView,
  cancelIfOpen,
  cancelOwn,
  decimalField,
  itemsOf,
  type OwnOrder,
  placeFar,
  placeOwn,
  quantityAt,
  queryOwn,
  readBook,
} from "../kit/own-orders.js";
import type { RoundTrip, TimedRoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "book_orders";
const PURPOSE = "book orders";
/** Levels a side read from the book: the run's orders are at the top of it. */
const DEPTH = 20;

export const bookOrders: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "book",
  description:
    "the book shows the account's resting orders at their price (an iceberg's visible part only, an untriggered stop not at all), lastUpdateId moves with every change and one id is one book, and the trade list holds the fills",
  covers: [],
  hooks: [
    { phase: "trading-behaviour", run: bookOrdersCheck },
    { phase: "end", run: judgeEveryBookVersion },
  ],
  appliesTo: (operation) => ["order_book", "recent_trades_list"].includes(operation.operationId),
  notApplicable: "does not show the book or the trades",
  seenToCatch: [
    "resting-order-missing-from-depth",
    "iceberg-whole-quantity-in-depth",
    "last-update-id-frozen",
    "trade-ids-off-by-one",
    "book-version-kept-when-only-quantity-changes",
    "untriggered-stop-limit-shown-in-book",
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

/** One served order_book answer of the run, as the judgement of its lastUpdateId reads it. */
export interface VersionedBook {
  /** The answer's place in the run's round trips (from 1) and its label, to name it. */
  n: number;
  label: string;
  symbol: string;
  lastUpdateId: number;
  bids: readonly Level[];
  asks: readonly Level[];
  /** When it was sent and answered, by the target's clock (all of one clock epoch). */
  sentAt: number;
  answeredAt: number;
}

/** Two answers whose lastUpdateIds contradict their books or their order; `later` is the one failed. */
export interface VersionFinding {
  earlier: VersionedBook;
  later: VersionedBook;
  problem: string;
}

const SIDES = ["bids", "asks"] as const;

/** How an answer is named in a message: its place in the run, its label and when it was sent. */
function answerName(book: Pick<VersionedBook, "n" | "label" | "sentAt">): string {
  return `#${book.n} "${book.label}" (sent ${new Date(book.sentAt).toISOString()})`;
}

function levelText(level: Level): string {
  return `${formatDec(level.price)} × ${formatDec(level.qty)}`;
}

/**
 * The first level where two reads of a side differ, on the levels both show (a read of 5 levels
 * and one of 100 share the first 5 a side); undefined when they agree there.
 */
function sideDifference(
  a: readonly Level[],
  b: readonly Level[],
  side: (typeof SIDES)[number],
): string | undefined {
  const shown = Math.min(a.length, b.length);
  for (let i = 0; i < shown; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.price !== y.price || x.qty !== y.qty)
      return `${side === "bids" ? "bid" : "ask"} level ${i + 1}: ${levelText(x)} against ${levelText(y)}`;
  }
  return undefined;
}

/**
 * Answers of a symbol with the same lastUpdateId that show different books: the id "increases
 * with every change of the book", so one id is one book. Each answer is compared, on the levels
 * both show, with the longest read of each side its id had before it. Pure.
 */
export function sameVersionProblems(books: readonly VersionedBook[]): VersionFinding[] {
  const longest = new Map<string, Record<(typeof SIDES)[number], VersionedBook>>();
  const findings: VersionFinding[] = [];
  for (const book of books) {
    const key = `${book.symbol}\n${book.lastUpdateId}`;
    const known = longest.get(key);
    if (!known) {
      longest.set(key, { bids: book, asks: book });
      continue;
    }
    const earlier = firstDifferent(known, book);
    if (earlier) {
      findings.push({
        earlier: earlier.book,
        later: book,
        problem: `${book.symbol}: ${answerName(earlier.book)} and ${answerName(book)} both carry lastUpdateId ${book.lastUpdateId}, but their books differ at the ${earlier.where}; the id increases with every change of the book, so one id must show one book`,
      });
      continue;
    }
    for (const side of SIDES) if (book[side].length > known[side][side].length) known[side] = book;
  }
  return findings;
}

/** The earlier read (the longest of each side) that `book` differs from, and where. */
function firstDifferent(
  known: Record<(typeof SIDES)[number], VersionedBook>,
  book: VersionedBook,
): { book: VersionedBook; where: string } | undefined {
  for (const side of SIDES) {
    const where = sideDifference(known[side][side], book[side], side);
    if (where) return { book: known[side], where };
  }
  return undefined;
}

/**
 * Answers of a symbol that carry a smaller lastUpdateId than one answered before they were sent:
 * the id only increases. Answers in flight together are not ordered, so not compared. Pure.
 */
export function versionOrderProblems(books: readonly VersionedBook[]): VersionFinding[] {
  const findings: VersionFinding[] = [];
  for (const symbol of new Set(books.map((b) => b.symbol))) {
    const mine = books.filter((b) => b.symbol === symbol);
    const bySent = [...mine].sort((a, b) => a.sentAt - b.sentAt);
    const byAnswered = [...mine].sort((a, b) => a.answeredAt - b.answeredAt);
    let answered = 0;
    let highest: VersionedBook | undefined;
    for (const later of bySent) {
      for (; answered < byAnswered.length && byAnswered[answered]!.answeredAt < later.sentAt; answered++) {
        const before = byAnswered[answered]!;
        if (!highest || before.lastUpdateId > highest.lastUpdateId) highest = before;
      }
      if (highest && highest.lastUpdateId > later.lastUpdateId)
        findings.push({
          earlier: highest,
          later,
          problem: `${symbol}: ${answerName(later)} carries lastUpdateId ${later.lastUpdateId}, below the ${highest.lastUpdateId} of ${answerName(highest)}, answered before it was sent; the id increases with every change of the book and never goes back`,
        });
    }
  }
  return findings;
}

/**
 * What is wrong with the book after an untriggered stop-limit order was placed: the level at its
 * limit price grew by exactly its quantity (`before` and `after` read `depth` levels a side).
 * Growth by exactly the stop's quantity is the failure, so that others' orders coming to or
 * leaving that price do not raise it; not judged when either read does not reach the price. Pure.
 */
export function untriggeredStopProblems(
  before: Pick<BookView, "bids" | "asks">,
  after: Pick<BookView, "bids" | "asks">,
  stop: Shown & { type: string; stopPrice: Dec },
  depth: number,
): { judged: boolean; problems: string[] } {
  const levels = (book: Pick<BookView, "bids" | "asks">) => (stop.side === "BUY" ? book.bids : book.asks);
  if (!reaches(levels(before), stop, depth) || !reaches(levels(after), stop, depth))
    return { judged: false, problems: [] };
  const was = quantityAt(levels(before), stop.price);
  const is = quantityAt(levels(after), stop.price);
  if (is - was !== stop.visible) return { judged: true, problems: [] };
  return {
    judged: true,
    problems: [
      `the ${stop.side === "BUY" ? "bid" : "ask"} level at ${formatDec(stop.price)} grew from ${formatDec(was)} to ${formatDec(is)}, by the quantity of the run's ${stop.type} ${stop.side} placed there (stop ${formatDec(stop.stopPrice)}, not triggered); a stop order is not working before its stop triggers (workingTime -1), so it is not in the book`,
    ],
  };
}

/** Whether a read of `depth` levels a side would show a level at the stop's price if there were one. */
function reaches(levels: readonly Level[], stop: Pick<Shown, "side" | "price">, depth: number): boolean {
  const last = levels.at(-1);
  if (levels.length < depth || !last) return true;
  return stop.side === "BUY" ? last.price <= stop.price : last.price >= stop.price;
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
  for (const plan of restingPlans(ctx)) await untriggeredStopOnSymbol(ctx, plan);
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

/** Levels a side read around the run's stop (the most a read of the lightest weight shows). */
const STOP_DEPTH = 100;
/** Prices tried, a tick apart from the far one toward the market, for one where the book shows no level. */
const STOP_PRICE_TRIES = 10;

/** A stop-limit BUY the market cannot trigger: its type and its stop price. */
interface UntriggeredStop {
  type: "TAKE_PROFIT_LIMIT" | "STOP_LOSS_LIMIT";
  stopPrice: Dec;
}

/**
 * The stop-limit BUY of `plan` whose stop the market does not reach: a TAKE_PROFIT_LIMIT BUY fires
 * when the last price falls to its stop, so its stop is the far BUY price (`far`); a
 * STOP_LOSS_LIMIT BUY fires when the last price rises to its stop, so its stop is the far price
 * above the market. Both are prices PRICE_FILTER takes (farPrice keeps them inside it).
 */
function untriggeredStopOf(plan: SymbolPlan, far: Dec): UntriggeredStop | undefined {
  const listed = (type: string) => plan.rules.orderTypes.length === 0 || plan.rules.orderTypes.includes(type);
  if (listed("TAKE_PROFIT_LIMIT")) return { type: "TAKE_PROFIT_LIMIT", stopPrice: far };
  const above = plan.reference !== undefined ? farPrice(plan.rules, plan.reference, "SELL") : undefined;
  if (listed("STOP_LOSS_LIMIT") && above !== undefined) return { type: "STOP_LOSS_LIMIT", stopPrice: above };
  return undefined;
}

/**
 * The limit price of the run's stop-limit BUY: a price where a read of `depth` bids shows no level,
 * so that a level there can be told as the run's. The far price (or one of the STOP_PRICE_TRIES
 * ticks above it) when the read reaches it; else, where the far price lies past what the read
 * shows (a deep book), the deepest price the read shows empty: a tick above a shown level, below
 * the next shown one. Either is below the best bid, so it trades with nothing even if working, and
 * no lower than the far price the filters take. Undefined when the read shows no such price. Pure.
 */
export function emptyBidPrice(bids: readonly Level[], far: Dec, tick: Dec, depth: number): Dec | undefined {
  if (reaches(bids, { side: "BUY", price: far }, depth)) {
    for (let i = 0n; i < BigInt(STOP_PRICE_TRIES); i++) {
      const price = far + tick * i;
      if (quantityAt(bids, price) === ZERO) return price;
    }
    return undefined;
  }
  for (let i = bids.length - 1; i > 0; i--) {
    const price = bids[i]!.price + tick;
    if (price < bids[i - 1]!.price) return price;
  }
  return undefined;
}

/**
 * On a symbol with a far price: a stop-limit BUY whose stop the market cannot reach, with its limit
 * where the book showed no level, must not show in the book read after it; then it is cancelled.
 */
async function untriggeredStopOnSymbol(
  ctx: RunContext,
  plan: SymbolPlan & { farBuy: FarBuy },
): Promise<void> {
  const { rules } = plan;
  const symbol = rules.symbol;
  const before = await readBook(ctx, symbol, STOP_DEPTH, `${PURPOSE}: the book of ${symbol} before a stop`);
  if (!before) return;
  const far = parseDec(plan.farBuy.price);
  const price = emptyBidPrice(before.bids, far, rules.tick, STOP_DEPTH);
  if (price === undefined)
    return note(
      ctx,
      `${symbol}: the book's first ${STOP_DEPTH} bids show no price without a level from ${plan.farBuy.price} up, so no untriggered stop was placed`,
    );
  const kind = untriggeredStopOf(plan, far);
  if (!kind) return note(ctx, `${symbol} takes no stop-limit order that the run can keep from triggering`);
  const stop = { ...kind, side: "BUY" as const, price, visible: smallestQuantity(rules, price) };
  ctx.progress({
    type: "stage",
    message: `${PURPOSE}: a ${stop.type} BUY of the run on ${symbol} with its stop far from the market, which must not show in the book before it triggers (then cancelled)`,
  });
  const what = `a ${stop.type} BUY at ${formatDec(price)}, stop ${formatDec(stop.stopPrice)}, that the market cannot trigger`;
  const order = await placeFar(
    ctx,
    { symbol, price: formatDec(price), quantity: formatDec(stop.visible) },
    `${PURPOSE}: ${what} on ${symbol}`,
    { type: stop.type, stopPrice: formatDec(stop.stopPrice) },
  );
  try {
    if (!restsUntriggered(ctx, order.placed.exchange, `${symbol}: ${what}`)) return;
    const after = await readBook(ctx, symbol, STOP_DEPTH, `${PURPOSE}: the book of ${symbol} with ${what}`);
    if (!after) return;
    const query = await queryOwn(ctx, order, `${PURPOSE}: the stop not triggered yet`);
    if (query && !restsUntriggered(ctx, query, `${symbol}: after the book was read, ${what}`)) return;
    const result = untriggeredStopProblems(before, after, stop, STOP_DEPTH);
    if (!result.judged)
      return note(
        ctx,
        `${symbol}: the book read does not reach ${formatDec(price)}, so ${what} was not looked for`,
      );
    judge(ctx, after.exchange, result, `order_book of ${symbol} with the run's untriggered stop`);
  } finally {
    await cancelIfOpen(ctx, order, `${PURPOSE}: cancel the stop`);
  }
}

/**
 * Whether an answer shows the run's stop resting untriggered (NEW, not working); otherwise the
 * book is not judged, and why is noted (refused, or fired: stop_triggers judges stops firing).
 */
function restsUntriggered(ctx: RunContext, exchange: RoundTrip, what: string): boolean {
  if (!ok(exchange)) {
    if (!isRateLimited(exchange)) note(ctx, `${what} was refused or unread (${describeAnswer(exchange)})`);
    return false;
  }
  const body = bodyObject(exchange) ?? {};
  const working =
    body.isWorking === true || (typeof body.workingTime === "number" && body.workingTime !== -1);
  if (body.status === "NEW" && !working) return true;
  note(
    ctx,
    `${what} is ${String(body.status)}${working ? ", working" : ""}: not an untriggered stop, so the book was not judged by it`,
  );
  return false;
}

/**
 * At the end of the run: every served order_book answer, whichever check or phase asked for it.
 * Answers of one symbol with one lastUpdateId show one book, and none carries a smaller id than
 * one answered before it was sent. Times and ids compare within one clock epoch of the session
 * only: a sandbox whose clock was moved may have been reset, and its ids started again.
 */
async function judgeEveryBookVersion(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK)) return;
  const { timeline } = ctx.session;
  const epochs = servedBooks(timeline);
  const findings = [...epochs.values()].map((books) => ({
    same: sameVersionProblems(books),
    order: versionOrderProblems(books),
  }));
  const same = findings.flatMap((f) => f.same);
  const order = findings.flatMap((f) => f.order);
  const exchangeOf = (book: VersionedBook) => timeline[book.n - 1]!.exchange;
  const first = (list: VersionFinding[], what: string) => {
    const finding = list[0];
    if (finding)
      ctx.session.fail(
        CHECK,
        exchangeOf(finding.later),
        `${finding.problem} (${list.length} ${what} in the run)`,
      );
  };
  first(same, "answer(s) show another book than one with the same lastUpdateId");
  first(order, "answer(s) carry a smaller lastUpdateId than one answered before they were sent");
  const last = [...epochs.values()].flat().at(-1);
  if (same.length === 0 && order.length === 0 && last) ctx.session.pass(CHECK, exchangeOf(last));
}

/** The served order_book answers of the timeline, by the session's clock epoch, in the run's order. */
function servedBooks(timeline: readonly TimedRoundTrip[]): Map<number, VersionedBook[]> {
  const epochs = new Map<number, VersionedBook[]>();
  timeline.forEach((entry, i) => {
    const book = versionedBook(entry, i + 1);
    if (!book) return;
    const books = epochs.get(entry.clock) ?? [];
    books.push(book);
    epochs.set(entry.clock, books);
  });
  return epochs;
}

/** An order_book answer as the version judgement reads it; undefined when not a served book of one symbol. */
function versionedBook(entry: TimedRoundTrip, n: number): VersionedBook | undefined {
  const { exchange } = entry;
  if (exchange.op.operationId !== "order_book" || !ok(exchange) || exchange.request.method !== "GET")
    return undefined;
  // One symbol asked, in the query: a request with two, or with more in its body, may be answered for either.
  const symbols = exchange.plan.params.filter(([name]) => name === "symbol");
  if (symbols.length !== 1 || exchange.plan.wire?.alsoInBody) return undefined;
  const body = bodyObject(exchange);
  const id = body?.lastUpdateId;
  if (!body || typeof id !== "number" || !Number.isSafeInteger(id)) return undefined;
  return {
    n,
    label: exchange.case,
    symbol: symbols[0]![1],
    lastUpdateId: id,
    bids: levelsOf(body.bids),
    asks: levelsOf(body.asks),
    sentAt: entry.sentAt,
    answeredAt: entry.answeredAt,
  };
}
