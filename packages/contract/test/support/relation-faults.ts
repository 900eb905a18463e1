/**
 * Faults in the relations between operations (x-relations): each a realistic mistake where two
 * operations that report the same fact disagree, naming the check that must catch it. Data only:
 * the suites that run faults take this list as they take the others.
 */
import { at, onAnswer, served } from "./behaviour-faults.js";
import {
  allParams,
  type Fault,
  mapJson,
  type ProxyRequest,
  type ProxyResponse,
  type ProxyState,
  UPSTREAM,
} from "./fault-proxy.js";

type Json = Record<string, unknown>;

/** The order paths: new_order, query_order and cancel_order, open_orders and cancel_all, all_orders. */
const ORDER_PATHS = ["order", "openOrders", "allOrders"];

/** Changes, in place, every order object the order paths answer (an object, or each of a list). */
function onOrders(change: (order: Json, req: ProxyRequest) => void) {
  return (req: ProxyRequest, res: ProxyResponse): ProxyResponse =>
    ORDER_PATHS.some((path) => at(path)(req)) && served(res)
      ? mapJson(res, (json) => {
          for (const order of Array.isArray(json) ? (json as Json[]) : [json as Json]) change(order, req);
          return json;
        })
      : res;
}

const DAY_MS = 86_400_000;

/** Decimal text arithmetic at 8 places (what the faulty server would print). */
const eight = (value: number) => value.toFixed(8);

/** An answer cached at its first request and served from the cache ever after (never refreshed). */
function stale(path: string, state: ProxyState, req: ProxyRequest, res: ProxyResponse): ProxyResponse {
  if (!at(path)(req) || !served(res)) return res;
  const key = `stale ${path} ${req.query.toString()}`;
  const cached = state.get(key) as ProxyResponse | undefined;
  if (cached) return { ...res, body: cached.body };
  state.set(key, res);
  return res;
}

const orderAnswer = (req: ProxyRequest) => at("order")(req);
/** A read of the account's newest orders: no cursor, no window. */
const newestPage = (req: ProxyRequest) =>
  req.method === "GET" && !["orderId", "startTime", "endTime"].some((name) => req.query.has(name));

const SCALE = 10n ** 20n;
const scaled = (text: string) => {
  const [whole = "0", fraction = ""] = text.split(".");
  return BigInt(whole) * SCALE + BigInt(fraction.padEnd(20, "0").slice(0, 20) || "0");
};

/**
 * The average price as a server whose window sums start one unit of the 20th decimal short
 * computes it: truncated, it shows one unit less exactly when the true average is exact to its
 * last place. The proxy reads the upstream's trades of the last five minutes to know when.
 */
async function averageOneUnitShort(
  req: ProxyRequest,
  state: ProxyState,
): Promise<ProxyRequest | ProxyResponse> {
  if (req.method !== "GET" || !at("avgPrice")(req)) return req;
  const upstream = state.get(UPSTREAM) as string;
  const symbol = req.query.get("symbol") ?? "";
  const answer = await fetch(`${upstream}${req.path}?${req.rawQuery}`);
  const body = await answer.text();
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name))
      headers[name] = value;
  });
  const respond = (text: string): ProxyResponse => ({ status: answer.status, headers, body: text });
  const average = answer.ok ? (JSON.parse(body) as Json) : undefined;
  const trades = (await (
    await fetch(`${upstream}/api/v3/trades?symbol=${symbol}&limit=1000`)
  ).json()) as Json[];
  const since = Date.now() - 5 * 60_000;
  let qty = 0n;
  let quote = 0n;
  for (const t of Array.isArray(trades) ? trades : [])
    if (Number(t.time) >= since) {
      qty += scaled(String(t.qty));
      quote += scaled(String(t.quoteQty));
    }
  const price = typeof average?.price === "string" ? average.price : undefined;
  if (!price || qty === 0n) return respond(body);
  const places = price.split(".")[1]?.length ?? 0;
  const unit = SCALE / 10n ** BigInt(places);
  const exact = (quote * SCALE) % (qty * unit) === 0n && (quote * SCALE) / qty === scaled(price);
  if (!exact) return respond(body);
  const lower = scaled(price) - unit;
  const text = `${lower / SCALE}.${(lower % SCALE).toString().padStart(20, "0").slice(0, places)}`;
  return respond(JSON.stringify({ ...average, price: text }));
}

/** A level's price or quantity written as the reference server writes it: 8 places. */
const eightPlaces = (value: bigint) =>
  `${value / SCALE}.${(value % SCALE).toString().padStart(20, "0").slice(0, 8)}`;

type Book = { lastUpdateId?: unknown; bids?: unknown; asks?: unknown };
type Levels = string[][];
const isBook = (json: unknown): json is { lastUpdateId: number; bids: Levels; asks: Levels } =>
  typeof (json as Book)?.lastUpdateId === "number" &&
  Array.isArray((json as Book).bids) &&
  Array.isArray((json as Book).asks);

/** The prices of a depth answer's sides, and the limit it was asked with. */
interface BookPrices {
  bids: string[];
  asks: string[];
  limit: string;
}

/** Whether two reads show the same price levels: the same prices on what both show, and as many of them at one limit. */
function samePrices(a: BookPrices, b: BookPrices): boolean {
  const prefix = (x: string[], y: string[]) =>
    x.slice(0, Math.min(x.length, y.length)).every((p, i) => p === y[i]);
  const sameCount =
    a.limit !== b.limit || (a.bids.length === b.bids.length && a.asks.length === b.asks.length);
  return prefix(a.bids, b.bids) && prefix(a.asks, b.asks) && sameCount;
}

/**
 * order_book's lastUpdateId as a server that versions the price levels, not their quantities,
 * shows it: it moves (by as much as the upstream's did) only when the read shows other prices
 * than the symbol's read before it; a change of quantities alone keeps the id shown before.
 */
function versionOfPricesOnly(req: ProxyRequest, res: ProxyResponse, state: ProxyState): ProxyResponse {
  const symbol = req.query.get("symbol");
  if (req.method !== "GET" || !at("depth")(req) || !served(res) || !symbol) return res;
  return mapJson(res, (json) => {
    if (!isBook(json)) return json;
    const prices = {
      bids: json.bids.map((level) => String(level[0])),
      asks: json.asks.map((level) => String(level[0])),
      limit: req.query.get("limit") ?? "",
    };
    const key = `prices-only version ${symbol}`;
    const was = state.get(key) as { upstream: number; shown: number; prices: BookPrices } | undefined;
    const upstream = json.lastUpdateId;
    let shown = upstream;
    if (was) {
      const moved = upstream > was.upstream && !samePrices(was.prices, prices);
      shown = was.shown + (moved ? upstream - was.upstream : 0);
    }
    state.set(key, { upstream: Math.max(upstream, was?.upstream ?? upstream), shown, prices });
    return { ...json, lastUpdateId: shown };
  });
}

/** A stop-limit order placed and not yet triggered, as a server that books it at once keeps it. */
interface BookedStop {
  symbol: string;
  side: string;
  price: bigint;
  qty: bigint;
}

const STOP_LIMIT_TYPES = ["STOP_LOSS_LIMIT", "TAKE_PROFIT_LIMIT"];
const FINAL_STATUSES = ["FILLED", "CANCELED", "REJECTED", "EXPIRED", "EXPIRED_IN_MATCH"];
/** A served answer's JSON, or undefined when its body is not JSON. */
function jsonOf(res: ProxyResponse): unknown {
  try {
    return JSON.parse(res.body) as unknown;
  } catch {
    return undefined;
  }
}
const orderKey = (order: Json) => `${String(order.symbol)}:${String(order.orderId)}`;
const ordersIn = (json: unknown): Json[] =>
  (Array.isArray(json) ? (json as Json[]) : [json as Json]).flatMap((o) =>
    o && typeof o === "object" ? [o, ...((o.orderReports as Json[] | undefined) ?? [])] : [],
  );

/**
 * order_book as a server that indexes every priced order in the book when it is placed shows it:
 * a STOP_LOSS_LIMIT or TAKE_PROFIT_LIMIT order accepted untriggered (workingTime -1) is in its
 * side's level at its limit price until it is cancelled, or a read shows it working or done. Its
 * own book it versions right: each stop booked or taken away moves the symbol's lastUpdateId on.
 */
function stopsInBook(req: ProxyRequest, res: ProxyResponse, state: ProxyState): ProxyResponse {
  if (!served(res)) return res;
  const stops = (state.get("booked stops") as Map<string, BookedStop> | undefined) ?? new Map();
  const moves = (state.get("stop moves") as Map<string, number> | undefined) ?? new Map();
  state.set("booked stops", stops);
  state.set("stop moves", moves);
  const move = (symbol: string) => moves.set(symbol, (moves.get(symbol) ?? 0) + 1);
  const unbook = (order: Json) => {
    if (stops.delete(orderKey(order))) move(String(order.symbol));
  };
  const ordersAnswer = ORDER_PATHS.some((path) => at(path)(req));
  if (req.method === "POST" && at("order")(req)) {
    const booked = bookStop(allParams(req), res, stops);
    if (booked) move(booked);
  } else if (req.method === "DELETE" && ordersAnswer)
    for (const order of ordersIn(jsonOf(res))) unbook(order);
  else if (req.method === "GET" && ordersAnswer)
    for (const order of ordersIn(jsonOf(res)))
      if (order.isWorking === true || FINAL_STATUSES.includes(String(order.status))) unbook(order);
  const symbol = req.query.get("symbol") ?? "";
  if (req.method !== "GET" || !at("depth")(req) || !moves.has(symbol)) return res;
  const mine = [...stops.values()].filter((stop) => stop.symbol === symbol);
  const limit = Math.min(Number(req.query.get("limit") ?? "100") || 100, 5000);
  return mapJson(res, (json) => {
    if (!isBook(json)) return json;
    for (const stop of mine) addLevel(stop.side === "BUY" ? json.bids : json.asks, stop, limit);
    return { ...json, lastUpdateId: json.lastUpdateId + (moves.get(symbol) ?? 0) };
  });
}

/** Keeps a stop-limit order the upstream accepted untriggered; its symbol, when it did. */
function bookStop(
  params: URLSearchParams,
  res: ProxyResponse,
  stops: Map<string, BookedStop>,
): string | undefined {
  const answer = jsonOf(res) as Json | undefined;
  if (!answer || typeof answer !== "object") return undefined;
  const price = params.get("price");
  const quantity = params.get("icebergQty") ?? params.get("quantity");
  if (!STOP_LIMIT_TYPES.includes(params.get("type") ?? "") || !price || !quantity) return undefined;
  if ((answer.status !== undefined && answer.status !== "NEW") || (answer.workingTime ?? -1) !== -1)
    return undefined;
  const symbol = String(answer.symbol);
  stops.set(orderKey(answer), {
    symbol,
    side: params.get("side") ?? "",
    price: scaled(price),
    qty: scaled(quantity),
  });
  return symbol;
}

/** Adds the stop's quantity to its price's level of a side (best first), or a level of its own there. */
function addLevel(levels: Levels, stop: BookedStop, limit: number): void {
  const price = (level: string[]) => scaled(String(level[0]));
  const same = levels.findIndex((level) => price(level) === stop.price);
  if (same >= 0) {
    levels[same] = [String(levels[same]![0]), eightPlaces(scaled(String(levels[same]![1])) + stop.qty)];
    return;
  }
  const worse = levels.findIndex((level) =>
    stop.side === "BUY" ? price(level) < stop.price : price(level) > stop.price,
  );
  const place = worse < 0 ? levels.length : worse;
  if (place >= limit) return;
  levels.splice(place, 0, [eightPlaces(stop.price), eightPlaces(stop.qty)]);
  if (levels.length > limit) levels.pop();
}

export function relationFaults(): Fault[] {
  return [
    {
      name: "bookTicker-stale",
      description:
        "the book ticker answers what it computed first and is never refreshed after the book changes",
      caughtBy: ["shared_facts"],
      response: (req, res, state) => stale("ticker/bookTicker", state, req, res),
    },
    {
      name: "price-ticker-stale",
      description: "the price ticker answers the last price it computed first, never refreshed after trades",
      caughtBy: ["shared_facts"],
      response: (req, res, state) => stale("ticker/price", state, req, res),
    },
    {
      name: "depth-sides-swapped-on-ethbtc",
      description: "order_book of ETHBTC (the third symbol) answers its bids as asks and its asks as bids",
      caughtBy: ["shared_facts"],
      response: onAnswer("depth", (j, req) => {
        if (req.query.get("symbol") !== "ETHBTC") return j;
        const book = j as Json;
        return { ...book, bids: book.asks, asks: book.bids };
      }),
    },
    {
      name: "book-version-kept-when-only-quantity-changes",
      description:
        "order_book's lastUpdateId moves only when a price level appears or goes: an order joining a level, a part fill or a cancel that leaves others at the price keeps the id, so two different books carry one lastUpdateId (OrderBook.lastUpdateId: increases with every change of the book)",
      caughtBy: ["book_orders"],
      response: versionOfPricesOnly,
    },
    {
      name: "untriggered-stop-limit-shown-in-book",
      description:
        "order_book shows a STOP_LOSS_LIMIT or TAKE_PROFIT_LIMIT order at its limit price from its placement (lastUpdateId moved with it), though it is not working until its stop triggers (workingTime -1 while not working)",
      caughtBy: ["book_orders"],
      response: stopsInBook,
    },
    {
      name: "recent-trades-quote-qty-is-qty",
      description:
        "the recent trade list writes each trade's base quantity as its quoteQty (historicalTrades is right)",
      caughtBy: ["shared_facts"],
      response: onAnswer("trades", (j) =>
        Array.isArray(j) ? (j as Json[]).map((t) => ({ ...t, quoteQty: t.qty })) : j,
      ),
    },
    {
      name: "ticker24hr-volume-misses-newest",
      description:
        "the 24-hour volume leaves out the newest trade of the window (its end taken as exclusive)",
      caughtBy: ["trade_statistics"],
      response: onAnswer("ticker/24hr", (j) => {
        const t = j as Json;
        if (Array.isArray(j) || Number(t.count) === 0) return j;
        return { ...t, volume: eight(Number(t.volume) - Number(t.lastQty)) };
      }),
    },
    {
      name: "ticker24hr-count-off-by-one",
      description: "the 24-hour trade count is lastId - firstId (one short)",
      caughtBy: ["trade_statistics"],
      response: onAnswer("ticker/24hr", (j) => {
        const t = j as Json;
        if (Array.isArray(j) || Number(t.count) === 0) return j;
        return { ...t, count: Number(t.lastId) - Number(t.firstId) };
      }),
    },
    {
      name: "avgPrice-exact-one-unit-low",
      description:
        "the average price's quote sum starts one unit of the 20th decimal short: an average exact to its last place shows one unit lower",
      caughtBy: ["trade_statistics"],
      request: averageOneUnitShort,
    },
    {
      name: "klines-taker-buy-counts-every-trade",
      description: "klines' taker-buy volumes count every trade of the candle, the buyer maker or not",
      caughtBy: ["account_views"],
      response: onAnswer("klines", (j) =>
        Array.isArray(j) ? (j as unknown[][]).map((k) => [...k.slice(0, 9), k[5], k[7], ...k.slice(11)]) : j,
      ),
    },
    {
      name: "klines-low-unwritten",
      description: "a stored candle's low is never written: klines show it as zero",
      caughtBy: ["account_views"],
      response: onAnswer("klines", (j) =>
        Array.isArray(j)
          ? (j as unknown[][]).map((k) =>
              Number(k[8]) > 0 ? [...k.slice(0, 3), "0.00000000", ...k.slice(4)] : k,
            )
          : j,
      ),
    },
    {
      name: "klines-start-inside-candle",
      description: "klines with a startTime inside a candle list that candle too (the one opening before it)",
      caughtBy: ["account_views"],
      request: (req) => {
        const start = Number(req.query.get("startTime"));
        if (!at("klines")(req) || req.query.get("interval") !== "1m" || !Number.isFinite(start) || start <= 0)
          return req;
        const query = new URLSearchParams(req.query);
        query.set("startTime", String(start - (start % 60_000)));
        return { ...req, query };
      },
    },
    {
      name: "open-orders-stop-price-zeroed",
      description:
        "open_orders shows every stop order's stopPrice as 0 (the field written before the order's)",
      caughtBy: ["order_views"],
      response: (req, res) =>
        req.method === "GET"
          ? onAnswer("openOrders", (j) =>
              Array.isArray(j)
                ? (j as Json[]).map((o) => ("stopPrice" in o ? { ...o, stopPrice: "0.00000000" } : o))
                : j,
            )(req, res)
          : res,
    },
    {
      name: "new-order-client-id-server-made",
      description:
        "new_order answers a client order id of the server's making, though newClientOrderId was sent",
      caughtBy: ["order_views"],
      response: (req, res) =>
        req.method === "POST"
          ? onAnswer("order", (j) => {
              const order = j as Json;
              return typeof order.orderId === "number"
                ? { ...order, clientOrderId: `web_${order.orderId}` }
                : order;
            })(req, res)
          : res,
    },
    {
      name: "myTrades-commission-zero",
      description: "myTrades shows every commission as zero, whatever the account's rates",
      caughtBy: ["account_views"],
      response: onAnswer("myTrades", (j) =>
        Array.isArray(j) ? (j as Json[]).map((t) => ({ ...t, commission: "0.00000000" })) : j,
      ),
    },
    {
      name: "fills-commission-unwritten",
      description: "a new order's fills show no commission, though the trade cost one (myTrades shows it)",
      caughtBy: ["account_views"],
      response: (req, res) =>
        req.method === "POST"
          ? onAnswer("order", (j) => {
              const order = j as Json;
              if (Array.isArray(order.fills))
                order.fills = (order.fills as Json[]).map((f) => ({ ...f, commission: "0.00000000" }));
              return order;
            })(req, res)
          : res,
    },
    {
      name: "klines-weeks-from-thursday",
      description:
        "weekly candles counted from the epoch, 1970-01-01, a Thursday, instead of from Monday 00:00",
      caughtBy: ["account_views"],
      response: onAnswer("klines", (j, req) =>
        Array.isArray(j) && req.query.get("interval") === "1w"
          ? (j as unknown[][]).map((k) => [
              Number(k[0]) - 4 * DAY_MS,
              ...k.slice(1, 6),
              Number(k[6]) - 4 * DAY_MS,
              ...k.slice(7),
            ])
          : j,
      ),
    },
    {
      name: "klines-time-zone-ignored",
      description: "klines cut in UTC whatever timeZone asks (it is validated, then not applied)",
      caughtBy: ["account_views"],
      request: (req) => {
        if (!at("klines")(req) || !req.query.has("timeZone")) return req;
        const query = new URLSearchParams(req.query);
        query.delete("timeZone");
        return { ...req, query };
      },
    },
    {
      name: "klines-time-zone-east-read-as-west",
      description:
        "klines take a timeZone written without a sign as west of UTC (05:45 cut as -05:45), though the document's hours are east unless signed '-'",
      caughtBy: ["account_views"],
      request: (req) => {
        const zone = req.query.get("timeZone");
        if (!at("klines")(req) || !zone || /^[-+]/.test(zone) || /^0+(:00)?$/.test(zone)) return req;
        const query = new URLSearchParams(req.query);
        query.set("timeZone", `-${zone}`);
        return { ...req, query, rawQuery: query.toString() };
      },
    },
    {
      name: "myTrades-weight-5-always",
      description: "myTrades weighs 5 without orderId too (the live API: 20 without, 5 with)",
      caughtBy: ["account_views"],
      response: (req, res, state) => {
        const light =
          (Number(state.get("light")) || 0) + (at("myTrades")(req) && !req.query.has("orderId") ? 15 : 0);
        state.set("light", light);
        const used = res.headers["x-mbx-used-weight-1m"];
        if (used === undefined || light === 0) return res;
        return {
          ...res,
          headers: { ...res.headers, "x-mbx-used-weight-1m": String(Math.max(0, Number(used) - light)) },
        };
      },
    },
    {
      name: "account-uid-unset",
      description:
        "account_information answers uid 0, never set (the sandbox document numbers accounts from 1)",
      caughtBy: ["account_views"],
      response: onAnswer("account", (j) => ({ ...(j as Json), uid: 0 })),
    },
    {
      name: "account-requires-stp",
      description:
        "account_information says requireSelfTradePrevention true, yet lets the account's orders trade with each other",
      caughtBy: ["account_views"],
      response: onAnswer("account", (j) => ({ ...(j as Json), requireSelfTradePrevention: true })),
    },
    {
      name: "account-locked-without-orders",
      description:
        "account_information shows a balance locked though no order of the account is open (a lock never released)",
      caughtBy: ["account_views"],
      response: onAnswer("account", (j) => {
        const body = j as { balances?: Json[] };
        const [first, ...rest] = body.balances ?? [];
        return first ? { ...body, balances: [{ ...first, locked: "1.00000000" }, ...rest] } : j;
      }),
    },
    {
      name: "myTrades-maker-side-flipped",
      description: "myTrades reports isMaker for the side that took",
      caughtBy: ["account_views"],
      response: onAnswer("myTrades", (j) =>
        Array.isArray(j) ? (j as Json[]).map((t) => ({ ...t, isMaker: !t.isMaker })) : j,
      ),
    },
    {
      name: "myTrades-orderId-ignored",
      description: "myTrades lists every trade of the account on the symbol, whatever orderId asks",
      caughtBy: ["account_views"],
      // The answer without orderId is kept and served for a request with one (a signed request
      // cannot be changed without the key).
      response: (req, res, state) => {
        if (!at("myTrades")(req) || !served(res)) return res;
        if (!req.query.has("orderId")) {
          state.set("every trade", res.body);
          return res;
        }
        const every = state.get("every trade") as string | undefined;
        return every === undefined ? res : { ...res, body: every };
      },
    },
    {
      name: "avgPrice-whole-units-on-ethusdt",
      description:
        "the average price of ETHUSDT (the second symbol) is written in whole units (integer arithmetic): 3001.37 as 3001, coarser than the symbol's tick",
      caughtBy: ["trade_statistics"],
      response: onAnswer("avgPrice", (j, req) =>
        req.query.get("symbol") === "ETHUSDT"
          ? { ...(j as Json), price: Number((j as Json).price).toFixed(0) }
          : j,
      ),
    },
    {
      name: "avgPrice-closeTime-now",
      description: "the average price's closeTime is the time of the answer, not of the last trade",
      caughtBy: ["trade_statistics"],
      response: onAnswer("avgPrice", (j) => ({ ...(j as Json), closeTime: Date.now() })),
    },
    {
      name: "aggTrades-trade-ids-off-by-one",
      description: "aggregate trades name their first and last trade ids one too high (ids counted from 0)",
      caughtBy: ["aggregate_cover"],
      response: onAnswer("aggTrades", (j) =>
        Array.isArray(j) ? (j as Json[]).map((a) => ({ ...a, f: Number(a.f) + 1, l: Number(a.l) + 1 })) : j,
      ),
    },
    {
      name: "aggTrades-first-id-of-several-one-high",
      description:
        "an aggregate trade of several trades names its first trade id one too high (an item of one trade is right)",
      caughtBy: ["aggregate_cover"],
      response: onAnswer("aggTrades", (j) =>
        Array.isArray(j)
          ? (j as Json[]).map((a) => (Number(a.l) > Number(a.f) ? { ...a, f: Number(a.f) + 1 } : a))
          : j,
      ),
    },
    {
      name: "aggTrades-not-best-match",
      description:
        "aggregate trades say they were not the best price match (M false) though their trades were",
      caughtBy: ["aggregate_cover"],
      response: onAnswer("aggTrades", (j) =>
        Array.isArray(j) ? (j as Json[]).map((a) => ({ ...a, M: false })) : j,
      ),
    },
    {
      name: "aggTrades-maker-side-flipped-on-ethbtc",
      description:
        "aggregate trades of ETHBTC (the third symbol) report the maker side inverted: the buyer is the maker where the trades say the seller is",
      caughtBy: ["aggregate_cover"],
      response: onAnswer("aggTrades", (j, req) =>
        req.query.get("symbol") === "ETHBTC" && Array.isArray(j)
          ? (j as Json[]).map((a) => ({ ...a, m: !a.m }))
          : j,
      ),
    },
    {
      name: "aggTrades-qty-in-quote",
      description: "aggregate trades report the quote quantity (price × quantity) as their quantity",
      caughtBy: ["aggregate_cover"],
      response: onAnswer("aggTrades", (j) =>
        Array.isArray(j) ? (j as Json[]).map((a) => ({ ...a, q: eight(Number(a.p) * Number(a.q)) })) : j,
      ),
    },
    {
      name: "open-orders-executedQty-zero",
      description:
        "open_orders reports every order as it was placed: nothing executed, even when partly filled",
      caughtBy: ["order_views"],
      response: (req, res) =>
        req.method === "GET"
          ? onAnswer("openOrders", (j) =>
              Array.isArray(j)
                ? (j as Json[]).map((o) => ({
                    ...o,
                    executedQty: "0.00000000",
                    cummulativeQuoteQty: "0.00000000",
                  }))
                : j,
            )(req, res)
          : res,
    },
    {
      name: "query-order-executedQty-zero-on-ethusdt",
      description:
        "query_order of an ETHUSDT order (the second symbol) reports nothing executed, even when it filled",
      caughtBy: ["order_views"],
      response: (req, res) =>
        req.method === "GET" && req.query.get("symbol") === "ETHUSDT"
          ? onAnswer("order", (j) =>
              j && typeof j === "object" && !Array.isArray(j)
                ? { ...(j as Json), executedQty: "0.00000000", cummulativeQuoteQty: "0.00000000" }
                : j,
            )(req, res)
          : res,
    },
    // ---- fields by meaning where nothing was sent ----
    {
      name: "limit-maker-never-working",
      description: "a LIMIT_MAKER order reports workingTime -1 (not working) in every answer and read",
      caughtBy: ["order_views"],
      response: onOrders((o) => {
        if (o.type === "LIMIT_MAKER" && "workingTime" in o) o.workingTime = -1;
      }),
    },
    {
      name: "stop-market-price-is-stop",
      description:
        "a STOP_LOSS or TAKE_PROFIT order (a market order once triggered) reports its stop price as its price",
      caughtBy: ["order_views"],
      response: onOrders((o) => {
        if ((o.type === "STOP_LOSS" || o.type === "TAKE_PROFIT") && Number(o.stopPrice) > 0)
          o.price = o.stopPrice;
      }),
    },
    {
      name: "stp-mode-not-symbol-default",
      description:
        "an order placed without selfTradePreventionMode reports EXPIRE_MAKER, not the symbol's default NONE",
      caughtBy: ["order_views"],
      response: onOrders((o) => {
        if (o.selfTradePreventionMode === "NONE") o.selfTradePreventionMode = "EXPIRE_MAKER";
      }),
    },
    {
      name: "order-list-id-zero-in-reads",
      description: "query_order, open_orders and all_orders show orderListId 0 for orders in no list",
      caughtBy: ["order_views"],
      response: (req, res) =>
        req.method === "GET"
          ? onOrders((o) => {
              if (o.orderListId === -1) o.orderListId = 0;
            })(req, res)
          : res,
    },
    {
      name: "trailing-delta-left-out-of-reads",
      description:
        "query_order, open_orders and all_orders leave out trailingDelta and trailingTime of a trailing order (the answer to new_order shows them)",
      caughtBy: ["order_views"],
      response: (req, res) =>
        req.method === "GET"
          ? onOrders((o) => {
              delete o.trailingDelta;
              delete o.trailingTime;
            })(req, res)
          : res,
    },
    {
      name: "all-orders-newest-page-short",
      description:
        "all_orders without a cursor or window answers one order fewer than its limit when the account has more (the newest slice off by one)",
      caughtBy: ["order_views"],
      response: (req, res) =>
        newestPage(req)
          ? onAnswer("allOrders", (j) => {
              const limit = Number(req.query.get("limit") ?? 500);
              return Array.isArray(j) && j.length >= limit ? j.slice(1) : j;
            })(req, res)
          : res,
    },
    {
      name: "all-orders-newest-page-drops-the-newest",
      description:
        "all_orders without a cursor or window leaves out the account's newest order (read from a list the latest placement is not in yet)",
      caughtBy: ["order_views"],
      response: (req, res) =>
        newestPage(req)
          ? onAnswer("allOrders", (j) => (Array.isArray(j) ? j.slice(0, -1) : j))(req, res)
          : res,
    },
    {
      name: "cancel-report-executedQty-zero",
      description:
        "the cancel answer reports the order as it was placed: nothing executed, even when partly filled",
      caughtBy: ["order_views"],
      response: (req, res) =>
        req.method === "DELETE" && orderAnswer(req) && served(res)
          ? {
              ...res,
              body: JSON.stringify({
                ...(JSON.parse(res.body) as Json),
                executedQty: "0.00000000",
                cummulativeQuoteQty: "0.00000000",
              }),
            }
          : res,
    },
  ];
}
