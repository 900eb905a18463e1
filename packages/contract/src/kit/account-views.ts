/**
 * The account views beyond the API's 17 operations: balances (`GET /api/v3/account`), the
 * account's own trades (`GET /api/v3/myTrades`) and candles (`GET /api/v3/klines`), as the live API
 * serves them and as the reference server describes them in its own OpenAPI document
 * (@marketapi/spec/sandbox.openapi.json). Their operations are read from that document, their
 * answers checked against its schemas, and the pure judgements of what they must show, given what
 * the run did, live here.
 */
import { createRequire } from "node:module";
import { validateResponse } from "@marketapi/validators/sandbox";
import { type Dec, formatDec, mul, tryParseDec, unitOf, ZERO } from "../core/decimal.js";
import { buildContractModel, type ContractModel, type ContractOperation } from "../core/operations.js";
import type { TradeRow } from "./relations-support.js";

/** The operationIds of the views, in the sandbox document. */
export const VIEWS = {
  account: "account_information",
  myTrades: "account_trade_list",
  klines: "kline_candlestick_data",
} as const;

let model: ContractModel | undefined;

/** An operation of the sandbox document (account_information, account_trade_list, kline_candlestick_data). */
export function viewOperation(operationId: string): ContractOperation | undefined {
  if (!model) {
    const require = createRequire(import.meta.url);
    model = buildContractModel(require("@marketapi/spec/sandbox.openapi.json"));
  }
  return model.operations.find((o) => o.operationId === operationId);
}

/** What is wrong with a view's answer by the sandbox document's schema (none when it is valid). */
export function viewSchemaProblems(operationId: string, status: number, body: unknown): string[] {
  const result = validateResponse(operationId, status, body);
  return result.valid ? [] : result.errors.map((e) => e.message);
}

/** A candle as the live API writes it: an array of twelve values (the sandbox document's Kline). */
export interface Candle {
  openTime: number;
  closeTime: number;
  open: Dec;
  high: Dec;
  low: Dec;
  close: Dec;
  volume: Dec;
  quoteVolume: Dec;
  count: number;
  takerBuyBase: Dec;
  takerBuyQuote: Dec;
}

export function candleOf(row: unknown): Candle | undefined {
  if (!Array.isArray(row) || row.length < 11) return undefined;
  const [openTime, open, high, low, close, volume, closeTime, quoteVolume, count, takerBase, takerQuote] =
    row as unknown[];
  const decimals = [open, high, low, close, volume, quoteVolume, takerBase, takerQuote].map(tryParseDec);
  if (decimals.some((d) => d === undefined)) return undefined;
  if (typeof openTime !== "number" || typeof closeTime !== "number" || typeof count !== "number")
    return undefined;
  const [o, h, l, c, v, qv, tb, tq] = decimals as Dec[];
  return {
    openTime,
    closeTime,
    open: o as Dec,
    high: h as Dec,
    low: l as Dec,
    close: c as Dec,
    volume: v as Dec,
    quoteVolume: qv as Dec,
    count,
    takerBuyBase: tb as Dec,
    takerBuyQuote: tq as Dec,
  };
}

/**
 * What a candle shows wrong, given every trade of its interval (oldest first) and the previous
 * candle's close: open, high, low and close are the first, highest, lowest and last prices; the
 * volumes and the count sum the trades; the taker-buy volumes sum the trades whose buyer took (not
 * the maker). A candle without trades shows the previous close four times and zero volumes. Pure.
 */
export function candleProblems(candle: Candle, trades: readonly TradeRow[], previousClose?: Dec): string[] {
  const problems: string[] = [];
  const expect = (what: string, shown: Dec | number, want: Dec | number | undefined) => {
    if (want === undefined || shown === want) return;
    const text = (x: Dec | number) => (typeof x === "number" ? String(x) : formatDec(x));
    problems.push(`${what} is ${text(shown)}; the trades give ${text(want)}`);
  };
  const first = trades[0];
  const last = trades.at(-1);
  const prices = trades.map((t) => t.price);
  const sum = (rows: readonly TradeRow[], of: (t: TradeRow) => Dec) => rows.reduce((s, t) => s + of(t), ZERO);
  const takers = trades.filter((t) => t.buyerMaker === false);
  expect("open", candle.open, first?.price ?? previousClose);
  expect("high", candle.high, first ? prices.reduce((a, b) => (b > a ? b : a)) : previousClose);
  expect("low", candle.low, first ? prices.reduce((a, b) => (b < a ? b : a)) : previousClose);
  expect("close", candle.close, last?.price ?? previousClose);
  expect(
    "volume",
    candle.volume,
    sum(trades, (t) => t.qty),
  );
  expect(
    "quote volume",
    candle.quoteVolume,
    sum(trades, (t) => t.quoteQty),
  );
  expect("number of trades", candle.count, trades.length);
  if (trades.every((t) => typeof t.buyerMaker === "boolean")) {
    expect(
      "taker buy base volume",
      candle.takerBuyBase,
      sum(takers, (t) => t.qty),
    );
    expect(
      "taker buy quote volume",
      candle.takerBuyQuote,
      sum(takers, (t) => t.quoteQty),
    );
  }
  return problems;
}

/** The account's trade as myTrades lists it (the fields judged). */
export interface AccountTrade {
  id: number;
  orderId: number;
  price: Dec;
  qty: Dec;
  quoteQty: Dec;
  time: number;
  isBuyer: boolean;
  isMaker: boolean;
  /** What the trade cost in commission, and in which asset (absent when not shown). */
  commission?: Dec;
  commissionAsset?: string;
}

export function accountTradeOf(item: unknown): AccountTrade | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const t = item as Record<string, unknown>;
  const [price, qty, quoteQty] = [t.price, t.qty, t.quoteQty].map(tryParseDec);
  if (typeof t.id !== "number" || typeof t.orderId !== "number" || typeof t.time !== "number")
    return undefined;
  if (price === undefined || qty === undefined || quoteQty === undefined) return undefined;
  if (typeof t.isBuyer !== "boolean" || typeof t.isMaker !== "boolean") return undefined;
  return {
    id: t.id,
    orderId: t.orderId,
    price,
    qty,
    quoteQty,
    time: t.time,
    isBuyer: t.isBuyer,
    isMaker: t.isMaker,
    ...commissionOf(t),
  };
}

function commissionOf(item: Record<string, unknown>): { commission?: Dec; commissionAsset?: string } {
  const commission = tryParseDec(item.commission);
  const asset = item.commissionAsset;
  return commission !== undefined && typeof asset === "string" ? { commission, commissionAsset: asset } : {};
}

/** The account's commission rates, as account_information's `commissionRates` states them. */
export interface CommissionRates {
  maker: Dec;
  taker: Dec;
  buyer: Dec;
  seller: Dec;
}

export function commissionRatesOf(body: unknown): CommissionRates | undefined {
  const rates = (body as { commissionRates?: Record<string, unknown> } | undefined)?.commissionRates;
  if (typeof rates !== "object" || rates === null) return undefined;
  const [maker, taker, buyer, seller] = [rates.maker, rates.taker, rates.buyer, rates.seller].map(
    tryParseDec,
  );
  if (maker === undefined || taker === undefined) return undefined;
  return { maker, taker, buyer: buyer ?? ZERO, seller: seller ?? ZERO };
}

/** Commissions are shown to this many decimals (base and quote commission precision, 8 on the live API). */
const COMMISSION_DIGITS = 8;

/**
 * What the account's trade shows wrong in its commission, by the account's rates: it is paid in
 * the asset the trade brings (a buyer the base asset, a seller the quote), and is what the trade
 * brings times the rate of the account's role (maker or taker, plus the buyer's or seller's rate),
 * to the last decimal shown (rounded either way). A commission paid in a third asset (a discount
 * paid in another coin, as the live API allows) is not judged. Pure.
 */
export function commissionProblems(
  trade: AccountTrade,
  assets: { base: string; quote: string },
  rates: CommissionRates,
): string[] {
  const { commission, commissionAsset } = trade;
  if (commission === undefined || commissionAsset === undefined) return [];
  if (commissionAsset !== assets.base && commissionAsset !== assets.quote) return [];
  const side = trade.isBuyer ? "buyer" : "seller";
  const where = `trade ${trade.id} (the account as ${trade.isMaker ? "maker" : "taker"} ${side})`;
  const brings = trade.isBuyer ? assets.base : assets.quote;
  if (commissionAsset !== brings)
    return [
      `${where}: commission paid in ${commissionAsset}; a ${side} pays it in what the trade brings, ${brings}`,
    ];
  const received = trade.isBuyer ? trade.qty : trade.quoteQty;
  const rate = (trade.isMaker ? rates.maker : rates.taker) + (trade.isBuyer ? rates.buyer : rates.seller);
  const exact = mul(received, rate);
  const off = commission > exact ? commission - exact : exact - commission;
  if (off < unitOf(COMMISSION_DIGITS)) return [];
  return [
    `${where}: commission ${formatDec(commission)} ${commissionAsset}; ${formatDec(received)} ${brings} at the account's rate ${formatDec(rate)} gives ${formatDec(exact)}`,
  ];
}

/** A fill of a new order's FULL answer: one trade of the order, as its taker. */
export interface FillRow {
  tradeId: number;
  price: Dec;
  qty: Dec;
  commission: Dec;
  commissionAsset: string;
}

export function fillsOf(body: unknown): FillRow[] {
  const fills = (body as { fills?: unknown } | undefined)?.fills;
  if (!Array.isArray(fills)) return [];
  return fills.flatMap((item) => {
    const f = item as Record<string, unknown>;
    const [price, qty, commission] = [f?.price, f?.qty, f?.commission].map(tryParseDec);
    if (typeof f?.tradeId !== "number" || typeof f.commissionAsset !== "string") return [];
    if (price === undefined || qty === undefined || commission === undefined) return [];
    return [{ tradeId: f.tradeId, price, qty, commission, commissionAsset: f.commissionAsset }];
  });
}

/** What a new order's fill shows other than the account's trade of its id as taker. Pure. */
export function fillProblems(fill: FillRow, mine: AccountTrade): string[] {
  const differ: string[] = [];
  if (fill.price !== mine.price)
    differ.push(`price ${formatDec(fill.price)}, the trade's ${formatDec(mine.price)}`);
  if (fill.qty !== mine.qty) differ.push(`qty ${formatDec(fill.qty)}, the trade's ${formatDec(mine.qty)}`);
  if (mine.commission !== undefined && fill.commission !== mine.commission)
    differ.push(`commission ${formatDec(fill.commission)}, the trade's ${formatDec(mine.commission)}`);
  if (mine.commissionAsset !== undefined && fill.commissionAsset !== mine.commissionAsset)
    differ.push(`commissionAsset ${fill.commissionAsset}, the trade's ${mine.commissionAsset}`);
  return differ.map((d) => `the fill of trade ${fill.tradeId} in the new order's answer: ${d}`);
}

/**
 * What the account's trade shows wrong against the public trade of the same id: its price,
 * quantity, quote quantity and time are the trade's, and it is the maker exactly when its side
 * rested (a buyer is the maker when the trade's buyer was, a seller when the buyer took). Pure.
 */
export function accountTradeProblems(mine: AccountTrade, trade: TradeRow): string[] {
  const problems: string[] = [];
  const side = mine.isBuyer ? "buyer" : "seller";
  if (mine.price !== trade.price)
    problems.push(`price ${formatDec(mine.price)}, the trade's ${formatDec(trade.price)}`);
  if (mine.qty !== trade.qty)
    problems.push(`qty ${formatDec(mine.qty)}, the trade's ${formatDec(trade.qty)}`);
  if (mine.quoteQty !== trade.quoteQty)
    problems.push(`quoteQty ${formatDec(mine.quoteQty)}, the trade's ${formatDec(trade.quoteQty)}`);
  if (mine.time !== trade.time) problems.push(`time ${mine.time}, the trade's ${trade.time}`);
  if (typeof trade.buyerMaker === "boolean") {
    const maker = mine.isBuyer ? trade.buyerMaker : !trade.buyerMaker;
    if (mine.isMaker !== maker)
      problems.push(
        `isMaker ${mine.isMaker} for the ${side}, though the trade's isBuyerMaker is ${trade.buyerMaker}`,
      );
  }
  return problems.map((p) => `trade ${mine.id} (the account as ${side}): ${p}`);
}

/** A balance as account_information lists it. */
export interface BalanceRow {
  asset: string;
  free: Dec;
  locked: Dec;
}

export function balancesOf(body: unknown): BalanceRow[] | undefined {
  const list = (body as { balances?: unknown } | undefined)?.balances;
  if (!Array.isArray(list)) return undefined;
  const rows: BalanceRow[] = [];
  for (const item of list) {
    const b = item as Record<string, unknown>;
    const [free, locked] = [b?.free, b?.locked].map(tryParseDec);
    if (typeof b?.asset !== "string" || free === undefined || locked === undefined) return undefined;
    rows.push({ asset: b.asset, free, locked });
  }
  return rows;
}

/**
 * Where a list of the account's trades breaks the document's order ("oldest first": by trade id;
 * a trade between two of the account's orders is listed twice under one id), or undefined. Pure.
 */
export function tradesOutOfOrder(trades: readonly AccountTrade[]): string | undefined {
  for (let i = 1; i < trades.length; i += 1) {
    const [before, after] = [trades[i - 1]!, trades[i]!];
    if (after.id < before.id) return `trade ${after.id} is listed after trade ${before.id}`;
  }
  return undefined;
}

/**
 * What the account's `updateTime` shows wrong against `lastFill`, the newest transactTime of an
 * order of the run's that traded ("the time of the account's last balance change": a trade changes
 * the balances, so it is at least that). Pure.
 */
export function staleUpdateTime(updateTime: unknown, lastFill: number | undefined): string | undefined {
  if (lastFill === undefined || typeof updateTime !== "number") return undefined;
  return updateTime < lastFill
    ? `updateTime ${updateTime} is before ${lastFill}, when an order of the run traded; it is the time of the account's last balance change`
    : undefined;
}

/** The longest window of the account's trades the document allows ("at most 24 hours", -1127). */
export const MY_TRADES_MAX_SPAN_MS = 86_400_000;

/**
 * The account's trades a windowed read must list, from `all` (a complete read, oldest first): with
 * `startTime` the oldest from it, with `endTime` alone the newest up to it, with both those between
 * (bounds inclusive); at most `limit` of them. Pure.
 */
export function tradesInWindow(
  all: readonly AccountTrade[],
  window: { startTime?: number; endTime?: number },
  limit: number,
): AccountTrade[] {
  const inside = all.filter(
    (t) =>
      (window.startTime === undefined || t.time >= window.startTime) &&
      (window.endTime === undefined || t.time <= window.endTime),
  );
  return window.startTime === undefined ? inside.slice(-limit) : inside.slice(0, limit);
}

/** Where the balances break the document's order ("sorted by asset"), or undefined. Pure. */
export function unsortedBalances(rows: readonly BalanceRow[]): string | undefined {
  for (let i = 1; i < rows.length; i += 1) {
    const [before, after] = [rows[i - 1]!.asset, rows[i]!.asset];
    if (before >= after) return `${before} is listed before ${after}`;
  }
  return undefined;
}

/** An order of the account as all_orders shows it: what it executed, and whether it has ended. */
export interface ExecutedOrder {
  orderId: number;
  executedQty: Dec;
  ended: boolean;
}

/**
 * The account's orders that had ended before its trades were read, with something executed, whose
 * trades in that (complete) read do not add up to what they executed: a trade of theirs left out,
 * or listed for the other order only where two of the account's orders traded with each other
 * ("appears twice, once as the buyer's and once as the seller's"). Pure.
 */
export function executedWithoutTrades(
  orders: readonly ExecutedOrder[],
  trades: readonly AccountTrade[],
): string[] {
  const traded = new Map<number, Dec>();
  for (const t of trades) traded.set(t.orderId, (traded.get(t.orderId) ?? ZERO) + t.qty);
  return orders
    .filter((o) => o.ended && o.executedQty > ZERO && (traded.get(o.orderId) ?? ZERO) !== o.executedQty)
    .map(
      (o) =>
        `order ${o.orderId} executed ${formatDec(o.executedQty)}, but its trades add up to ${formatDec(traded.get(o.orderId) ?? ZERO)}`,
    );
}

/**
 * What omitZeroBalances=true shows wrong against the plain read made just before: exactly the
 * assets whose free or locked balance is not zero, none of them left out. Pure.
 */
export function omittedZeroProblems(all: readonly BalanceRow[], omitted: readonly BalanceRow[]): string[] {
  const nonZero = all.filter((b) => b.free !== ZERO || b.locked !== ZERO).map((b) => b.asset);
  const shown = omitted.map((b) => b.asset);
  const problems: string[] = [];
  const missing = nonZero.filter((a) => !shown.includes(a));
  const zero = shown.filter((a) => !nonZero.includes(a));
  if (missing.length > 0)
    problems.push(`leaves out ${missing.join(", ")}, which the plain read shows not zero`);
  if (zero.length > 0)
    problems.push(`lists ${zero.join(", ")}, whose balances are zero (or not listed) in the plain read`);
  return problems;
}

/** An open order as open_orders lists it (the fields that say what it locks). */
export interface OpenOrderRow {
  symbol: string;
  side: string;
  type: string;
  price: Dec;
  origQty: Dec;
  executedQty: Dec;
}

export function openOrderOf(item: unknown): OpenOrderRow | undefined {
  const o = item as Record<string, unknown> | undefined;
  const [price, origQty, executedQty] = [o?.price, o?.origQty, o?.executedQty].map(tryParseDec);
  if (typeof o?.symbol !== "string" || typeof o.side !== "string" || typeof o.type !== "string")
    return undefined;
  if (price === undefined || origQty === undefined || executedQty === undefined) return undefined;
  return { symbol: o.symbol, side: o.side, type: o.type, price, origQty, executedQty };
}

/** Types that lock what a limit order at their price would (stops: once they fire, their limit order). */
const PRICED_TYPES = new Set(["LIMIT", "LIMIT_MAKER", "STOP_LOSS_LIMIT", "TAKE_PROFIT_LIMIT"]);
/** Stop types whose counterpart is a MARKET order: a SELL locks its quantity; a BUY's lock is not stated. */
const MARKET_STOP_TYPES = new Set(["STOP_LOSS", "TAKE_PROFIT"]);

/**
 * What an open order locks, by the sandbox document ("a LIMIT BUY locks price × quantity of the
 * quote asset, a SELL the quantity of the base asset, a stop order what its limit or market
 * counterpart would"), of what it has left: undefined where the document does not say (a market
 * stop BUY) or the type is another.
 */
function lockOf(order: OpenOrderRow, pair: { base: string; quote: string }): [string, Dec] | undefined {
  const left = order.origQty - order.executedQty;
  if (order.side === "SELL" && (PRICED_TYPES.has(order.type) || MARKET_STOP_TYPES.has(order.type)))
    return [pair.base, left];
  if (order.side === "BUY" && PRICED_TYPES.has(order.type)) return [pair.quote, mul(order.price, left)];
  return undefined;
}

/**
 * What the balances show locked wrong, given every open order of the account (the same before
 * and after the read) and each symbol's base and quote assets: each order locks what lockOf says,
 * and nothing else is locked. Undefined when it cannot be told (an order whose lock the document
 * does not state, an unknown symbol). Pure.
 */
export function lockedProblems(
  balances: readonly BalanceRow[],
  open: readonly OpenOrderRow[],
  assets: ReadonlyMap<string, { base: string; quote: string }>,
): string[] | undefined {
  const want = new Map<string, Dec>();
  for (const order of open) {
    const pair = assets.get(order.symbol);
    const lock = pair ? lockOf(order, pair) : undefined;
    if (!lock) return undefined;
    const [asset, amount] = lock;
    want.set(asset, (want.get(asset) ?? ZERO) + amount);
  }
  const problems: string[] = [];
  for (const b of balances) {
    const expected = want.get(b.asset) ?? ZERO;
    if (b.locked !== expected)
      problems.push(
        `${b.asset} locked ${formatDec(b.locked)}; the ${open.length} open order(s) lock ${formatDec(expected)}`,
      );
  }
  return problems;
}

/** An account's trade with the assets of its symbol. */
export interface TradeOfPair {
  trade: AccountTrade;
  base: string;
  quote: string;
}

/**
 * What the account's trades did to what it holds of each asset (free and locked together): a
 * buyer gains the quantity of the base asset and pays the quote quantity, a seller the other way
 * round, and each pays its commission in the commission's asset. Pure.
 */
export function tradeEffects(trades: readonly TradeOfPair[]): Map<string, Dec> {
  const effects = new Map<string, Dec>();
  const move = (asset: string, amount: Dec) => effects.set(asset, (effects.get(asset) ?? ZERO) + amount);
  for (const { trade, base, quote } of trades) {
    const sign = trade.isBuyer ? 1n : -1n;
    move(base, sign * trade.qty);
    move(quote, -sign * trade.quoteQty);
    if (trade.commission !== undefined && trade.commissionAsset !== undefined)
      move(trade.commissionAsset, -trade.commission);
  }
  return effects;
}

/**
 * What the balances show held wrong after the account's trades: for each of `assets`, what it
 * holds (free and locked; an asset not listed holds nothing) moved from `before` to `after` by
 * exactly what the trades between them did (tradeEffects). Placing and cancelling orders only
 * moves between free and locked. Pure.
 */
export function heldMoveProblems(
  before: readonly BalanceRow[],
  after: readonly BalanceRow[],
  effects: ReadonlyMap<string, Dec>,
  assets: Iterable<string>,
): string[] {
  const held = (rows: readonly BalanceRow[], asset: string) => {
    const row = rows.find((b) => b.asset === asset);
    return row ? row.free + row.locked : ZERO;
  };
  const problems: string[] = [];
  for (const asset of new Set([...assets, ...effects.keys()])) {
    const [from, to] = [held(before, asset), held(after, asset)];
    const traded = effects.get(asset) ?? ZERO;
    if (to - from !== traded)
      problems.push(
        `${asset} held (free + locked) went from ${formatDec(from)} to ${formatDec(to)}, a move of ${formatDec(to - from)}; the account's trades between the two reads move it by ${formatDec(traded)}`,
      );
  }
  return problems;
}
