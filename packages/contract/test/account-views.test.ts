// The pure judgements of account_views (src/kit/account-views.ts), given/want.
import { describe, expect, it } from "vitest";
import { parseDec as d } from "../src/core/decimal.js";
import {
  type AccountTrade,
  accountTradeProblems,
  type BalanceRow,
  type Candle,
  candleOf,
  candleProblems,
  commissionProblems,
  executedWithoutTrades,
  type FillRow,
  fillProblems,
  heldMoveProblems,
  lockedProblems,
  omittedZeroProblems,
  staleUpdateTime,
  tradeEffects,
  tradesInWindow,
  tradesOutOfOrder,
  unsortedBalances,
} from "../src/kit/account-views.js";
import type { TradeRow } from "../src/kit/relations-support.js";

const trade = (
  id: number,
  price: string,
  qty: string,
  buyerMaker: boolean,
  time = 60_000 + id,
): TradeRow => ({
  id,
  price: d(price),
  qty: d(qty),
  quoteQty: (d(price) * d(qty)) / 10n ** 20n,
  time,
  buyerMaker,
  bestMatch: true,
});
const row = (
  o: string,
  h: string,
  l: string,
  c: string,
  v: string,
  qv: string,
  n: number,
  tb: string,
  tq: string,
) => [60_000, o, h, l, c, v, 119_999, qv, n, tb, tq, "0"];
const candle = (...args: Parameters<typeof row>) => candleOf(row(...args)) as Candle;
// Two trades: 1 at 10 (the buyer took), 2 at 12 (the seller took).
const two = [trade(1, "10", "1", false), trade(2, "12", "0.5", true)];

describe("candleProblems", () => {
  const cases = [
    {
      name: "the trades' candle",
      given: candle("10", "12", "10", "12", "1.5", "16", 2, "1", "10"),
      want: [],
    },
    {
      name: "taker-buy volumes counting every trade",
      given: candle("10", "12", "10", "12", "1.5", "16", 2, "1.5", "16"),
      want: [
        "taker buy base volume is 1.5; the trades give 1",
        "taker buy quote volume is 16; the trades give 10",
      ],
    },
    {
      name: "a low never written",
      given: candle("10", "12", "0", "12", "1.5", "16", 2, "1", "10"),
      want: ["low is 0; the trades give 10"],
    },
    {
      name: "a count one short",
      given: candle("10", "12", "10", "12", "1.5", "16", 1, "1", "10"),
      want: ["number of trades is 1; the trades give 2"],
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    expect(candleProblems(given, two)).toEqual(want);
  });

  it("a candle without trades shows the previous close and zero volumes", () => {
    expect(candleProblems(candle("12", "12", "12", "12", "0", "0", 0, "0", "0"), [], d("12"))).toEqual([]);
    expect(candleProblems(candle("0", "0", "0", "0", "0", "0", 0, "0", "0"), [], d("12"))).toHaveLength(4);
  });

  it("reads the live API's twelve-value candle, and nothing else", () => {
    expect(candleOf(row("1", "2", "0.5", "1.5", "3", "4", 5, "1", "2"))?.count).toBe(5);
    expect(candleOf(["x"])).toBeUndefined();
    expect(candleOf({ open: "1" })).toBeUndefined();
  });
});

describe("accountTradeProblems", () => {
  const mine = (over: Partial<AccountTrade>): AccountTrade => ({
    id: 1,
    orderId: 7,
    price: d("10"),
    qty: d("1"),
    quoteQty: d("10"),
    time: 60_001,
    isBuyer: true,
    isMaker: false,
    ...over,
  });
  const cases = [
    { name: "the buyer that took", given: mine({}), want: 0 },
    { name: "the seller that rested", given: mine({ isBuyer: false, isMaker: true }), want: 0 },
    { name: "the buyer shown as maker", given: mine({ isMaker: true }), want: 1 },
    { name: "another price and time", given: mine({ price: d("11"), time: 5 }), want: 2 },
  ];
  it.each(cases)("$name: $want problem(s)", ({ given, want }) => {
    expect(accountTradeProblems(given, trade(1, "10", "1", false))).toHaveLength(want);
  });
});

describe("omittedZeroProblems", () => {
  const b = (asset: string, free: string, locked = "0"): BalanceRow => ({
    asset,
    free: d(free),
    locked: d(locked),
  });
  const all = [b("BTC", "1"), b("ETH", "0"), b("USDT", "0", "5")];
  const cases = [
    { name: "exactly the balances not zero", given: [b("BTC", "1"), b("USDT", "0", "5")], want: [] },
    {
      name: "every balance (the option ignored)",
      given: all,
      want: ["lists ETH, whose balances are zero (or not listed) in the plain read"],
    },
    {
      name: "a locked-only balance left out",
      given: [b("BTC", "1")],
      want: ["leaves out USDT, which the plain read shows not zero"],
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    expect(omittedZeroProblems(all, given)).toEqual(want);
  });
});

describe("lockedProblems", () => {
  const assets = new Map([["BTCUSDT", { base: "BTC", quote: "USDT" }]]);
  const order = (side: string, type = "LIMIT", executed = "0") => ({
    symbol: "BTCUSDT",
    side,
    type,
    price: d("100"),
    origQty: d("2"),
    executedQty: d(executed),
  });
  const bal = (btc: string, usdt: string): BalanceRow[] => [
    { asset: "BTC", free: d("5"), locked: d(btc) },
    { asset: "USDT", free: d("5"), locked: d(usdt) },
  ];
  const cases = [
    { name: "no open order, nothing locked", given: { balances: bal("0", "0"), open: [] }, want: [] },
    {
      name: "a BUY locks price × quantity left",
      given: { balances: bal("0", "150"), open: [order("BUY", "LIMIT", "0.5")] },
      want: [],
    },
    {
      name: "a SELL locks its quantity left",
      given: { balances: bal("2", "0"), open: [order("SELL")] },
      want: [],
    },
    {
      name: "a lock never released",
      given: { balances: bal("0", "1"), open: [] },
      want: ["USDT locked 1; the 0 open order(s) lock 0"],
    },
    {
      name: "a stop-limit BUY locks what its limit order would",
      given: { balances: bal("0", "200"), open: [order("BUY", "STOP_LOSS_LIMIT")] },
      want: [],
    },
    {
      name: "a stop-market SELL locks its quantity",
      given: { balances: bal("2", "0"), open: [order("SELL", "TAKE_PROFIT")] },
      want: [],
    },
    {
      name: "a stop SELL's quantity left free",
      given: { balances: bal("0", "0"), open: [order("SELL", "STOP_LOSS_LIMIT")] },
      want: ["BTC locked 0; the 1 open order(s) lock 2"],
    },
    {
      name: "a stop-market BUY open: not judged (the document does not say what it locks)",
      given: { balances: bal("0", "1"), open: [order("BUY", "STOP_LOSS")] },
      want: undefined,
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    expect(lockedProblems(given.balances, given.open, assets)).toEqual(want);
  });
});

describe("commissionProblems: what the account's trade cost, by its rates", () => {
  const assets = { base: "BTC", quote: "USDT" };
  const rates = { maker: d("0.001"), taker: d("0.001"), buyer: d("0"), seller: d("0") };
  const mine = (fields: Partial<AccountTrade>): AccountTrade => ({
    id: 7,
    orderId: 3,
    price: d("60000"),
    qty: d("0.002"),
    quoteQty: d("120"),
    time: 1,
    isBuyer: true,
    isMaker: false,
    commission: d("0.000002"),
    commissionAsset: "BTC",
    ...fields,
  });
  it.each([
    { name: "a taker buyer pays 0.1 % of the base it gets", given: mine({}), want: [] },
    {
      name: "a seller pays 0.1 % of the quote it gets",
      given: mine({ isBuyer: false, commission: d("0.12"), commissionAsset: "USDT" }),
      want: [],
    },
    {
      name: "rounded to the last place shown",
      given: mine({ qty: d("0.00123"), commission: d("0.00000123") }),
      want: [],
    },
    { name: "zero, though the rate is not", given: mine({ commission: d("0") }), want: ["commission 0 BTC"] },
    {
      name: "in the asset the buyer gives",
      given: mine({ commission: d("0.12"), commissionAsset: "USDT" }),
      want: ["a buyer pays it in what the trade brings, BTC"],
    },
    {
      name: "paid in a third asset: not judged",
      given: mine({ commission: d("0.0003"), commissionAsset: "BNB" }),
      want: [],
    },
    {
      name: "not shown: not judged",
      given: mine({ commission: undefined, commissionAsset: undefined }),
      want: [],
    },
    {
      name: "the maker's rate for a maker",
      given: mine({ isMaker: true }),
      rates: { ...rates, maker: d("0.0005") },
      want: ["gives 0.000001"],
    },
    {
      name: "the buyer's rate added",
      given: mine({ commission: d("0.000004") }),
      rates: { ...rates, buyer: d("0.001") },
      want: [],
    },
  ])("$name", ({ given, want, ...rest }) => {
    const problems = commissionProblems(given, assets, (rest as { rates?: typeof rates }).rates ?? rates);
    expect(problems).toHaveLength(want.length);
    for (const [i, part] of want.entries()) expect(problems[i]).toContain(part);
  });
});

describe("fillProblems: a new order's fill is the account's trade of its id as taker", () => {
  const mine: AccountTrade = {
    id: 9,
    orderId: 4,
    price: d("60000"),
    qty: d("0.001"),
    quoteQty: d("60"),
    time: 1,
    isBuyer: true,
    isMaker: false,
    commission: d("0.000001"),
    commissionAsset: "BTC",
  };
  const fill: FillRow = {
    tradeId: 9,
    price: d("60000"),
    qty: d("0.001"),
    commission: d("0.000001"),
    commissionAsset: "BTC",
  };
  it.each([
    { name: "the same", given: fill, want: [] },
    { name: "another price", given: { ...fill, price: d("60001") }, want: ["price 60001"] },
    { name: "no commission", given: { ...fill, commission: d("0") }, want: ["commission 0"] },
    { name: "another asset", given: { ...fill, commissionAsset: "USDT" }, want: ["commissionAsset USDT"] },
  ])("$name", ({ given, want }) => {
    const problems = fillProblems(given, mine);
    expect(problems).toHaveLength(want.length);
    for (const [i, part] of want.entries()) expect(problems[i]).toContain(part);
  });
});

describe("unsortedBalances: the document lists balances sorted by asset", () => {
  const rows = (...assets: string[]): BalanceRow[] =>
    assets.map((asset) => ({ asset, free: 0n, locked: 0n }));
  it.each([
    { given: rows("BTC", "ETH", "USDT"), want: undefined },
    { given: rows(), want: undefined },
    { given: rows("USDT", "ETH", "BTC"), want: "USDT is listed before ETH" },
    { given: rows("BTC", "BTC"), want: "BTC is listed before BTC" },
  ])("$given.length balances → $want", ({ given, want }) => {
    expect(unsortedBalances(given)).toBe(want);
  });
});

describe("executedWithoutTrades: an ended order's trades add up to what it executed", () => {
  const mine = (id: number, orderId: number, qty: string): AccountTrade => ({
    id,
    orderId,
    price: d("100"),
    qty: d(qty),
    quoteQty: d("0"),
    time: 1,
    isBuyer: true,
    isMaker: false,
  });
  const order = (orderId: number, executed: string, ended = true) => ({
    orderId,
    executedQty: d(executed),
    ended,
  });
  it.each([
    { given: { orders: [order(1, "0.3")], trades: [mine(5, 1, "0.1"), mine(6, 1, "0.2")] }, want: [] },
    { given: { orders: [order(1, "0")], trades: [] }, want: [] },
    { given: { orders: [order(1, "0.3", false)], trades: [mine(5, 1, "0.1")] }, want: [] },
    {
      given: { orders: [order(1, "0.3"), order(2, "0.3")], trades: [mine(5, 1, "0.3")] },
      want: ["order 2 executed 0.3, but its trades add up to 0"],
    },
    {
      given: { orders: [order(1, "0.3")], trades: [mine(5, 1, "0.1")] },
      want: ["order 1 executed 0.3, but its trades add up to 0.1"],
    },
  ])("$want", ({ given, want }) => {
    expect(executedWithoutTrades(given.orders, given.trades)).toEqual(want);
  });
});

describe("tradesOutOfOrder: the document lists the account's trades oldest first", () => {
  const t = (id: number, orderId = 1): AccountTrade => ({
    id,
    orderId,
    price: d("1"),
    qty: d("1"),
    quoteQty: d("1"),
    time: id,
    isBuyer: true,
    isMaker: false,
  });
  it.each([
    { given: [t(1), t(2), t(2, 7), t(5)], want: undefined },
    { given: [], want: undefined },
    { given: [t(3, 1), t(9, 1), t(4, 2)], want: "trade 4 is listed after trade 9" },
  ])("$want", ({ given, want }) => {
    expect(tradesOutOfOrder(given)).toBe(want);
  });
});

describe("staleUpdateTime: the account's updateTime is its last balance change", () => {
  it.each([
    { given: { updateTime: 1700000000500, lastFill: 1700000000400 }, want: undefined },
    { given: { updateTime: 1700000000400, lastFill: 1700000000400 }, want: undefined },
    { given: { updateTime: 1700000000100, lastFill: undefined }, want: undefined },
    { given: { updateTime: "soon", lastFill: 1700000000400 }, want: undefined },
    { given: { updateTime: 1700000000100, lastFill: 1700000000400 }, want: /before 1700000000400/ },
  ])("$given → $want", ({ given, want }) => {
    const problem = staleUpdateTime(given.updateTime, given.lastFill);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});

describe("tradesInWindow: the account's trades a windowed read lists", () => {
  const t = (id: number, time: number): AccountTrade => ({
    id,
    orderId: 1,
    price: d("1"),
    qty: d("1"),
    quoteQty: d("1"),
    time,
    isBuyer: true,
    isMaker: false,
  });
  const all = [t(1, 100), t(2, 200), t(3, 200), t(4, 300), t(5, 400)];
  it.each([
    { given: { window: { startTime: 200 }, limit: 2 }, want: [2, 3] },
    { given: { window: { endTime: 300 }, limit: 2 }, want: [3, 4] },
    { given: { window: { startTime: 150, endTime: 300 }, limit: 1000 }, want: [2, 3, 4] },
    { given: { window: { startTime: 401 }, limit: 5 }, want: [] },
  ])("$given → $want", ({ given, want }) => {
    expect(tradesInWindow(all, given.window, given.limit).map((x) => x.id)).toEqual(want);
  });
});

describe("heldMoveProblems: what the account holds moves by exactly what its trades did", () => {
  const b = (asset: string, free: string, locked = "0"): BalanceRow => ({
    asset,
    free: d(free),
    locked: d(locked),
  });
  const pair = (
    isBuyer: boolean,
    qty: string,
    quoteQty: string,
    commission: string,
    commissionAsset: string,
  ) => ({
    trade: {
      id: 1,
      orderId: 1,
      price: d("100"),
      qty: d(qty),
      quoteQty: d(quoteQty),
      time: 1,
      isBuyer,
      isMaker: false,
      commission: d(commission),
      commissionAsset,
    },
    base: "BTC",
    quote: "USDT",
  });
  const before = [b("BTC", "1"), b("USDT", "1000", "100")];
  // A buy of 0.5 BTC for 50 USDT, paying 0.0005 BTC; then a sell of 0.2 BTC for 20 USDT, paying 0.02 USDT.
  const trades = [pair(true, "0.5", "50", "0.0005", "BTC"), pair(false, "0.2", "20", "0.02", "USDT")];
  const cases: Array<{ name: string; after: BalanceRow[]; want: RegExp[] }> = [
    {
      name: "moved by the trades, part of it locked since",
      after: [b("BTC", "1.2995"), b("USDT", "969.98", "100")],
      want: [],
    },
    {
      name: "the buyer's commission never taken",
      after: [b("BTC", "1.3"), b("USDT", "969.98", "100")],
      want: [/BTC held \(free \+ locked\) went from 1 to 1\.3, a move of 0\.3; .* move it by 0\.2995/],
    },
    {
      name: "the quote asset gone from the list while the trades leave some",
      after: [b("BTC", "1.2995")],
      want: [/USDT held .* went from 1100 to 0/],
    },
  ];
  it.each(cases)("$name", ({ after, want }) => {
    const problems = heldMoveProblems(before, after, tradeEffects(trades), ["BTC", "USDT"]);
    expect(problems).toHaveLength(want.length);
    for (const [i, pattern] of want.entries()) expect(problems[i]).toMatch(pattern);
  });

  it("a trade between two of the account's own orders moves nothing but the commissions", () => {
    const effects = tradeEffects([
      pair(true, "0.5", "50", "0.0005", "BTC"),
      pair(false, "0.5", "50", "0.05", "USDT"),
    ]);
    expect([...effects].map(([asset, amount]) => [asset, amount])).toEqual([
      ["BTC", -d("0.0005")],
      ["USDT", -d("0.05")],
    ]);
  });
});
