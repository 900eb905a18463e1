/**
 * account_views: the account views a target serves beyond the API's operations (balances, the
 * account's trades, candles; kit/account-views.ts), judged against what the run can see of the
 * market, when the target serves them (a live exchange does; the reference server describes them
 * in its sandbox document). A target that answers them with anything but 200 is skipped, saying so.
 * - klines: every 1-minute candle whose trades the trade list holds shows their open, high, low,
 *   close, volumes, count and taker-buy volumes (the trades read before and after it the same);
 *   a startTime inside a candle gives the candles opening at or after it; in UTC and in a time
 *   zone of no whole hour west and east of it, every interval's candles open on its boundaries (`1w` from Monday,
 *   `1M` from the first) with no gap, and each closed candle is the shorter ones it covers, folded;
 *   an interval the document does not list (`2m`, or `1H`: case-sensitive) is refused with -1120;
 *   a read without startTime or endTime ends with the candle that holds the server's time
 *   (currentCandleProblem, between server_time read before and after);
 * - myTrades: each of the account's trades is the public trade of its id (price, qty, quote qty,
 *   time, maker side); `orderId` lists exactly that order's trades, `fromId` those from it on;
 *   every order that had ended before the read has trades adding up to what it executed (a trade
 *   between two of the account's orders is listed for each);
 *   its commission is paid in what the trade brings, at the account's rate for its role
 *   (account_information's commissionRates), and each fill of the run's new orders is the
 *   account's trade of its id as taker (price, qty, commission and its asset);
 * - account: valid by the document (uid from 1), its balances sorted by asset, omitZeroBalances leaves out exactly the zero
 *   balances, what is locked is what its open orders hold (read while a far stop of the run
 *   rests: a stop locks what its limit or market counterpart would), and an account whose orders
 *   traded with each other does not require self-trade prevention; what it holds of each asset
 *   (free and locked) moves by exactly what its trades on the run's symbols did: quantities,
 *   quote quantities and commissions (heldMoveProblems), from the far stop's rest to after its
 *   cancel, and from this phase to the run's end (the exploration trades between);
 * - the used-weight counter grows by at least each view's stated weight (x-weight, with orderId
 *   5, without 20), where two reads fall in one counter window.
 */
import { tryParseDec, ZERO } from "../core/decimal.js";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import {
  type AccountTrade,
  accountTradeOf,
  accountTradeProblems,
  type BalanceRow,
  balancesOf,
  type Candle,
  candleOf,
  candleProblems,
  commissionProblems,
  commissionRatesOf,
  type ExecutedOrder,
  executedWithoutTrades,
  fillProblems,
  fillsOf,
  heldMoveProblems,
  lockedProblems,
  MY_TRADES_MAX_SPAN_MS,
  type OpenOrderRow,
  omittedZeroProblems,
  openOrderOf,
  staleUpdateTime,
  type TradeOfPair,
  tradeEffects,
  tradesInWindow,
  tradesOutOfOrder,
  unsortedBalances,
  VIEWS,
  viewOperation,
  viewSchemaProblems,
} from "../kit/account-views.js";
import { bodyObject, describeAnswer, isRateLimited, ok } from "../kit/answers.js";
import {
  alignmentProblems,
  coveringCandles,
  currentCandleProblem,
  foldProblems,
  intervalCut,
  zoneMinutesOf,
} from "../kit/candle-intervals.js";
import { readServerClock } from "../kit/clock.js";
import { op, type RunContext, whyNoTrading } from "../kit/context.js";
import { countersOf, counterValue, sameWindow } from "../kit/counters.js";
import { explorationView, specOrderTypes } from "../kit/market-view.js";
import { FINAL_STATUSES } from "../kit/matching-model.js";
import { ORDER_OPERATIONS } from "../kit/order-operations.js";
import { farShape } from "../kit/order-shapes.js";
import { cancelIfOpen, type OwnOrder, placeOwn } from "../kit/own-orders.js";
import { ATTEMPTS, newestTradeId, newestTrades, type TradeRow, tradePage } from "../kit/relations-support.js";
import type { Values } from "../kit/values.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "account_views";
const PURPOSE = "account views";
/** Trades read to cover the candles and the account's trades: one page of the trade source at most. */
const TRADES = 1000;

export const accountViews: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "accviews",
  description:
    "the account views beyond the API (account, myTrades, klines), where served, agree with the trades and orders the run sees",
  covers: [],
  hooks: [
    { phase: "relation", run: accountViewsCheck },
    { phase: "end", run: heldAfterTrading },
  ],
  appliesTo: (operation) => ["recent_trades_list", "open_orders"].includes(operation.operationId),
  notApplicable: "the account views are judged against the trade list and the open orders only",
  seenToCatch: [
    "klines-taker-buy-counts-every-trade",
    "klines-low-unwritten",
    "klines-start-inside-candle",
    "klines-weeks-from-thursday",
    "klines-time-zone-ignored",
    "myTrades-commission-zero",
    "fills-commission-unwritten",
    "myTrades-weight-5-always",
    "account-uid-unset",
    "account-requires-stp",
    "account-locked-without-orders",
    "myTrades-maker-side-flipped",
    "myTrades-orderId-ignored",
    "account-balances-in-listing-order",
    "self-trade-listed-for-the-taker-only",
    "my-trades-listed-by-order",
    "account-update-time-of-its-first-order",
    "my-trades-end-time-alone-from-the-oldest",
    "my-trades-unsupported-windows-served",
    "klines-end-time-bounds-the-close-time",
    "taker-commission-not-taken-from-balance",
    "klines-unknown-interval-served-as-one-minute",
    "klines-start-time-page-one-short",
    "stop-locks-shown-free",
  ],
};

/**
 * The API operation a view's verdict is shown on (the report's rows are the API's operations):
 * the account's balances against its open orders, its trades and the candles against the trade list.
 */
function judgedOn(view: string): string {
  return view === VIEWS.account ? "open_orders" : "recent_trades_list";
}

/** The view's exchange, shown on the API operation it is judged against (when the spec has it). */
function shownOn(views: Views, exchange: RoundTrip): RoundTrip {
  const api = op(views.ctx, judgedOn(exchange.op.operationId));
  return api ? { ...exchange, op: api } : exchange;
}

function pass(views: Views, exchange: RoundTrip): void {
  views.ctx.session.pass(CHECK, shownOn(views, exchange));
}

function fail(views: Views, exchange: RoundTrip, message: string): void {
  views.ctx.session.fail(CHECK, shownOn(views, exchange), `${exchange.op.operationId}: ${message}`);
}

/** The items of a list answer (none when it is not a list). */
function listOf(exchange: RoundTrip | undefined): unknown[] {
  const json = exchange?.response?.json;
  return Array.isArray(json) ? json : [];
}

/** The last answer of a view and when it came, for the weight counter. */
interface Read {
  exchange: RoundTrip;
  at: number;
}

interface Views {
  ctx: RunContext;
  symbol: string;
  previous?: Read;
}

async function accountViewsCheck(ctx: RunContext): Promise<void> {
  if (!ctx.session.recorder.enabled(CHECK)) return;
  const views: Views = { ctx, symbol: String(ctx.values.symbol) };
  const probe = await call(views, VIEWS.klines, { interval: "1m", limit: 1 }, "is it served?");
  if (!probe) return;
  if (probe.response?.status !== 200) {
    const why = `the target does not serve the account views (klines answered ${probe.response?.status ?? "nothing"}): a live exchange does; not judged`;
    for (const id of ["recent_trades_list", "open_orders"]) ctx.session.recorder.skip(CHECK, id, why);
    return;
  }
  await candles(views);
  await startInsideCandle(views);
  for (const zone of ZONES) await candleIntervals(views, zone);
  await unknownIntervals(views);
  if (!ctx.session.credentials) {
    ctx.session.recorder.skip(
      CHECK,
      VIEWS.account,
      "no credentials: the account and its trades are signed reads",
    );
    return;
  }
  const mine = await accountTrades(views);
  const resting = await account(views, mine);
  const held = await steadyHoldings(views, "held before the exploration");
  if (typeof held === "string")
    ctx.session.recorder.note(CHECK, judgedOn(VIEWS.account), `what the account holds: ${held}; not judged`);
  else heldAtRelation.set(ctx, held);
  if (typeof resting === "string")
    ctx.session.recorder.note(
      CHECK,
      judgedOn(VIEWS.account),
      `what the account holds while a stop rests: ${resting}; not judged`,
    );
  else if (resting)
    await judgeHeldMove(views, resting, held, "while the run's far stop rested and after its cancel");
}

/** The server's time (server_time), when the target answers it with one. */
async function serverTime(views: Views, label: string): Promise<number | undefined> {
  const time = op(views.ctx, "server_time");
  if (!time) return undefined;
  return (await readServerClock(views.ctx.session, time, `${PURPOSE}: ${label}`)).serverTime;
}

/** A view of the sandbox document, on the run's symbol where it takes one; judged by the document's schema. */
async function call(views: Views, id: string, extra: Values, label: string): Promise<RoundTrip | undefined> {
  const operation = viewOperation(id);
  if (!operation) return undefined;
  const { ctx } = views;
  const values: Values = operation.parameters.some((p) => p.name === "symbol")
    ? { symbol: views.symbol, ...extra }
    : extra;
  const exchange = await ctx.session.call(
    { op: operation, params: encodeParams(operation, values) },
    `${PURPOSE}: ${id} ${label}`,
    { responseChecks: false },
  );
  const status = exchange.response?.status;
  if (status === 200) {
    const problems = viewSchemaProblems(id, status, exchange.response?.json);
    if (problems.length > 0)
      fail(views, exchange, `the answer breaks the sandbox document's schema: ${problems.join("; ")}`);
    judgeWeight(views, operation, exchange);
  }
  return exchange;
}

/**
 * The used-weight counter of two answers in one window grows by at least the second request's
 * weight (more is other clients on the address; less is the counter or the weight wrong).
 */
function judgeWeight(views: Views, operation: ContractOperation, exchange: RoundTrip): void {
  const { ctx } = views;
  const at = ctx.session.now();
  const before = views.previous;
  views.previous = { exchange, at };
  const counter = countersOf(operation, /X-MBX-USED-WEIGHT/)[0];
  if (!before || !counter) return;
  const [a, b] = [counterValue(before.exchange, counter), counterValue(exchange, counter)];
  if (a === undefined || b === undefined || !sameWindow(before.at, at, counter)) return;
  const weight = ctx.session.weightOf(exchange.plan);
  if (b - a < weight)
    fail(
      views,
      exchange,
      `${counter.name} went from ${a} to ${b} with this request, which weighs ${weight} (the sandbox document's x-weight)`,
    );
  else pass(views, exchange);
}

/** The trades of the trade list and a view read between two reads of the newest trade id that agree. */
async function withSteadyTrades(
  views: Views,
  read: () => Promise<RoundTrip | undefined>,
): Promise<{ exchange: RoundTrip; trades: TradeRow[]; complete: boolean } | string> {
  const { ctx } = views;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const before = await newestTradeId(ctx, CHECK, `${PURPOSE}: the newest trade before`);
    const exchange = await read();
    const trades = await newestTrades(ctx, CHECK, TRADES, `${PURPOSE}: the trades`);
    if (before === undefined || !exchange || !trades) return "the trades or the view could not be read";
    if (!ok(exchange)) return `the view answered ${exchange.response?.status}`;
    if ((trades.at(-1)?.id ?? null) === before)
      return { exchange, trades, complete: trades.length < Math.min(TRADES, tradePage(ctx)) };
  }
  return `a trade happened during each of ${ATTEMPTS} reads`;
}

async function candles(views: Views): Promise<void> {
  const { ctx } = views;
  const read = await withSteadyTrades(views, () =>
    call(views, VIEWS.klines, { interval: "1m", limit: 1000 }, "1m candles"),
  );
  if (typeof read === "string")
    return ctx.session.recorder.note(CHECK, judgedOn(VIEWS.klines), `candles: ${read}; not judged`);
  const rows = listOf(read.exchange);
  const list = rows.map(candleOf);
  if (list.some((c) => c === undefined)) return; // the schema has said what is wrong
  const all = list as Candle[];
  const oldest = read.trades[0]?.time ?? Number.POSITIVE_INFINITY;
  const problems: string[] = [];
  let judged = 0;
  for (const [i, candle] of all.entries()) {
    // Every trade of the candle is listed: it opens after the oldest trade read, or every trade was read.
    if (!read.complete && candle.openTime <= oldest) continue;
    const inside = read.trades.filter((t) => t.time >= candle.openTime && t.time <= candle.closeTime);
    const previous = i > 0 ? all[i - 1]?.close : undefined;
    const wrong = candleProblems(candle, inside, previous);
    judged += 1;
    if (wrong.length > 0) problems.push(`the candle opening at ${candle.openTime}: ${wrong.join("; ")}`);
  }
  if (problems.length > 0)
    fail(views, read.exchange, `1m klines against the trade list: ${problems.slice(0, 3).join(" | ")}`);
  else if (judged > 0) pass(views, read.exchange);
  else
    ctx.session.recorder.note(
      CHECK,
      judgedOn(VIEWS.klines),
      "no candle whose trades the trade list holds; not judged",
    );
}

/**
 * The time zones the intervals are read in: UTC, and one west and one east of it whose offsets are
 * no whole hour (the east one written without a sign, as the document's `05:45`).
 */
const ZONES = ["0", "-03:30", "05:45"];

/** The intervals read, shortest first, and the shorter one each longer one is folded from. */
const FOLDS: ReadonlyArray<[interval: string, from?: string]> = [
  ["1m"],
  ["5m", "1m"],
  ["15m", "1m"],
  ["1h", "1m"],
  ["4h", "1h"],
  ["1d", "1h"],
  ["3d", "1d"],
  ["1w", "1d"],
  ["1M", "1d"],
];

/**
 * The candles of each interval in the time zone `zone`: each opens on its interval's boundary
 * there and the series has no gap, and each candle that closed before the first read is the
 * shorter candles it covers, folded (a closed candle no longer changes, so reads one after another
 * agree on it).
 */
async function candleIntervals(views: Views, zone: string): Promise<void> {
  const minutes = zoneMinutesOf(zone) as number;
  const read = new Map<string, Candle[]>();
  let closedBefore: number | undefined;
  const problems: string[] = [];
  let last: RoundTrip | undefined;
  let folded = 0;
  const before = await serverTime(views, `the server's time before the candles in ${zone}`);
  for (const [interval, from] of FOLDS) {
    const exchange = await call(
      views,
      VIEWS.klines,
      { interval, timeZone: zone, limit: 1000 },
      `${interval} in ${zone}`,
    );
    if (!exchange || !ok(exchange)) return;
    const list = listOf(exchange).map(candleOf);
    if (list.some((c) => c === undefined)) return; // the schema has said what is wrong
    const all = list as Candle[];
    read.set(interval, all);
    closedBefore ??= all.at(-1)?.openTime;
    last = exchange;
    const cut = intervalCut(interval, minutes)!;
    const where = `${interval} candles in time zone ${zone}`;
    problems.push(...alignmentProblems(all, cut).map((p) => `${where}: ${p}`));
    const fine = from ? read.get(from) : undefined;
    if (!fine || closedBefore === undefined) continue;
    for (const candle of all) {
      if (candle.closeTime >= closedBefore) continue;
      const inside = coveringCandles(candle, fine);
      if (inside) folded += 1;
      const wrong = inside ? foldProblems(candle, inside) : [];
      if (wrong.length > 0)
        problems.push(`${where}, the one opening at ${candle.openTime}: ${wrong.join("; ")}`);
    }
  }
  if (!last) return;
  const after = await serverTime(views, `the server's time after the candles in ${zone}`);
  if (before !== undefined && after !== undefined)
    for (const [interval, all] of read) {
      const problem = currentCandleProblem(all, before, after);
      if (problem) problems.push(`${interval} candles in time zone ${zone}: ${problem}`);
    }
  if (problems.length > 0) fail(views, last, `klines by interval: ${problems.slice(0, 3).join(" | ")}`);
  else pass(views, last);
  if (folded === 0)
    views.ctx.session.recorder.note(
      CHECK,
      judgedOn(VIEWS.klines),
      `klines in time zone ${zone}: no closed candle that shorter ones cover whole; folds not judged`,
    );
}

/** A startTime one millisecond after a candle opened gives the candles from the next one. */
async function startInsideCandle(views: Views): Promise<void> {
  const list = await call(views, VIEWS.klines, { interval: "1m", limit: 3 }, "the newest candles");
  const rows = listOf(list);
  const first = candleOf(rows[0]);
  if (!first || rows.length < 2) return;
  const startTime = first.openTime + 1;
  const exchange = await call(
    views,
    VIEWS.klines,
    { interval: "1m", startTime, limit: 2 },
    "startTime inside a candle",
  );
  if (!exchange || !ok(exchange)) return;
  const shown = listOf(exchange).map(candleOf);
  const early = shown.find((c) => c !== undefined && c.openTime < startTime);
  // The two candles after the first of the three newest open after startTime, the oldest first:
  // with limit 2, those two (newer ones may have opened since, after them).
  const want = rows.slice(1, 3).map((row) => candleOf(row)?.openTime);
  const got = shown.map((c) => c?.openTime);
  if (early)
    fail(
      views,
      exchange,
      `startTime ${startTime} lies inside the candle opening at ${early.openTime}, which is listed: startTime gives the candles opening at or after it`,
    );
  else if (rows.length >= 3 && got.join() !== want.join())
    fail(
      views,
      exchange,
      `startTime ${startTime} with limit 2 listed candles opening at ${got.join(", ") || "none"}; the two oldest opening at or after it open at ${want.join(", ")}`,
    );
  else pass(views, exchange);
  await endInsideCandle(views, first.openTime);
}

/**
 * An endTime inside the candle opening at `openTime` (a closed one: newer candles were listed)
 * gives that candle as the newest ("never a candle that opens after it; with endTime alone, the
 * newest candles up to it"): the candle it falls in opens before it, so it is listed.
 */
async function endInsideCandle(views: Views, openTime: number): Promise<void> {
  const endTime = openTime + 1;
  const exchange = await call(
    views,
    VIEWS.klines,
    { interval: "1m", endTime, limit: 2 },
    "endTime inside a candle",
  );
  if (!exchange || !ok(exchange)) return;
  const newest = candleOf(listOf(exchange).at(-1));
  if (newest?.openTime === openTime) return pass(views, exchange);
  fail(
    views,
    exchange,
    `endTime ${endTime} lies inside the candle opening at ${openTime}, yet the newest candle listed ${newest ? `opens at ${newest.openTime}` : "is none"}: endTime alone gives the newest candles that open up to it`,
  );
}

/** The account's trades on the symbol, each judged against the public trade of its id; then orderId and fromId. */
async function accountTrades(views: Views): Promise<AccountTrade[]> {
  const { ctx } = views;
  const ended = await endedOrders(views);
  const read = await withSteadyTrades(views, () =>
    call(views, VIEWS.myTrades, { limit: 1000 }, "its trades"),
  );
  if (typeof read === "string") {
    ctx.session.recorder.note(CHECK, judgedOn(VIEWS.myTrades), `the account's trades: ${read}; not judged`);
    return [];
  }
  const items = listOf(read.exchange);
  const mine = items.map(accountTradeOf).filter((t): t is AccountTrade => t !== undefined);
  judgeOldestFirst(views, read.exchange);
  const byId = new Map(read.trades.map((t) => [t.id, t]));
  const problems = mine.flatMap((t) => {
    const trade = byId.get(t.id);
    return trade ? accountTradeProblems(t, trade) : [];
  });
  if (problems.length > 0)
    fail(
      views,
      read.exchange,
      `the account's trades against the trade list: ${problems.slice(0, 3).join("; ")}`,
    );
  else if (mine.length > 0) pass(views, read.exchange);
  const complete = items.length < 1000;
  if (ended && complete) {
    const short = executedWithoutTrades(ended, mine);
    if (short.length > 0)
      fail(
        views,
        read.exchange,
        `the account's trades against its ended orders: ${short.slice(0, 3).join("; ")}`,
      );
    else if (ended.some((o) => o.executedQty > ZERO)) pass(views, read.exchange);
  }
  if (complete) await tradeWindows(views, mine);
  const order = mine.at(-1)?.orderId;
  if (order !== undefined) {
    const byOrder = await call(views, VIEWS.myTrades, { orderId: order }, `the trades of order ${order}`);
    if (byOrder && ok(byOrder)) judgeOldestFirst(views, byOrder);
    if (byOrder && ok(byOrder) && complete)
      judgeSubset(
        views,
        byOrder,
        mine.filter((t) => t.orderId === order),
        `orderId ${order}`,
      );
  }
  const from = mine.at(Math.floor(mine.length / 2))?.id;
  if (from !== undefined) {
    const fromId = await call(
      views,
      VIEWS.myTrades,
      { fromId: from, limit: 1000 },
      `its trades from ${from}`,
    );
    if (fromId && ok(fromId)) judgeOldestFirst(views, fromId);
    if (fromId && ok(fromId) && complete)
      judgeSubset(
        views,
        fromId,
        mine.filter((t) => t.id >= from),
        `fromId ${from}`,
      );
  }
  return mine;
}

/**
 * The account's orders on the views' symbol as all_orders shows them, read before its trades: those
 * that had ended then have all their trades in the read that follows. Undefined when not served.
 */
async function endedOrders(views: Views): Promise<ExecutedOrder[] | undefined> {
  const allOrders = op(views.ctx, ORDER_OPERATIONS.allOrders);
  if (!allOrders) return undefined;
  const exchange = await views.ctx.session.call(
    { op: allOrders, params: encodeParams(allOrders, { symbol: views.symbol, limit: 1000 }) },
    `${PURPOSE}: the account's orders, before its trades`,
  );
  if (!ok(exchange)) return undefined;
  return listOf(exchange).flatMap((item) => {
    const o = item as Record<string, unknown>;
    const executedQty = tryParseDec(o?.executedQty);
    return typeof o?.orderId === "number" && executedQty !== undefined && typeof o.status === "string"
      ? [{ orderId: o.orderId, executedQty, ended: FINAL_STATUSES.includes(o.status) }]
      : [];
  });
}

/**
 * The account's trades by time, as the document states them (`all`: a complete read just made):
 * from a trade's time on, up to it, and between two trades' times, each listing exactly those
 * trades; a window longer than 24 hours refused with -1127, and a window with `orderId` (a
 * combination the document does not support) with -1128.
 */
async function tradeWindows(views: Views, all: readonly AccountTrade[]): Promise<void> {
  const [first, middle, last] = [all[0], all[Math.floor(all.length / 2)], all.at(-1)];
  if (!first || !middle || !last) return;
  // A bound alone with a small limit: which end of the window the cut keeps shows.
  const windows: Array<{ startTime?: number; endTime?: number; limit: number }> = [
    { startTime: middle.time, limit: 2 },
    { endTime: middle.time, limit: 2 },
    { startTime: first.time, endTime: middle.time, limit: 1000 },
  ];
  for (const { limit, ...window } of windows) {
    const what = Object.entries({ ...window, limit })
      .map(([name, value]) => `${name} ${value}`)
      .join(", ");
    const read = await call(views, VIEWS.myTrades, { ...window, limit }, `its trades with ${what}`);
    if (read && ok(read)) {
      judgeOldestFirst(views, read);
      judgeSubset(views, read, tradesInWindow(all, window, limit), what);
    }
  }
  const refusals: Array<{ values: Values; code: number; what: string }> = [
    {
      values: { startTime: last.time - MY_TRADES_MAX_SPAN_MS - 1, endTime: last.time },
      code: -1127,
      what: "a window one millisecond longer than 24 hours",
    },
    { values: { orderId: last.orderId, startTime: first.time }, code: -1128, what: "orderId with startTime" },
  ];
  await judgeRefusals(views, VIEWS.myTrades, "its trades with", refusals);
}

/** Reads of a view the document refuses, each with 400 and its code. */
async function judgeRefusals(
  views: Views,
  id: string,
  label: string,
  refusals: ReadonlyArray<{ values: Values; code: number; what: string }>,
): Promise<void> {
  for (const { values, code, what } of refusals) {
    const read = await call(views, id, values, `${label} ${what}`);
    if (!read?.response || isRateLimited(read)) continue;
    const got = bodyObject(read)?.code;
    if (read.response.status === 400 && got === code) pass(views, read);
    else
      fail(
        views,
        read,
        `${what} answered ${describeAnswer(read)}; the document refuses it with 400 and ${code}`,
      );
  }
}

/**
 * Intervals the document does not list: "Candle interval (case-sensitive). An unknown one is
 * refused with -1120": one that is no interval, and a listed one in the other case (`1H` for `1h`).
 */
async function unknownIntervals(views: Views): Promise<void> {
  await judgeRefusals(views, VIEWS.klines, "candles of", [
    {
      values: { interval: "2m", limit: 1 },
      code: -1120,
      what: "interval 2m, which the document does not list",
    },
    {
      values: { interval: "1H", limit: 1 },
      code: -1120,
      what: "interval 1H (intervals are case-sensitive: 1h is listed)",
    },
  ]);
}

/** A filtered read of the account's trades lists exactly `want` (read just before, with no trade between). */
function judgeSubset(views: Views, exchange: RoundTrip, want: readonly AccountTrade[], what: string): void {
  const key = (t: AccountTrade) => `${t.id}${t.isBuyer ? "B" : "S"}`;
  const items = listOf(exchange);
  const shown = items.map(accountTradeOf).filter((t): t is AccountTrade => t !== undefined);
  // Trades after the first read may have come: only those the first read had are compared.
  const newest = Math.max(-1, ...want.map((t) => t.id));
  const got = shown
    .filter((t) => t.id <= newest)
    .map(key)
    .sort();
  const expected = want.map(key).sort();
  if (got.join() !== expected.join())
    fail(
      views,
      exchange,
      `myTrades with ${what} lists ${got.length} trade(s) [${got.slice(0, 6).join(", ")}]; the account's trades give ${expected.length} [${expected.slice(0, 6).join(", ")}]`,
    );
  else pass(views, exchange);
}

/**
 * The commissions of the account's trades by its rates (account_information's commissionRates),
 * and each fill of the run's new orders on the symbol against the account's trade of its id as
 * taker: the same price, quantity and commission.
 */
function judgeCommissions(views: Views, plain: RoundTrip, mine: readonly AccountTrade[]): void {
  const { ctx } = views;
  const rates = commissionRatesOf(plain.response?.json);
  const rules = ctx.symbols.find((s) => s.rules.symbol === views.symbol)?.rules;
  if (!rates || !rules?.baseAsset || !rules.quoteAsset || mine.length === 0) return;
  const assets = { base: rules.baseAsset, quote: rules.quoteAsset };
  const problems = mine.flatMap((t) => commissionProblems(t, assets, rates));
  const asTaker = new Map(mine.filter((t) => !t.isMaker).map((t) => [t.id, t]));
  for (const { exchange } of ctx.session.timeline) {
    if (exchange.op.operationId !== ORDER_OPERATIONS.newOrder || !ok(exchange)) continue;
    if (bodyObject(exchange)?.symbol !== views.symbol) continue;
    for (const fill of fillsOf(exchange.response?.json)) {
      const trade = asTaker.get(fill.tradeId);
      if (trade) problems.push(...fillProblems(fill, trade));
    }
  }
  if (problems.length > 0) fail(views, plain, `commissions: ${problems.slice(0, 3).join("; ")}`);
  else pass(views, plain);
}

/** A list of the account's trades in the document's order: "oldest first". */
function judgeOldestFirst(views: Views, exchange: RoundTrip): void {
  const trades = listOf(exchange)
    .map(accountTradeOf)
    .filter((t): t is AccountTrade => t !== undefined);
  const unordered = tradesOutOfOrder(trades);
  if (unordered) fail(views, exchange, `${unordered}; the document lists the account's trades oldest first`);
  else if (trades.length > 1) pass(views, exchange);
}

/**
 * The newest transactTime of a new_order answer of the run's own account that traded, on the
 * clock `read` was answered by (a sandbox clock moved since would not compare), in milliseconds
 * (answers asked in another time unit are left out); undefined when none.
 */
function lastFillOfRun(ctx: RunContext, read: RoundTrip): number | undefined {
  const timeline = ctx.session.timeline;
  const epoch = timeline.find((entry) => entry.exchange === read)?.clock;
  let last: number | undefined;
  for (const { exchange, clock } of timeline) {
    if (clock !== epoch) continue;
    if (exchange.op.operationId !== ORDER_OPERATIONS.newOrder || !ok(exchange) || exchange.plan.as) continue;
    if (exchange.plan.params.some(([name]) => name.toLowerCase() === "x-mbx-time-unit")) continue;
    const body = bodyObject(exchange);
    const executed = tryParseDec(body?.executedQty);
    if (executed === undefined || executed === ZERO || typeof body?.transactTime !== "number") continue;
    last = Math.max(last ?? 0, body.transactTime);
  }
  return last;
}

/** The balances in the document's order: "sorted by asset". */
function judgeSorted(views: Views, exchange: RoundTrip, balances: readonly BalanceRow[]): void {
  const unsorted = unsortedBalances(balances);
  if (unsorted) fail(views, exchange, `balances: ${unsorted}; the document lists them sorted by asset`);
  else pass(views, exchange);
}

/** The stop types a far stop is placed as, so that the balances are read while one rests: a SELL of each. */
const FAR_STOP_TYPES = ["STOP_LOSS_LIMIT", "TAKE_PROFIT_LIMIT", "STOP_LOSS", "TAKE_PROFIT"];

/**
 * A stop SELL that does not fire (far from the market), placed where trading is allowed so that
 * the balances are read while a stop rests: what it locks is judged with the rest. The first
 * type of FAR_STOP_TYPES the symbol lists and the run can shape; undefined where none.
 */
async function farStop(views: Views): Promise<OwnOrder | undefined> {
  const { ctx } = views;
  const newOrder = op(ctx, ORDER_OPERATIONS.newOrder);
  const plan = ctx.symbols.find((p) => p.rules.symbol === views.symbol);
  if (whyNoTrading(ctx) || !newOrder?.orderTypeRules || !plan?.reference) return undefined;
  const view = explorationView(plan.rules, plan.reference, specOrderTypes(newOrder));
  const shape = view
    ? FAR_STOP_TYPES.filter((t) => view.types.includes(t))
        .map((type) => farShape(view, newOrder.orderTypeRules!, type, "SELL", 1, false))
        .find((s) => s !== undefined)
    : undefined;
  if (!shape) return undefined;
  const stop = await placeOwn(
    ctx,
    { symbol: views.symbol, ...shape.values },
    `${PURPOSE}: ${shape.label}, so that the balances are read while a stop rests`,
  );
  return ok(stop.placed.exchange) ? stop : undefined;
}

/**
 * The balances, judged while a far stop of the run rests; returns what the account held then
 * (undefined: no stop rested), which the holdings after its cancel must equal but for trades.
 */
async function account(views: Views, mine: readonly AccountTrade[]): Promise<Holdings | string | undefined> {
  const stop = await farStop(views);
  try {
    await balances(views, mine);
    return stop ? await steadyHoldings(views, "held while a stop rests") : undefined;
  } finally {
    if (stop) await cancelIfOpen(views.ctx, stop, `${PURPOSE}: cancel the far stop`);
  }
}

async function balances(views: Views, mine: readonly AccountTrade[]): Promise<void> {
  const { ctx } = views;
  const openOrders = op(ctx, "open_orders");
  const open = async () => {
    if (!openOrders) return undefined;
    const exchange = await ctx.session.call(
      { op: openOrders, params: encodeParams(openOrders, {}) },
      `${PURPOSE}: open orders of every symbol`,
    );
    if (!ok(exchange)) return undefined;
    const rows = listOf(exchange).map(openOrderOf);
    return rows.some((r) => r === undefined) ? undefined : (rows as OpenOrderRow[]);
  };
  const openBefore = await open();
  const plain = await call(views, VIEWS.account, {}, "balances");
  const openAfter = await open();
  const omitted = await call(views, VIEWS.account, { omitZeroBalances: true }, "balances without zeros");
  if (!plain || !ok(plain)) return;
  judgeCommissions(views, plain, mine);
  const stale = staleUpdateTime(bodyObject(plain)?.updateTime, lastFillOfRun(ctx, plain));
  if (stale) fail(views, plain, stale);
  const all = balancesOf(plain.response?.json);
  if (!all) return;
  judgeSorted(views, plain, all);
  const same = (a: OpenOrderRow[], b: OpenOrderRow[]) =>
    JSON.stringify(a, (_k, v) => (typeof v === "bigint" ? String(v) : v)) ===
    JSON.stringify(b, (_k, v) => (typeof v === "bigint" ? String(v) : v));
  if (openBefore && openAfter && same(openBefore, openAfter)) {
    const assets = new Map(
      ctx.symbols.flatMap(({ rules }) =>
        rules.baseAsset && rules.quoteAsset
          ? [[rules.symbol, { base: rules.baseAsset, quote: rules.quoteAsset }]]
          : [],
      ) as Array<[string, { base: string; quote: string }]>,
    );
    const problems = lockedProblems(all, openAfter, assets);
    if (problems && problems.length > 0) fail(views, plain, `what is locked: ${problems.join("; ")}`);
    else if (problems) pass(views, plain);
    else
      ctx.session.recorder.note(
        CHECK,
        judgedOn(VIEWS.account),
        "a stop or an order of another symbol is open: what is locked is not judged",
      );
  }
  const ids = new Map<number, number>();
  for (const t of mine) ids.set(t.id, (ids.get(t.id) ?? 0) + 1);
  const selfTrade = [...ids.entries()].find(([, n]) => n > 1)?.[0];
  if (selfTrade !== undefined && bodyObject(plain)?.requireSelfTradePrevention === true)
    fail(
      views,
      plain,
      `requireSelfTradePrevention is true, yet the account's orders traded with each other (trade ${selfTrade} is its buy and its sell)`,
    );
  if (omitted && ok(omitted)) {
    const shown = balancesOf(omitted.response?.json);
    if (shown) judgeSorted(views, omitted, shown);
    const problems = shown ? omittedZeroProblems(all, shown) : [];
    if (problems.length > 0) fail(views, omitted, `omitZeroBalances=true ${problems.join("; ")}`);
    else pass(views, omitted);
  }
}

/**
 * What the account holds, read between two reads of its newest trade on each of the run's
 * symbols that agree (its trades then are exactly those up to these ids).
 */
interface Holdings {
  exchange: RoundTrip;
  balances: BalanceRow[];
  newest: Map<string, number | undefined>;
}

/** What the account held at the relation phase, for the end's judgement (heldAfterTrading). */
const heldAtRelation = new WeakMap<RunContext, Holdings>();

async function steadyHoldings(views: Views, label: string): Promise<Holdings | string> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const before = await newestOwnTrades(views);
    const exchange = await call(views, VIEWS.account, {}, label);
    const after = await newestOwnTrades(views);
    if (!before || !after || !exchange || !ok(exchange)) return "the account or its trades could not be read";
    const balances = balancesOf(exchange.response?.json);
    if (!balances) return "its balances are not a list of assets with free and locked amounts";
    if ([...after].every(([symbol, id]) => before.get(symbol) === id))
      return { exchange, balances, newest: after };
  }
  return `the account traded during each of ${ATTEMPTS} reads`;
}

/** The id of the account's newest trade on each of the run's symbols (undefined: none yet). */
async function newestOwnTrades(views: Views): Promise<Map<string, number | undefined> | undefined> {
  const newest = new Map<string, number | undefined>();
  for (const { rules } of views.ctx.symbols) {
    const read = await call(views, VIEWS.myTrades, { symbol: rules.symbol, limit: 1 }, "its newest trade");
    if (!read || !ok(read)) return undefined;
    newest.set(rules.symbol, listOf(read).map(accountTradeOf).at(-1)?.id);
  }
  return newest;
}

/** Pages of the account's trades read at most, for one symbol, between two holdings. */
const BETWEEN_PAGES = 5;

/**
 * The account's trades on `symbol` after the trade id `after` (none: from its first) up to
 * `upTo`, read by fromId a page at a time; a reason when they cannot all be read.
 */
async function ownTradesBetween(
  views: Views,
  symbol: string,
  after: number | undefined,
  upTo: number | undefined,
): Promise<AccountTrade[] | string> {
  if (upTo === undefined || upTo === after) return [];
  // Keyed by id and side: a trade between two of the account's orders is listed for each.
  const found = new Map<string, AccountTrade>();
  let from = after === undefined ? 0 : after + 1;
  for (let page = 0; page < BETWEEN_PAGES; page++) {
    const read = await call(
      views,
      VIEWS.myTrades,
      { symbol, fromId: from, limit: 1000 },
      `its trades from ${from}`,
    );
    if (!read || !ok(read)) return `the account's trades on ${symbol} from ${from} could not be read`;
    const trades = listOf(read)
      .map(accountTradeOf)
      .filter((t): t is AccountTrade => t !== undefined);
    for (const t of trades) if (t.id <= upTo) found.set(`${t.id}:${t.isBuyer}`, t);
    const last = trades.at(-1)?.id;
    if (trades.length < 1000 || last === undefined || last >= upTo) return [...found.values()];
    from = last;
  }
  return `more than ${BETWEEN_PAGES} pages of trades on ${symbol}`;
}

/**
 * The end of the run: what the account holds of each asset of the run's symbols moved, since the
 * relation phase's read, by exactly what its trades between did (tradeEffects).
 */
async function heldAfterTrading(ctx: RunContext): Promise<void> {
  const start = heldAtRelation.get(ctx);
  if (!start || !ctx.session.recorder.enabled(CHECK)) return;
  const views: Views = { ctx, symbol: String(ctx.values.symbol) };
  await judgeHeldMove(
    views,
    start,
    await steadyHoldings(views, "held at the end"),
    "from the relation phase to the end",
  );
}

/**
 * What the account holds of each asset of the run's symbols moved from `start` to `end` by exactly
 * what its own trades between the two did: placing and cancelling orders only moves between free
 * and locked (heldMoveProblems).
 */
async function judgeHeldMove(
  views: Views,
  start: Holdings,
  end: Holdings | string,
  span: string,
): Promise<void> {
  const { ctx } = views;
  const note = (why: string) =>
    ctx.session.recorder.note(
      CHECK,
      judgedOn(VIEWS.account),
      `what the account holds, ${span}: ${why}; not judged`,
    );
  if (typeof end === "string") return note(end);
  const trades: TradeOfPair[] = [];
  const assets: string[] = [];
  for (const { rules } of ctx.symbols) {
    if (!rules.baseAsset || !rules.quoteAsset) return note(`${rules.symbol} states no base and quote assets`);
    assets.push(rules.baseAsset, rules.quoteAsset);
    const between = await ownTradesBetween(
      views,
      rules.symbol,
      start.newest.get(rules.symbol),
      end.newest.get(rules.symbol),
    );
    if (typeof between === "string") return note(between);
    trades.push(...between.map((trade) => ({ trade, base: rules.baseAsset!, quote: rules.quoteAsset! })));
  }
  const problems = heldMoveProblems(start.balances, end.balances, tradeEffects(trades), assets);
  if (problems.length > 0)
    fail(
      views,
      end.exchange,
      `what the account holds, ${span} (${trades.length} trade(s) of its own between): ${problems.slice(0, 3).join("; ")}`,
    );
  else pass(views, end.exchange);
}
