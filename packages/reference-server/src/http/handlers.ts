/**
 * One handler per operationId: reads the checked parameters, calls the exchange, returns the
 * wire body (an object, or JsonText when the body was serialized ahead, e.g. from a cache).
 */

import type { EpochTime } from "@marketapi/spec/model";
import {
  type Exchange,
  type KlineInterval,
  type KlineRow,
  type NewOrderRespType,
  timeZoneOffset,
} from "../engine/index.js";
import { badCombination, illegalParamValue, invalidSymbol, mandatoryNotSent } from "../errors.js";
import { epochMillis } from "./epoch-time.js";
import type { LiveExtras } from "./live-extras.js";
import { newOrderJson } from "./order-json.js";
import type { RateLimiter } from "./rate-limits.js";
import type { TimeUnit } from "./time-unit.js";
import type { CheckedParams } from "./validation.js";

/**
 * A body that is already JSON text; its UTF-8 length is counted once, when first asked for
 * (unless the writer of the text knew it).
 */
export class JsonText {
  constructor(
    readonly text: string,
    private bytes = -1,
  ) {}

  get byteLength(): number {
    if (this.bytes < 0) this.bytes = Buffer.byteLength(this.text);
    return this.bytes;
  }
}

export interface HandlerContext {
  /** Decoded, validated parameters (numbers decoded, `symbols` parsed). */
  readonly params: CheckedParams;
  /** The declared parameters as text, as received (decimals stay exact here). */
  readonly text: ReadonlyMap<string, string>;
  /** The live-API extras the request used (ticker `symbols` and `type`, ...). */
  readonly extras: LiveExtras;
  /** The authenticated account; "" for operations without an API key. */
  readonly accountId: string;
  readonly now: number;
  /** The unit of the answer's times (X-MBX-TIME-UNIT); keyed time fields are converted after the handler. */
  readonly timeUnit?: TimeUnit | undefined;
  /** The units of epoch time parameters (`x-epoch-time`); milliseconds only without it. */
  readonly epochTime?: EpochTime | undefined;
}

export type Handler = (ctx: HandlerContext) => unknown;

export interface HandlerDeps {
  readonly exchange: Exchange;
  readonly rateLimiter: RateLimiter;
}

/**
 * A cached body that knows when it is stale: it was built at a version of the exchange (the book's
 * or the trades' of one symbol, read by `versionOf`) and of its state generation, and holds while
 * both stay. The pipeline keeps such answers by request target (answer-cache.ts).
 */
export class VersionedJson extends JsonText {
  constructor(
    text: string,
    private readonly exchange: Exchange,
    readonly generation: number,
    readonly version: number,
    private readonly versionOf: () => number,
  ) {
    super(text);
  }

  private utf8: Buffer | undefined;

  /** The body's UTF-8 bytes, encoded on first use: written as they are, not encoded per answer. */
  get encoded(): Buffer {
    this.utf8 ??= Buffer.from(this.text, "utf8");
    return this.utf8;
  }

  /** Whether the exchange still shows what this body was built from. */
  isCurrent(): boolean {
    return this.exchange.stateGeneration === this.generation && this.versionOf() === this.version;
  }
}

/**
 * Bodies that only change with a version (depth and the book ticker with the book, the price ticker
 * with the trades) or
 * never (exchangeInfo without serverTime), kept as the JsonText answered: a hit costs no
 * serialisation and no allocation. An entry also remembers the exchange's state generation, so a
 * reloaded state never meets an answer built from the one it replaced.
 */
class BodyCache {
  private readonly entries = new Map<string, VersionedJson>();

  constructor(
    private readonly maxEntries: number,
    private readonly exchange: Exchange,
  ) {}

  /** `versionOf` is read now and kept with the body, which checks it again when reused. */
  get(key: string, versionOf: () => number, build: () => string): VersionedJson {
    const generation = this.exchange.stateGeneration;
    const version = versionOf();
    const hit = this.entries.get(key);
    if (hit && hit.version === version && hit.generation === generation) return hit;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const body = new VersionedJson(build(), this.exchange, generation, version, versionOf);
    this.entries.set(key, body);
    return body;
  }
}

export function createHandlers(deps: HandlerDeps): Readonly<Record<string, Handler>> {
  const { exchange } = deps;
  const depthCache = new BodyCache(256, exchange);
  const priceCache = new BodyCache(256, exchange);
  const bookTickerCache = new BodyCache(256, exchange);
  const infoCache = new BodyCache(64, exchange);

  /** One symbol's ticker, or a list: the `symbols` asked for (live extra, -1121 if unknown), or all. */
  const eachSymbol = <T>(ctx: HandlerContext, one: (symbol: string) => T): T | T[] => {
    const symbol = ctx.text.get("symbol");
    const listed = ctx.extras.symbols;
    if (listed !== undefined) {
      for (const name of listed) if (!exchange.hasSymbol(name)) throw invalidSymbol();
      return listed.map(one);
    }
    return symbol === undefined ? exchange.symbols().map(one) : one(symbol);
  };

  return {
    ping: () => ({}),
    server_time: (ctx) => ({ serverTime: ctx.now }),
    exchange_info: (ctx) => exchangeInfo(deps, infoCache, ctx),
    order_book: (ctx) => {
      const symbol = requiredText(ctx, "symbol");
      const limit = integer(ctx, "limit") ?? 100;
      return depthCache.get(
        depthKey(symbol, limit),
        () => exchange.bookVersion(symbol),
        () => JSON.stringify(exchange.depth(symbol, limit)),
      );
    },
    recent_trades_list: (ctx) => exchange.trades(requiredText(ctx, "symbol"), integer(ctx, "limit")),
    historical_trades: (ctx) =>
      exchange.historicalTrades(requiredText(ctx, "symbol"), {
        fromId: integer(ctx, "fromId"),
        limit: integer(ctx, "limit"),
      }),
    aggTrades: (ctx) =>
      exchange.aggTrades(requiredText(ctx, "symbol"), {
        fromId: integer(ctx, "fromId"),
        startTime: dateTime(ctx, "startTime", "start"),
        endTime: dateTime(ctx, "endTime", "end"),
        // The spec declares the default 1000 for aggTrades.
        limit: integer(ctx, "limit") ?? 1000,
      }),
    current_average_price: (ctx) => exchange.avgPrice(requiredText(ctx, "symbol")),
    order_book_ticker: (ctx) => {
      const symbol = ctx.text.get("symbol");
      if (symbol === undefined || ctx.extras.symbols !== undefined) {
        return eachSymbol(ctx, (name) => exchange.bookTicker(name));
      }
      return bookTickerCache.get(
        symbol,
        () => exchange.bookVersion(symbol),
        () => JSON.stringify(exchange.bookTicker(symbol)),
      );
    },
    symbol_price_ticker: (ctx) => {
      const symbol = ctx.text.get("symbol");
      if (symbol === undefined || ctx.extras.symbols !== undefined) {
        return eachSymbol(ctx, (name) => exchange.tickerPrice(name));
      }
      return priceCache.get(
        symbol,
        () => exchange.tradeVersion(symbol),
        () => JSON.stringify(exchange.tickerPrice(symbol)),
      );
    },
    ticker_price_change_statistics24hr: (ctx) =>
      eachSymbol(ctx, (symbol) => exchange.ticker24hr(symbol, ctx.extras.tickerType ?? "FULL")),
    new_order: (ctx) => newOrder(exchange, ctx),
    cancel_order: (ctx) =>
      exchange.cancelOrder(ctx.accountId, {
        symbol: requiredText(ctx, "symbol"),
        orderId: integer(ctx, "orderId"),
        origClientOrderId: ctx.text.get("origClientOrderId"),
        newClientOrderId: ctx.text.get("newClientOrderId"),
        cancelRestrictions: ctx.extras.cancelRestrictions,
      }),
    query_order: (ctx) =>
      exchange.queryOrder(ctx.accountId, {
        symbol: requiredText(ctx, "symbol"),
        orderId: integer(ctx, "orderId"),
        origClientOrderId: ctx.text.get("origClientOrderId"),
      }),
    cancel_all_orders: (ctx) => exchange.cancelAllOrders(ctx.accountId, requiredText(ctx, "symbol")),
    open_orders: (ctx) => exchange.openOrders(ctx.accountId, ctx.text.get("symbol")),
    all_orders: (ctx) =>
      exchange.allOrders(ctx.accountId, {
        symbol: requiredText(ctx, "symbol"),
        orderId: integer(ctx, "orderId"),
        startTime: millis(ctx, "startTime", "start"),
        endTime: millis(ctx, "endTime", "end"),
        limit: integer(ctx, "limit"),
      }),
    // ---- the sandbox's operations (its own document, beyond the API's contract) ----
    account_information: (ctx) =>
      exchange.accountInformation(ctx.accountId, { omitZeroBalances: ctx.params.omitZeroBalances === true }),
    account_trade_list: (ctx) =>
      exchange.myTrades(ctx.accountId, {
        symbol: requiredText(ctx, "symbol"),
        orderId: integer(ctx, "orderId"),
        fromId: integer(ctx, "fromId"),
        startTime: millis(ctx, "startTime", "start"),
        endTime: millis(ctx, "endTime", "end"),
        limit: integer(ctx, "limit"),
      }),
    kline_candlestick_data: (ctx) => klines(exchange, ctx),
    ui_klines: (ctx) => klines(exchange, ctx),
  };
}

/** Candles, their open and close times in the unit the request asked for (a row has no keys to convert later). */
function klines(exchange: Exchange, ctx: HandlerContext): KlineRow[] {
  const rows = exchange.klines(requiredText(ctx, "symbol"), {
    interval: requiredText(ctx, "interval") as KlineInterval,
    startTime: millis(ctx, "startTime", "start"),
    endTime: millis(ctx, "endTime", "end"),
    offsetMs: timeZoneOffset(ctx.text.get("timeZone")),
    // The sandbox document declares the default 500.
    limit: integer(ctx, "limit") ?? 500,
  });
  if (ctx.timeUnit !== "MICROSECOND") return rows;
  for (const row of rows) {
    row[0] *= 1000;
    row[6] = row[6] * 1000 + 999;
  }
  return rows;
}

function newOrder(exchange: Exchange, ctx: HandlerContext): JsonText {
  const text = (name: string) => ctx.text.get(name);
  const trailingDelta = text("trailingDelta");
  const full = exchange.newOrder(ctx.accountId, {
    symbol: requiredText(ctx, "symbol"),
    side: requiredText(ctx, "side") as never,
    type: requiredText(ctx, "type") as never,
    timeInForce: text("timeInForce") as never,
    quantity: text("quantity"),
    quoteOrderQty: text("quoteOrderQty"),
    price: text("price"),
    newClientOrderId: text("newClientOrderId"),
    stopPrice: text("stopPrice"),
    // The engine checks that it is a whole number of basis points (-1100 otherwise).
    trailingDelta: trailingDelta === undefined ? undefined : Number(trailingDelta),
    icebergQty: text("icebergQty"),
    strategyId: ctx.extras.strategyId,
    strategyType: ctx.extras.strategyType,
    selfTradePreventionMode: ctx.extras.selfTradePreventionMode,
  });
  // The spec declares FULL as the default response type of every order type.
  const respType = (text("newOrderRespType") ?? "FULL") as NewOrderRespType;
  // Written straight to JSON: the bytes of JSON.stringify(shapeNewOrderResponse(full, respType)).
  const json = newOrderJson(full, respType);
  return new JsonText(json.text, json.byteLength);
}

function exchangeInfo(deps: HandlerDeps, cache: BodyCache, ctx: HandlerContext): JsonText {
  const { exchange, rateLimiter } = deps;
  const symbol = ctx.text.get("symbol");
  const listed = ctx.params.symbols as string[] | undefined;
  if (symbol !== undefined && listed !== undefined) throw badCombination();
  const wanted = listed ?? (symbol === undefined ? exchange.symbols() : [symbol]);
  for (const name of wanted) if (!exchange.hasSymbol(name)) throw invalidSymbol();
  const tail = cache.get(wanted.join(","), NEVER_CHANGES, () =>
    JSON.stringify({
      rateLimits: rateLimiter.describe(),
      exchangeFilters: exchange.exchangeFilters(),
      symbols: wanted.map((name) => exchange.symbolInfo(name)),
    }).slice(1),
  ).text;
  return new JsonText(`{"timezone":"UTC","serverTime":${ctx.now},${tail}`);
}

/** The version of a body that never changes (exchangeInfo's tail). */
const NEVER_CHANGES = () => 0;

/** Depth cache keys, made once per symbol and limit instead of once per request. */
const depthKeys = new Map<string, Map<number, string>>();

function depthKey(symbol: string, limit: number): string {
  let byLimit = depthKeys.get(symbol);
  if (byLimit === undefined) {
    if (depthKeys.size >= 256) depthKeys.clear();
    byLimit = new Map();
    depthKeys.set(symbol, byLimit);
  }
  let key = byLimit.get(limit);
  if (key === undefined) {
    key = `${symbol}|${limit}`;
    byLimit.set(limit, key);
  }
  return key;
}

function requiredText(ctx: HandlerContext, name: string): string {
  const value = ctx.text.get(name);
  // Validation guarantees mandatory parameters; this guards handlers called without it.
  if (value === undefined) throw mandatoryNotSent(name);
  return value;
}

function integer(ctx: HandlerContext, name: string): number | undefined {
  const value = ctx.params[name];
  return typeof value === "number" ? value : undefined;
}

/**
 * A date_time → epoch milliseconds: the spec's two encodings, epoch milliseconds (an integer) or
 * RFC 3339 text; epoch microseconds too, as the live API takes them.
 */
function dateTime(ctx: HandlerContext, name: string, bound: "start" | "end"): number | undefined {
  const value = ctx.params[name];
  if (value === undefined) return undefined;
  if (typeof value === "number") return epochMillis(ctx.epochTime, value, bound);
  const time = Date.parse(String(value).toUpperCase().replace(" ", "T"));
  if (Number.isNaN(time))
    throw illegalParamValue(name, "must be an RFC 3339 date-time or epoch milliseconds");
  return time;
}

/** An integer time parameter in epoch milliseconds, whichever unit it was sent in. */
function millis(ctx: HandlerContext, name: string, bound: "start" | "end"): number | undefined {
  const value = integer(ctx, name);
  return value === undefined ? undefined : epochMillis(ctx.epochTime, value, bound);
}
