/**
 * trade_statistics (x-relations tradeWindows): statistics an answer reports (the 24-hour ticker,
 * the average price) are the functions of the trades in their window, computed here from the
 * trades the spec's trade source lists. Only what the reads prove is judged:
 * - a window the answer states (start and end) is compared with the trades whose ids existed before
 *   the answer was read; a newer trade that falls inside it makes the reads inconclusive;
 * - a window of the last `minutes` ends when the server made the answer, which `server_time` read
 *   before and after brackets; a trade whose time falls where the window's start could have been,
 *   or a trade between the reads, makes them inconclusive;
 * inconclusive reads are made again, at most ATTEMPTS times, then noted as not judged. A window
 * with more trades than one page of the trade source is noted, not judged; so is an average over
 * an empty window (the spec leaves it open).
 */
import type { TradeWindow, WindowMeasure } from "@marketapi/spec/model";
import { type Dec, formatDec, tryParseDec, unitOf, ZERO } from "../core/decimal.js";
import { bodyObject } from "../kit/answers.js";
import { valueAt } from "../kit/behaviour-support.js";
import { op, type RunContext, tradedSymbols, whyNoTrading } from "../kit/context.js";
import { quantityForExactAverage, rulesFor, smallestQuantity } from "../kit/market.js";
import { spreadWithRoom, tradeBetweenOwn } from "../kit/own-orders.js";
import {
  ATTEMPTS,
  judged,
  named,
  newestTradeId,
  newestTrades,
  placesOf,
  readAnswer,
  relationsOf,
  type TradeRow,
  tradePage,
  tradesBetween,
  unjudged,
} from "../kit/relations-support.js";
import { measureProblems, measuresOf, recentWindowTrades } from "../kit/trade-windows.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "trade_statistics";
/** Trades read to cover a window: one page of the trade source at most. */
const WINDOW_TRADES = 1000;

export const tradeStatistics: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "stats",
  description:
    "the 24-hour statistics and the average price are the functions of the trades in their windows (x-relations)",
  covers: ["x-relations"],
  hooks: [{ phase: "relation", run: tradeStatisticsCheck }],
  appliesTo: named((relations) => relations.tradeWindows.map((window) => window.operation)),
  notApplicable: "x-relations states no trade window of it",
  seenToCatch: [
    "ticker24hr-volume-misses-newest",
    "ticker24hr-count-off-by-one",
    "avgPrice-closeTime-now",
    "avgPrice-exact-one-unit-low",
    "avgPrice-whole-units-on-ethusdt",
    "ticker24-last-qty-of-the-aggregate-on-ethbtc",
  ],
};

export async function tradeStatisticsCheck(ctx: RunContext): Promise<void> {
  const relations = relationsOf(ctx);
  if (!relations) return;
  // Every symbol the run trades: each has its own trades and statistics.
  for (const symbol of tradedSymbols(ctx)) {
    const how = await newestOfSeveral(ctx, symbol);
    for (const window of relations.tradeWindows) await judgeWindow(ctx, window, symbol, how);
  }
  for (const window of relations.tradeWindows) await exactAverage(ctx, window);
}

/** Makers of the run's own that one taker of its own fills at one price: the newest trades share a taker. */
const MAKERS_OF_ONE_TAKER = 2;

/**
 * Where the run may move the last price (stop_triggers' rule): one taker of the run's own fills
 * MAKERS_OF_ONE_TAKER makers of its own at one price inside the spread, so the newest trade is
 * one of several that share a taker and a price (one aggregate trade): a statistic of the newest
 * trade taken from the aggregate, or from the taker's order, shows their sum. Says how, or "".
 */
async function newestOfSeveral(ctx: RunContext, symbol: string): Promise<string> {
  const rules = rulesFor(ctx.market, symbol);
  if (whyNoTrading(ctx) !== undefined || !ctx.movePrices || !rules?.selfTradeAllowed) return "";
  const spread = await spreadWithRoom(ctx, rules, 2n, `${CHECK}: the book of ${symbol}`);
  if (!spread) return "";
  const price = formatDec(spread.bid + rules.tick);
  const quantity = formatDec(smallestQuantity(rules, spread.bid + rules.tick));
  const traded = await tradeBetweenOwn(ctx, symbol, price, quantity, CHECK, MAKERS_OF_ONE_TAKER);
  if (traded?.untaken) ctx.session.fail(CHECK, traded.taker.placed.exchange, traded.untaken);
  return traded
    ? `, after one taker of the run's took ${MAKERS_OF_ONE_TAKER} makers of its own at ${price}`
    : "";
}

/** A window's answer and its trades, read again while inconclusive (at most ATTEMPTS times). */
async function readWindow(ctx: RunContext, window: TradeWindow, symbol: string): Promise<Outcome> {
  let outcome: Outcome = { inconclusive: "not read" };
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    outcome =
      "minutes" in window.window
        ? await recentWindow(ctx, window, symbol)
        : await statedWindow(ctx, window, symbol);
    if (!("inconclusive" in outcome)) break;
  }
  return outcome;
}

/** Reads a window's answer and its trades and judges what they prove; `how` says how the window was made. */
async function judgeWindow(ctx: RunContext, window: TradeWindow, symbol: string, how = ""): Promise<void> {
  if (!op(ctx, window.operation)) return;
  const trades = relationsOf(ctx)?.trades;
  const on = [window.operation, ...(trades ? [trades.operation] : [])];
  const covered = (why?: string) =>
    why === undefined ? judged(ctx, window.name, on) : unjudged(ctx, window.name, on, why);
  const outcome = await readWindow(ctx, window, symbol);
  const name = `${window.name} of ${symbol}`;
  if ("inconclusive" in outcome) {
    covered(`${outcome.inconclusive}, on each of ${ATTEMPTS} reads`);
    ctx.session.recorder.note(CHECK, window.operation, `${name}: ${outcome.inconclusive}; not judged`);
    return;
  }
  if ("expected" in outcome) {
    covered();
    ctx.session.recorder.note(CHECK, window.operation, `${name}: ${outcome.partly}`);
    judge(
      ctx,
      window,
      symbol,
      outcome.exchange,
      outcome.expected,
      outcome.problems,
      "its first and last trades",
    );
    return;
  }
  if ("unjudged" in outcome) {
    covered(outcome.unjudged);
    ctx.session.recorder.note(CHECK, window.operation, `${name}: ${outcome.unjudged}`);
    return;
  }
  covered();
  if (outcome.trades.length === 0) judgeEmpty(ctx, window, outcome.exchange);
  else
    judge(
      ctx,
      window,
      symbol,
      outcome.exchange,
      measuresOf(outcome.trades),
      [],
      `the ${outcome.trades.length} trades of the window (ids ${outcome.trades[0]?.id}–${outcome.trades.at(-1)?.id})${how}`,
    );
}

/**
 * Where the run may move the last price (stop_triggers' rule): the run trades with itself once
 * inside the spread of its symbol, sized so that the window's exact weighted average lands on the
 * last place the answer shows it with (quantityForExactAverage), and judges the window again. An
 * average off by one unit there is a fault whether the target rounds or truncates; elsewhere the
 * exact average lies between two places and one unit either way passes.
 */
async function exactAverage(ctx: RunContext, window: TradeWindow): Promise<void> {
  const pointer = window.measures.weightedAverage;
  if (pointer === undefined || whyNoTrading(ctx) !== undefined || !ctx.movePrices) return;
  const note = (what: string) =>
    ctx.session.recorder.note(CHECK, window.operation, `${window.name}, its average made exact: ${what}`);
  const plan = ctx.symbols.find((p) => p.rules.symbol === ctx.values.symbol);
  if (!plan?.rules.selfTradeAllowed) return note("the run's orders may not trade with each other here");
  const read = await readWindow(ctx, window, plan.rules.symbol);
  if (!("trades" in read) || read.trades.length === 0)
    return note("its trades could not all be read; not made");
  const shown = valueAt(read.exchange.response?.json, pointer);
  if (typeof shown !== "string" || tryParseDec(shown) === undefined)
    return note(`${pointer} is not a decimal; not made`);
  const { rules } = plan;
  const spread = await spreadWithRoom(ctx, rules, 2n, `${CHECK}: the book of ${rules.symbol}`);
  if (!spread) return note(`no room inside the spread of ${rules.symbol}`);
  const price = spread.bid + rules.tick;
  const sums = read.trades.reduce((s, t) => ({ qty: s.qty + t.qty, quote: s.quote + t.quoteQty }), {
    qty: ZERO,
    quote: ZERO,
  });
  const quantity = quantityForExactAverage(rules, sums, price, unitOf(placesOf(shown.trim())));
  if (quantity === undefined) return note(`no quantity within reach lands it on ${shown}'s last place`);
  const traded = await tradeBetweenOwn(ctx, rules.symbol, formatDec(price), formatDec(quantity), CHECK);
  if (!traded) return note(`the run's trade at ${formatDec(price)} did not happen`);
  if (traded.untaken) ctx.session.fail(CHECK, traded.taker.placed.exchange, traded.untaken);
  await judgeWindow(
    ctx,
    window,
    rules.symbol,
    `, after the run's trade of ${formatDec(quantity)} at ${formatDec(price)} made their average exact to its last place`,
  );
}

type Outcome =
  | { inconclusive: string }
  | { unjudged: string }
  | { exchange: RoundTrip; trades: TradeRow[] }
  /** Judged at the window's edges only: the values expected there, and why the rest is not. */
  | {
      exchange: RoundTrip;
      expected: Partial<Record<WindowMeasure, Dec | number>>;
      problems: string[];
      partly: string;
    };

/** A window whose bounds the answer states: the trades from its start to its end, both included. */
async function statedWindow(ctx: RunContext, window: TradeWindow, symbol: string): Promise<Outcome> {
  const bounds = window.window as { start: string; end: string };
  const name = `${window.name} of ${symbol}`;
  const before = await newestTradeId(ctx, CHECK, `${name}: the newest trade id before`, symbol);
  if (before === undefined) return { unjudged: "the trades could not be read" };
  const served = await readAnswer(ctx, CHECK, window.operation, { symbol }, `${name}: the answer`);
  if (!served) return { unjudged: "no answer" };
  const start = valueAt(served.json, bounds.start);
  const end = valueAt(served.json, bounds.end);
  if (typeof start !== "number" || typeof end !== "number")
    return { unjudged: `the answer holds no window (${bounds.start}, ${bounds.end})` };
  const trades = await newestTrades(ctx, CHECK, WINDOW_TRADES, `${name}: the trades of the window`, symbol);
  if (!trades) return { unjudged: "the trades could not be read" };
  const late = trades.filter((t) => (before === null || t.id > before) && t.time <= end);
  if (late.length > 0) return { inconclusive: `trade ${late[0]?.id} happened while the answer was made` };
  if (!coversFrom(ctx, trades, start))
    return boundaries(ctx, window, served.exchange, before, start, end, trades.length, symbol);
  return {
    exchange: served.exchange,
    trades: trades.filter((t) => t.time >= start && t.time <= end && (before === null || t.id <= before)),
  };
}

/**
 * A window of the last `minutes` before the answer: the trades from (server time − minutes) on,
 * the server time bracketed by two reads of server_time.
 */
async function recentWindow(ctx: RunContext, window: TradeWindow, symbol: string): Promise<Outcome> {
  const pointer = (window.window as { minutes: string }).minutes;
  const name = `${window.name} of ${symbol}`;
  const first = await serverTime(ctx);
  if (first === undefined) return { unjudged: "server_time gives no time to place the window" };
  const before = await newestTradeId(ctx, CHECK, `${name}: the newest trade id before`, symbol);
  const served = await readAnswer(ctx, CHECK, window.operation, { symbol }, `${name}: the answer`);
  const after = await newestTradeId(ctx, CHECK, `${name}: the newest trade id after`, symbol);
  const last = await serverTime(ctx);
  if (!served || before === undefined || after === undefined || last === undefined)
    return { unjudged: "the answer or the trades could not be read" };
  if (after !== before) return { inconclusive: "a trade happened while the answer was made" };
  const minutes = valueAt(served.json, pointer);
  if (typeof minutes !== "number" || minutes <= 0)
    return { unjudged: `the answer holds no window (${pointer})` };
  const span = minutes * 60_000;
  const trades = await newestTrades(ctx, CHECK, WINDOW_TRADES, `${name}: the trades of the window`, symbol);
  if (!trades) return { unjudged: "the trades could not be read" };
  const known = trades.filter((t) => before === null || t.id <= before);
  const { inside, edge } = recentWindowTrades(known, { from: first, to: last }, span);
  if (edge)
    return {
      inconclusive: `trade ${edge.id} is at the window's start, which the server's clock leaves open`,
    };
  if (!coversFrom(ctx, trades, first - span))
    return { unjudged: `more than ${trades.length} trades in the window` };
  if (inside.length === 0) return { unjudged: "no trade in the window: the average of none is left open" };
  return { exchange: served.exchange, trades: inside };
}

/** Whether the newest trades read reach back before `time` (or are every trade there is). */
function coversFrom(ctx: RunContext, trades: TradeRow[], time: number): boolean {
  return trades.length < Math.min(WINDOW_TRADES, tradePage(ctx)) || (trades[0]?.time ?? 0) < time;
}

async function serverTime(ctx: RunContext): Promise<number | undefined> {
  const time = op(ctx, "server_time");
  if (!time) return undefined;
  const exchange = await ctx.session.call({ op: time, params: [] }, "trade statistics: the server's time");
  const value = bodyObject(exchange)?.serverTime;
  return typeof value === "number" ? value : undefined;
}

function judgeEmpty(ctx: RunContext, window: TradeWindow, exchange: RoundTrip): void {
  const json = exchange.response?.json;
  const problems = Object.entries(window.empty)
    .filter(([pointer, value]) => valueAt(json, pointer) !== value)
    .map(
      ([pointer, value]) =>
        `${pointer} is ${JSON.stringify(valueAt(json, pointer))}; with no trade in the window, ${value}`,
    );
  if (problems.length === 0) ctx.session.pass(CHECK, exchange);
  else ctx.session.fail(CHECK, exchange, `${window.name}: ${problems.join("; ")}`);
}

/** Compares each measure `symbol`'s answer reports with the value `from` gives, where it gives one. */
function judge(
  ctx: RunContext,
  window: TradeWindow,
  symbol: string,
  exchange: RoundTrip,
  expected: Partial<Record<WindowMeasure, Dec | number>>,
  problems: string[],
  from: string,
): void {
  const tick = rulesFor(ctx.market, symbol)?.tick;
  problems.push(...measureProblems(window, exchange.response?.json, expected, from, tick));
  if (problems.length === 0) ctx.session.pass(CHECK, exchange);
  else ctx.session.fail(CHECK, exchange, `${window.name}: ${problems.join("; ")}`);
}

/**
 * A window with more trades than one page: judged at its edges. The trades the answer names as its
 * first and last must lie inside the window, and their neighbours outside; the count must span the
 * ids between (the trade source's ids are contiguous); the first and last prices and quantity are
 * theirs. The sums and extremes are not judged (noted).
 */
async function boundaries(
  ctx: RunContext,
  window: TradeWindow,
  exchange: RoundTrip,
  before: number | null,
  start: number,
  end: number,
  read: number,
  symbol: string,
): Promise<Outcome> {
  const partly = `more than ${read} trades in the window: judged at its first and last trades only`;
  const json = exchange.response?.json;
  const firstPointer = window.measures.firstId;
  const lastPointer = window.measures.lastId;
  const first = firstPointer === undefined ? undefined : valueAt(json, firstPointer);
  const last = lastPointer === undefined ? undefined : valueAt(json, lastPointer);
  if (typeof first !== "number" || typeof last !== "number" || first < 0 || last < first || before === null)
    return {
      unjudged: `more than ${read} trades in the window, and no first and last trade ids to judge its edges by`,
    };
  if (last > before) return { inconclusive: `its last trade ${last} happened while the answer was made` };
  const head = await tradesBetween(
    ctx,
    CHECK,
    Math.max(0, first - 1),
    first,
    `${window.name} of ${symbol}: its first trade`,
    1,
    symbol,
  );
  const tail = await tradesBetween(
    ctx,
    CHECK,
    last,
    Math.min(last + 1, before),
    `${window.name} of ${symbol}: its last trade`,
    1,
    symbol,
  );
  if (!head || !tail) return { unjudged: "the trades at its edges could not be read" };
  const at = (rows: TradeRow[], id: number) => rows.find((t) => t.id === id);
  const [firstTrade, lastTrade] = [at(head, first), at(tail, last)];
  const problems: string[] = [];
  if (!firstTrade || !lastTrade) problems.push(`its first or last trade (${first}, ${last}) is not listed`);
  const outside = (t: TradeRow | undefined, side: "before" | "after") =>
    t !== undefined && (side === "before" ? t.time >= start : t.time <= end);
  if (firstTrade && (firstTrade.time < start || firstTrade.time > end))
    problems.push(`its first trade ${first} is at ${firstTrade.time}, outside ${start}–${end}`);
  if (lastTrade && (lastTrade.time < start || lastTrade.time > end))
    problems.push(`its last trade ${last} is at ${lastTrade.time}, outside ${start}–${end}`);
  if (outside(at(head, first - 1), "before"))
    problems.push(
      `trade ${first - 1} is at ${at(head, first - 1)?.time}, inside the window, but the window starts at ${first}`,
    );
  if (outside(at(tail, last + 1), "after"))
    problems.push(
      `trade ${last + 1} is at ${at(tail, last + 1)?.time}, inside the window, but the window ends at ${last}`,
    );
  const contiguous =
    op(ctx, relationsOf(ctx)?.trades?.operation ?? "")?.behaviour.cursorPaging?.contiguous === true;
  const expected: Partial<Record<WindowMeasure, Dec | number>> = {};
  if (contiguous) expected.count = last - first + 1;
  if (firstTrade && lastTrade) {
    const edges = measuresOf([firstTrade, lastTrade]);
    for (const measure of [
      "firstPrice",
      "lastPrice",
      "lastQty",
      "lastTime",
      "change",
      "changePercent",
    ] as const)
      expected[measure] = edges[measure];
  }
  return { exchange, expected, problems, partly };
}
