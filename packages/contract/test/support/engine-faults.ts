/**
 * Faults of the engine as a whole, where one symbol, one account or one read would not see them:
 * a second symbol's orders, another account's orders, the book against the orders that rest on
 * it, stops that fire, counters and clocks by what they count and the event that sets them. Each
 * a realistic implementation mistake, injected by the proxy.
 */
import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import { type Dec, formatDec, mul, tryParseDec, unitOf, ZERO } from "../../src/core/decimal.js";
import { VIEWS, viewOperation } from "../../src/kit/account-views.js";
import { at, list, onRequest, served } from "./behaviour-faults.js";
import {
  allParams,
  type Fault,
  mapJson,
  type ProxyRequest,
  type ProxyResponse,
  type ProxyState,
  resign,
  shiftedWeight,
  UPSTREAM,
} from "./fault-proxy.js";

type Json = Record<string, unknown>;
type Level = [string, string];

const isNewOrder = (req: ProxyRequest) => req.method === "POST" && at("order")(req);
const isCancel = (req: ProxyRequest) => req.method === "DELETE" && at("order")(req);
const bodyOf = (res: ProxyResponse): Json | undefined => {
  try {
    const json = JSON.parse(res.body) as unknown;
    return typeof json === "object" && json !== null && !Array.isArray(json) ? (json as Json) : undefined;
  } catch {
    return undefined;
  }
};

/** The resting LIMIT orders the proxy saw placed and not yet cancelled, by orderId. */
interface Resting {
  symbol: string;
  side: string;
  price: string;
  origQty: string;
  icebergQty: string | undefined;
}

function restingOf(state: ProxyState): Map<number, Resting> {
  let map = state.get("resting") as Map<number, Resting> | undefined;
  if (!map) {
    map = new Map();
    state.set("resting", map);
  }
  return map;
}

/** Keeps the proxy's record of resting orders: placed NEW, gone when cancelled or traded. */
function track(req: ProxyRequest, res: ProxyResponse, state: ProxyState): void {
  if (!served(res)) return;
  const body = bodyOf(res);
  if (!body) return;
  const resting = restingOf(state);
  if (isNewOrder(req) && body.status === "NEW" && body.type === "LIMIT" && typeof body.orderId === "number") {
    const p = allParams(req);
    resting.set(body.orderId, {
      symbol: String(body.symbol),
      side: String(body.side),
      price: String(body.price),
      origQty: String(body.origQty),
      icebergQty: p.get("icebergQty") ?? undefined,
    });
  }
  if (isCancel(req) && typeof body.orderId === "number") resting.delete(body.orderId);
  if (isNewOrder(req) && Array.isArray(body.fills) && body.fills.length > 0) resting.clear();
}

/** Adds `delta(order)` to the level of each resting order of the symbol in a depth answer. */
function shiftLevels(
  res: ProxyResponse,
  req: ProxyRequest,
  state: ProxyState,
  delta: (o: Resting) => number,
): ProxyResponse {
  const symbol = new URLSearchParams(req.query).get("symbol");
  return mapJson(res, (json) => {
    const book = json as { bids: Level[]; asks: Level[] };
    for (const order of restingOf(state).values()) {
      if (order.symbol !== symbol) continue;
      const side = order.side === "BUY" ? book.bids : book.asks;
      const level = side.find((l) => Number(l[0]) === Number(order.price));
      if (!level) continue;
      const qty = Number(level[1]) + delta(order);
      level[1] = qty.toFixed(8);
      if (qty <= 1e-12) side.splice(side.indexOf(level), 1);
    }
    return book;
  });
}

export function engineFaults(demo: { apiKey: string; apiSecret: string }): Fault[] {
  const secret = demo.apiSecret;
  return [
    // ---- every symbol ----
    {
      name: "client-id-lost-beside-generated-orderId",
      description:
        "an order with a client-chosen id whose orderId equals the newest generated id's (orderIds count per symbol) is stored as if its id were generated: it is not found by its client order id",
      caughtBy: ["every_symbol"],
      // Open orders are found among the account's open ones; only a closed one is lost.
      request: (req, state) => {
        const id = allParams(req).get("origClientOrderId");
        const lost = state.get("lost ids") as Set<string> | undefined;
        const closed = state.get("closed lost ids") as Set<string> | undefined;
        if (req.method === "DELETE" && at("order")(req) && id && lost?.has(id))
          state.set("closed lost ids", new Set([...(closed ?? []), id]));
        if (req.method !== "GET" || !at("order")(req) || !id || !closed?.has(id)) return req;
        return {
          status: 400,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ code: -2013, msg: "Order does not exist." }),
        };
      },
      response: (req, res, state) => {
        const body = isNewOrder(req) && served(res) ? bodyOf(res) : undefined;
        if (!body || typeof body.orderId !== "number") return res;
        if (!allParams(req).has("newClientOrderId")) state.set("newest generated", body.orderId);
        else if (state.get("newest generated") === body.orderId) {
          const lost = (state.get("lost ids") as Set<string> | undefined) ?? new Set<string>();
          lost.add(String(body.clientOrderId));
          state.set("lost ids", lost);
        }
        return res;
      },
    },
    {
      name: "open-orders-unfiltered-drops-second-symbol",
      description: "open_orders without symbol lists the orders of the first symbol only",
      caughtBy: ["every_symbol"],
      response: (req, res) =>
        at("openOrders")(req) && req.method === "GET" && served(res) && !allParams(req).has("symbol")
          ? mapJson(res, (j) => (Array.isArray(j) ? (j as Json[]).filter((o) => o.symbol === "BTCUSDT") : j))
          : res,
    },
    {
      name: "exchange-info-symbols-halted-while-trading",
      description: "exchangeInfo lists every symbol with status HALT, and every one still takes orders",
      caughtBy: ["every_symbol"],
      response: (req, res) =>
        at("exchangeInfo")(req) && served(res)
          ? mapJson(res, (j) => {
              for (const s of ((j as Json).symbols as Json[] | undefined) ?? []) s.status = "HALT";
              return j;
            })
          : res,
    },
    {
      name: "stop-limit-without-its-stop-accepted",
      description:
        "a STOP_LOSS_LIMIT or TAKE_PROFIT_LIMIT with neither stopPrice nor trailingDelta is accepted (as if the stop were 0)",
      caughtBy: ["announced_rules"],
      response: (req, res) => {
        const p = allParams(req);
        const stopLimit = /^(STOP_LOSS|TAKE_PROFIT)_LIMIT$/.test(p.get("type") ?? "");
        if (
          !isNewOrder(req) ||
          res.status !== 400 ||
          !stopLimit ||
          p.has("stopPrice") ||
          p.has("trailingDelta")
        )
          return res;
        return {
          ...res,
          status: 200,
          body: JSON.stringify({
            symbol: p.get("symbol"),
            orderId: 990_001,
            orderListId: -1,
            clientOrderId: p.get("newClientOrderId") ?? "accepted-without-stop",
            transactTime: Date.now(),
          }),
        };
      },
    },
    {
      name: "cancel-all-reports-other-symbols",
      description:
        "cancel_all_orders on one symbol also reports, as cancelled, the open orders of the account's other symbols",
      caughtBy: ["every_symbol"],
      response: (req, res, state) => {
        const openList = at("openOrders")(req) && served(res);
        if (openList && req.method === "GET" && !allParams(req).has("symbol")) state.set("open", res.body);
        if (!openList || req.method !== "DELETE") return res;
        const symbol = allParams(req).get("symbol");
        const others = list(JSON.parse(String(state.get("open") ?? "[]"))).filter((o) => o.symbol !== symbol);
        return mapJson(res, (j) =>
          Array.isArray(j)
            ? [...j, ...others.map((o) => ({ ...o, origClientOrderId: o.clientOrderId, status: "CANCELED" }))]
            : j,
        );
      },
    },
    {
      name: "query-order-ignores-symbol",
      description: "query_order finds an order by its orderId whatever symbol the request names",
      caughtBy: ["every_symbol"],
      request: (req, state) => {
        const symbols =
          (state.get("symbolOf") as Map<string, string> | undefined) ?? new Map<string, string>();
        state.set("symbolOf", symbols);
        const id = allParams(req).get("orderId");
        const real = id ? symbols.get(id) : undefined;
        if (!(at("order")(req) && req.method === "GET") || !real) return req;
        return onRequest("order", secret, (p) => {
          if (p.get("symbol") === real) return false;
          p.set("symbol", real);
          return true;
        })(req);
      },
      response: (req, res, state) => {
        const body = isNewOrder(req) && served(res) ? bodyOf(res) : undefined;
        if (body && typeof body.orderId === "number") {
          const symbols =
            (state.get("symbolOf") as Map<string, string> | undefined) ?? new Map<string, string>();
          symbols.set(String(body.orderId), String(body.symbol));
          state.set("symbolOf", symbols);
        }
        return res;
      },
    },
    {
      name: "second-symbol-tick-unenforced",
      description: "ETHBTC's tick size is not enforced: a price off it is rounded down, not refused",
      caughtBy: ["exchange_filters"],
      request: onRequest("order", secret, (p) => {
        const price = p.get("price");
        if (p.get("symbol") !== "ETHBTC" || !price || !/\.\d{6,}$/.test(price)) return false;
        p.set("price", Number(price).toFixed(5));
        return true;
      }),
    },
    {
      name: "price-ticker-unfiltered-first-symbol-only",
      description: "ticker/price without symbol answers the first symbol's price only",
      caughtBy: ["result_filter"],
      response: (req, res) =>
        at("ticker/price")(req) &&
        served(res) &&
        !allParams(req).has("symbol") &&
        !allParams(req).has("symbols")
          ? mapJson(res, (j) => (Array.isArray(j) ? j.slice(0, 1) : j))
          : res,
    },
    {
      name: "book-ticker-unfiltered-sides-swapped",
      description:
        "ticker/bookTicker without symbol shows each symbol but the first with bid and ask quantities swapped",
      caughtBy: ["result_filter"],
      response: (req, res) =>
        at("ticker/bookTicker")(req) &&
        served(res) &&
        !allParams(req).has("symbol") &&
        !allParams(req).has("symbols")
          ? mapJson(res, (j) =>
              Array.isArray(j)
                ? (j as Json[]).map((t, i) => (i === 0 ? t : { ...t, bidQty: t.askQty, askQty: t.bidQty }))
                : j,
            )
          : res,
    },
    // ---- the book and the orders ----
    {
      name: "resting-order-missing-from-depth",
      description:
        "order_book leaves out the account's resting LIMIT orders (built from the seeded liquidity only)",
      caughtBy: ["book_orders"],
      response: (req, res, state) => {
        track(req, res, state);
        return at("depth")(req) && served(res)
          ? shiftLevels(res, req, state, (o) => -Number(o.icebergQty ?? o.origQty))
          : res;
      },
    },
    {
      name: "iceberg-whole-quantity-in-depth",
      description: "order_book shows an iceberg's whole quantity, not its visible part",
      caughtBy: ["book_orders"],
      response: (req, res, state) => {
        track(req, res, state);
        return at("depth")(req) && served(res)
          ? shiftLevels(res, req, state, (o) => (o.icebergQty ? Number(o.origQty) - Number(o.icebergQty) : 0))
          : res;
      },
    },
    {
      name: "last-update-id-frozen",
      description: "order_book's lastUpdateId stays at its first value while the book changes",
      caughtBy: ["book_orders"],
      response: (req, res, state) => {
        if (!at("depth")(req) || !served(res)) return res;
        const symbol = new URLSearchParams(req.query).get("symbol") ?? "";
        return mapJson(res, (j) => {
          const book = j as Json;
          const first = state.get(`lastUpdateId:${symbol}`);
          if (first === undefined) state.set(`lastUpdateId:${symbol}`, book.lastUpdateId);
          else book.lastUpdateId = first;
          return book;
        });
      },
    },
    {
      name: "trade-ids-off-by-one",
      description: "new_order's fills report each trade id one above the trade it made",
      caughtBy: ["book_orders"],
      response: (req, res) =>
        isNewOrder(req) && served(res)
          ? mapJson(res, (j) => {
              const body = j as Json;
              if (Array.isArray(body.fills))
                for (const fill of body.fills as Json[])
                  if (typeof fill.tradeId === "number") fill.tradeId += 1;
              return body;
            })
          : res,
    },
    // ---- two accounts ----
    {
      name: "other-account-orders-listed",
      description: "open_orders lists the open orders of every account, not only the caller's",
      caughtBy: ["account_isolation"],
      response: (req, res, state) => {
        const accounts = trackAccounts(req, res, state);
        if (!(at("openOrders")(req) && req.method === "GET" && served(res))) return res;
        const symbol = allParams(req).get("symbol");
        const key = keyOf(req);
        return mapJson(res, (j) => {
          const items = Array.isArray(j) ? [...(j as Json[])] : [];
          for (const [other, orders] of accounts)
            if (other !== key)
              for (const order of orders.values()) if (!symbol || order.symbol === symbol) items.push(order);
          return items;
        });
      },
    },
    {
      name: "other-account-order-queryable",
      description: "query_order by orderId finds another account's order",
      caughtBy: ["account_isolation"],
      response: (req, res, state) => {
        const accounts = trackAccounts(req, res, state);
        if (!(at("order")(req) && req.method === "GET" && res.status === 400 && res.body.includes("-2013")))
          return res;
        const id = Number(allParams(req).get("orderId"));
        for (const [other, orders] of accounts) {
          const order = other !== keyOf(req) ? orders.get(id) : undefined;
          if (order) return { ...res, status: 200, body: JSON.stringify(order) };
        }
        return res;
      },
    },
    {
      name: "other-account-order-queryable-on-ethusdt",
      description:
        "query_order by orderId on ETHUSDT (the second symbol) finds another account's order there",
      caughtBy: ["account_isolation"],
      response: (req, res, state) => {
        const accounts = trackAccounts(req, res, state);
        if (!(at("order")(req) && req.method === "GET" && res.status === 400 && res.body.includes("-2013")))
          return res;
        const params = allParams(req);
        if (params.get("symbol") !== "ETHUSDT") return res;
        const id = Number(params.get("orderId"));
        for (const [other, orders] of accounts) {
          const order = other !== keyOf(req) ? orders.get(id) : undefined;
          if (order?.symbol === "ETHUSDT") return { ...res, status: 200, body: JSON.stringify(order) };
        }
        return res;
      },
    },
    {
      name: "client-id-unique-across-accounts",
      description:
        "client order ids are indexed for the whole exchange: a new order under the id of another account's open order is refused as a duplicate (-2010)",
      caughtBy: ["account_isolation"],
      response: (req, res, state) => {
        const duplicate: ProxyResponse = {
          ...res,
          status: 400,
          headers: { ...res.headers, "content-type": "application/json;charset=UTF-8" },
          body: JSON.stringify({ code: -2010, msg: "Duplicate order sent." }),
        };
        // Read before this answer is recorded: a refused order must not enter the open orders.
        const accounts = trackAccounts(req, duplicate, state);
        const id = allParams(req).get("newClientOrderId");
        const taken = (key: string, orders: Map<number, Json>) =>
          key !== keyOf(req) && [...orders.values()].some((o) => o.clientOrderId === id);
        if (isNewOrder(req) && served(res) && [...accounts].some(([key, orders]) => taken(key, orders)))
          return duplicate;
        trackAccounts(req, res, state);
        return res;
      },
    },
    {
      name: "cancel-all-by-symbol-not-account",
      description:
        "cancel_all_orders cancels every open order on the symbol, whichever account placed it (its answer lists only the caller's)",
      caughtBy: ["account_isolation"],
      request: async (req, state) => {
        const symbol = allParams(req).get("symbol");
        const caller = keyOf(req);
        if (
          !(req.method === "DELETE" && at("openOrders")(req)) ||
          !symbol ||
          !caller.startsWith("embedded-second-")
        )
          return req;
        // The run's account's orders there go first, as a symbol-wide cancel would take them.
        const params = new URLSearchParams({ symbol, timestamp: String(Date.now()) });
        params.set("signature", createHmac("sha256", demo.apiSecret).update(params.toString()).digest("hex"));
        await fetch(`${state.get(UPSTREAM) as string}/api/v3/openOrders?${params}`, {
          method: "DELETE",
          headers: { "x-mbx-apikey": demo.apiKey },
        });
        return req;
      },
    },
    {
      name: "order-count-per-address",
      description: "X-MBX-ORDER-COUNT-* counts the orders of every account on the address, not the caller's",
      caughtBy: ["account_isolation"],
      response: (req, res, state) => {
        if (!isNewOrder(req) || !served(res)) return res;
        const counts =
          (state.get("countsByKey") as Map<string, Map<string, number>> | undefined) ?? new Map();
        state.set("countsByKey", counts);
        const mine = new Map<string, number>();
        for (const [name, value] of Object.entries(res.headers))
          if (/^x-mbx-order-count-/i.test(name)) mine.set(name.toLowerCase(), Number(value));
        counts.set(keyOf(req), mine);
        const headers = { ...res.headers };
        for (const name of mine.keys()) {
          let total = 0;
          for (const byName of counts.values()) total += byName.get(name) ?? 0;
          for (const header of Object.keys(headers))
            if (header.toLowerCase() === name) headers[header] = String(total);
        }
        return { ...res, headers };
      },
    },
    {
      name: "account-balances-in-listing-order",
      description:
        "account_information lists the balances in the order the assets were first credited (newest first), not sorted by asset",
      caughtBy: ["account_views"],
      response: (req, res) =>
        req.method === "GET" && at("account")(req) && served(res)
          ? mapJson(res, (json) => {
              const body = json as Json;
              return Array.isArray(body.balances)
                ? { ...body, balances: [...body.balances].reverse() }
                : json;
            })
          : res,
    },
    {
      name: "taker-commission-not-taken-from-balance",
      description:
        "the commission of a taker's fills is shown on the fills and the account's trades, but never taken from what the account holds of its asset",
      caughtBy: ["account_views"],
      response: (req, res, state) => {
        if (keyOf(req) !== demo.apiKey || !served(res)) return res;
        const unpaid =
          (state.get("unpaid-commission") as Map<string, Dec> | undefined) ?? new Map<string, Dec>();
        state.set("unpaid-commission", unpaid);
        if (isNewOrder(req))
          for (const fill of (bodyOf(res)?.fills as Json[] | undefined) ?? []) {
            const [amount, asset] = [tryParseDec(fill.commission), fill.commissionAsset];
            if (amount !== undefined && typeof asset === "string")
              unpaid.set(asset, (unpaid.get(asset) ?? ZERO) + amount);
          }
        if (!(req.method === "GET" && at("account")(req))) return res;
        return mapJson(res, (json) => {
          const body = json as { balances?: Json[] };
          for (const row of body.balances ?? []) {
            const [free, owed] = [tryParseDec(row.free), unpaid.get(String(row.asset))];
            if (free !== undefined && owed !== undefined) row.free = formatDec(free + owed);
          }
          return body;
        });
      },
    },
    {
      name: "market-quote-budget-one-step-short",
      description:
        "a MARKET order by quoteOrderQty adds steps while the cost stays strictly under the budget, so a budget of a whole number of steps buys one step less; its answers still echo the budget",
      caughtBy: ["order_arithmetic"],
      request: (req) => {
        const p = allParams(req);
        const budget = tryParseDec(p.get("quoteOrderQty"));
        if (!isNewOrder(req) || keyOf(req) !== demo.apiKey || p.get("type") !== "MARKET") return req;
        if (budget === undefined || budget <= unitOf(8)) return req;
        const short = resign(req, secret, (q) => q.set("quoteOrderQty", formatDec(budget - unitOf(8))));
        return { ...short, headers: { ...short.headers, "x-budget-asked": formatDec(budget) } };
      },
      // Every answer that shows such an order (placed, queried, listed, cancelled) echoes the budget asked.
      response: (req, res, state) => {
        if (!served(res)) return res;
        const budgets =
          (state.get("budgets-asked") as Map<string, Dec> | undefined) ?? new Map<string, Dec>();
        state.set("budgets-asked", budgets);
        const asked = tryParseDec(req.headers["x-budget-asked"]);
        const visit = (o: Json) => {
          const key = `${String(o.symbol)}:${String(o.orderId)}`;
          if (asked !== undefined && isNewOrder(req) && typeof o.orderId === "number")
            budgets.set(key, asked);
          const budget = budgets.get(key);
          if (budget !== undefined && typeof o.origQuoteOrderQty === "string")
            o.origQuoteOrderQty = sameDecimals(budget, o.origQuoteOrderQty);
          for (const report of (o.orderReports as Json[] | undefined) ?? []) visit(report);
        };
        return mapJson(res, (json) => {
          for (const item of Array.isArray(json) ? json : [json])
            if (typeof item === "object" && item !== null) visit(item as Json);
          return json;
        });
      },
    },
    {
      name: "trailing-time-set-at-placement",
      description:
        "a trailing stop placed with a stopPrice shows trailingTime as the time it was placed, not -1, before the market reaches its stopPrice (not active)",
      caughtBy: ["announced_rules"],
      response: (req, res) => {
        if (!served(res) || !isNewOrder(req)) return res;
        return mapJson(res, (json) => {
          const order = json as Json;
          if (order.trailingTime === -1) order.trailingTime = order.transactTime ?? order.workingTime;
          return order;
        });
      },
    },
    {
      name: "trailing-without-stop-price-never-active",
      description:
        "a trailing stop placed without a stopPrice answers trailingTime -1 (waiting, as if anchored), though without a stopPrice it tracks the last price from its placement",
      caughtBy: ["announced_rules"],
      response: (req, res) => {
        const p = allParams(req);
        if (!served(res) || !isNewOrder(req) || !p.has("trailingDelta") || p.has("stopPrice")) return res;
        return mapJson(res, (json) => {
          const order = json as Json;
          if (typeof order.trailingTime === "number" && order.trailingTime >= 0) order.trailingTime = -1;
          return order;
        });
      },
    },
    {
      name: "market-both-quantities-takes-quantity",
      description:
        "a MARKET order given both quantity and quoteOrderQty (x-order-type-rules: exactly one) is taken for its quantity, the budget ignored",
      caughtBy: ["announced_rules"],
      request: (req) => {
        const p = allParams(req);
        if (!isNewOrder(req) || keyOf(req) !== demo.apiKey || p.get("type") !== "MARKET") return req;
        if (!p.has("quantity") || !p.has("quoteOrderQty")) return req;
        return resign(req, secret, (q) => q.delete("quoteOrderQty"));
      },
    },
    {
      name: "account-update-time-of-its-first-order",
      description:
        "account_information's updateTime is the time of the account's first accepted order, not of its last balance change",
      caughtBy: ["account_views"],
      response: (req, res, state) => {
        const order = isNewOrder(req) && served(res) ? bodyOf(res) : undefined;
        if (typeof order?.transactTime === "number" && !state.has("first-order-time"))
          state.set("first-order-time", order.transactTime);
        const first = state.get("first-order-time");
        return req.method === "GET" && at("account")(req) && served(res) && typeof first === "number"
          ? mapJson(res, (json) => ({ ...(json as Json), updateTime: first }))
          : res;
      },
    },
    {
      name: "my-trades-end-time-alone-from-the-oldest",
      description: "myTrades with endTime alone lists the oldest trades up to it, not the newest",
      caughtBy: ["account_views"],
      request: (req) => {
        const p = allParams(req);
        if (!at("myTrades")(req) || !p.has("endTime") || p.has("startTime") || keyOf(req) !== demo.apiKey)
          return req;
        const asked = req.query.get("limit") ?? "500";
        const widened = resign(req, demo.apiSecret, (q) => q.set("limit", "1000"));
        return { ...widened, headers: { ...widened.headers, "x-limit-asked": asked } };
      },
      response: (req, res) => {
        const asked = Number(req.headers["x-limit-asked"]);
        return Number.isInteger(asked) && served(res)
          ? mapJson(res, (json) => (Array.isArray(json) ? json.slice(0, asked) : json))
          : res;
      },
    },
    {
      name: "my-trades-unsupported-windows-served",
      description:
        "myTrades serves what the document refuses: a window longer than 24 hours (-1127), and orderId with a time bound (-1128)",
      caughtBy: ["account_views"],
      response: (req, res) => {
        const code = res.status === 400 ? bodyOf(res)?.code : undefined;
        return at("myTrades")(req) && (code === -1127 || code === -1128)
          ? { ...res, status: 200, body: "[]" }
          : res;
      },
    },
    {
      name: "klines-end-time-bounds-the-close-time",
      description:
        "klines with endTime leave out the candle that opens before it but closes after it (endTime bounds the close time, not the open time)",
      caughtBy: ["account_views"],
      response: (req, res) => {
        const endTime = Number(allParams(req).get("endTime") ?? Number.NaN);
        return at("klines")(req) && Number.isFinite(endTime) && served(res)
          ? mapJson(res, (json) =>
              Array.isArray(json) ? (json as unknown[][]).filter((row) => Number(row[6]) <= endTime) : json,
            )
          : res;
      },
    },
    {
      name: "klines-unknown-interval-served-as-one-minute",
      description:
        "klines with an interval the document does not list (or a listed one in the other case) falls back to 1m instead of refusing it with -1120",
      caughtBy: ["account_views"],
      request: (req) => {
        const interval = req.query.get("interval");
        if (req.method !== "GET" || !at("klines")(req) || interval === null || KLINE_INTERVALS.has(interval))
          return req;
        const query = new URLSearchParams(req.rawQuery);
        query.set("interval", "1m");
        return { ...req, query, rawQuery: query.toString() };
      },
    },
    {
      name: "ended-orders-read-not-working",
      description:
        "query_order, open_orders and all_orders show isWorking false for an order that ended (filled, cancelled, expired) while keeping its workingTime: the flag computed as 'still on the book'",
      caughtBy: ["order_times"],
      response: (req, res) => {
        const read =
          req.method === "GET" && (at("order")(req) || at("openOrders")(req) || at("allOrders")(req));
        if (!read || !served(res)) return res;
        const ended = (o: Json) =>
          ["FILLED", "CANCELED", "EXPIRED", "EXPIRED_IN_MATCH"].includes(String(o.status));
        return mapJson(res, (json) => {
          for (const o of (Array.isArray(json) ? json : [json]) as Json[])
            if (ended(o) && o.isWorking === true) o.isWorking = false;
          return json;
        });
      },
    },
    {
      name: "all-orders-open-listed-last",
      description:
        "all_orders lists the account's ended orders by orderId and then its open ones (two stores joined, not sorted), so an open order older than an ended one comes last",
      caughtBy: ["list_order"],
      response: (req, res) => {
        if (req.method !== "GET" || !at("allOrders")(req) || !served(res)) return res;
        const open = (o: Json) => ["NEW", "PARTIALLY_FILLED"].includes(String(o.status));
        return mapJson(res, (json) =>
          Array.isArray(json)
            ? [...(json as Json[]).filter((o) => !open(o)), ...(json as Json[]).filter(open)]
            : json,
        );
      },
    },
    {
      name: "account-view-kept-without-the-key",
      description:
        "the account view's answer is kept under its path alone, without the API key, and refreshed only by the key that wrote it, so an account that reads it after another gets the other's",
      caughtBy: ["account_isolation"],
      response: (req, res, state) => {
        if (req.method !== "GET" || !at("account")(req) || !served(res)) return res;
        const kept = state.get("account-view") as { key: string; body: string } | undefined;
        if (kept && kept.key !== keyOf(req)) return { ...res, body: kept.body };
        state.set("account-view", { key: keyOf(req), body: res.body });
        return res;
      },
    },
    {
      name: "klines-start-time-page-one-short",
      description:
        "klines with startTime and a limit that the candles after it fill stop one candle short (the page's end computed as startTime + (limit - 1) intervals, exclusive)",
      caughtBy: ["account_views"],
      response: (req, res) => {
        const p = allParams(req);
        const limit = Number(p.get("limit") ?? Number.NaN);
        if (req.method !== "GET" || !at("klines")(req) || !p.has("startTime") || !served(res)) return res;
        return mapJson(res, (json) =>
          Array.isArray(json) && json.length === limit && limit > 1 ? json.slice(0, -1) : json,
        );
      },
    },
    {
      name: "stop-locks-shown-free",
      description:
        "account_information shows what an untriggered stop order holds as free, not locked (the lock counted only once the stop fires), though the document says a stop locks what its counterpart would",
      caughtBy: ["account_views"],
      response: (req, res, state) => {
        if (keyOf(req) !== demo.apiKey || !served(res)) return res;
        const stops = (state.get("waiting-stops") as Map<string, [string, Dec]> | undefined) ?? new Map();
        state.set("waiting-stops", stops);
        const body = bodyOf(res);
        const key = `${String(body?.symbol)}:${String(body?.orderId)}`;
        if (isNewOrder(req) && body?.status === "NEW" && /^(STOP_LOSS|TAKE_PROFIT)/.test(String(body.type))) {
          const lock = stopLock(body);
          if (lock) stops.set(key, lock);
        }
        if (isCancel(req)) stops.delete(key);
        if (!(req.method === "GET" && at("account")(req))) return res;
        return mapJson(res, (json) => {
          for (const row of (json as { balances?: Json[] }).balances ?? [])
            for (const [asset, amount] of stops.values()) {
              const [free, locked] = [tryParseDec(row.free), tryParseDec(row.locked)];
              // A stop cancelled with the rest, or fired, since: nothing of it is locked any more.
              if (row.asset !== asset || free === undefined || locked === undefined || locked < amount)
                continue;
              row.free = sameDecimals(free + amount, String(row.free));
              row.locked = sameDecimals(locked - amount, String(row.locked));
            }
          return json;
        });
      },
    },
    {
      name: "free-counts-the-locked-too",
      description:
        "account_information shows free as free + locked (what open orders hold counted as spendable as well), though the document says free is what the account may spend and locked what its open orders hold",
      caughtBy: ["account_views"],
      response: (req, res) => {
        if (!(req.method === "GET" && at("account")(req)) || !served(res)) return res;
        return mapJson(res, (json) => {
          for (const row of (json as { balances?: Json[] }).balances ?? []) {
            const [free, locked] = [tryParseDec(row.free), tryParseDec(row.locked)];
            if (free !== undefined && locked !== undefined && locked > ZERO)
              row.free = sameDecimals(free + locked, String(row.free));
          }
          return json;
        });
      },
    },
    {
      name: "klines-current-candle-left-out",
      description:
        "klines without startTime and endTime answer closed candles only (asking one more and leaving out the newest, so the count stays), though the series ends with the candle that holds the server's time",
      caughtBy: ["account_views"],
      request: (req) => {
        const p = allParams(req);
        if (req.method !== "GET" || !at("klines")(req) || p.has("startTime") || p.has("endTime")) return req;
        const query = new URLSearchParams(req.rawQuery);
        query.set("limit", String(Math.min(Number(p.get("limit") ?? 500) + 1, 1000)));
        return { ...req, query, rawQuery: query.toString() };
      },
      response: (req, res) => {
        const p = allParams(req);
        if (
          req.method !== "GET" ||
          !at("klines")(req) ||
          p.has("startTime") ||
          p.has("endTime") ||
          !served(res)
        )
          return res;
        return mapJson(res, (json) => (Array.isArray(json) ? json.slice(0, -1) : json));
      },
    },
    {
      name: "prevention-fields-on-every-order",
      description:
        "every order read carries preventedMatchId -1 and preventedQuantity 0 (defaults of a record field written out), though self-trade prevention never acted on the order",
      caughtBy: ["order_views"],
      response: (req, res) => {
        const read =
          req.method === "GET" && (at("order")(req) || at("openOrders")(req) || at("allOrders")(req));
        if (!read || !served(res)) return res;
        return mapJson(res, (json) => {
          for (const o of (Array.isArray(json) ? json : [json]) as Json[])
            if (o.preventedMatchId === undefined)
              Object.assign(o, { preventedMatchId: -1, preventedQuantity: "0.00000000" });
          return json;
        });
      },
    },
    {
      name: "my-trades-listed-by-order",
      description:
        "myTrades lists the account's trades grouped by order (by orderId, then trade id), not oldest first",
      caughtBy: ["account_views"],
      response: (req, res) =>
        req.method === "GET" && at("myTrades")(req) && served(res)
          ? mapJson(res, (json) =>
              Array.isArray(json)
                ? [...(json as Json[])].sort(
                    (a, b) => Number(a.orderId) - Number(b.orderId) || Number(a.id) - Number(b.id),
                  )
                : json,
            )
          : res,
    },
    {
      name: "self-trade-listed-for-the-taker-only",
      description:
        "myTrades lists a trade between two of the account's orders once, as the taker's, not once for each order",
      caughtBy: ["account_views"],
      response: (req, res) =>
        req.method === "GET" && at("myTrades")(req) && served(res)
          ? mapJson(res, (json) => {
              if (!Array.isArray(json)) return json;
              const items = json as Json[];
              const twice = new Set(items.filter((t) => t.isMaker === false).map((t) => t.id));
              return items.filter((t) => !(t.isMaker === true && twice.has(t.id)));
            })
          : res,
    },
    // ---- counters by meaning ----
    {
      name: "ioc-takes-the-best-level-only",
      description:
        "a LIMIT IOC executes at the best opposite price level only and expires the rest, though further levels lie within its price",
      caughtBy: ["stateful_exploration", "trade_statistics", "stop_triggers", "aggregate_cover"],
      ...atTheBestLevelOnly(demo, "IOC"),
    },
    {
      name: "fok-checked-against-the-best-level-only",
      description:
        "a LIMIT FOK is filled only if the best opposite price level holds all of it, though further levels lie within its price",
      caughtBy: ["order_arithmetic", "stateful_exploration"],
      ...atTheBestLevelOnly(demo, "FOK"),
    },
    {
      name: "cancel-all-weighs-each-order",
      description:
        "cancel_all_orders is charged its weight once for each order it cancels, instead of x-weight's 1 per request",
      caughtBy: ["rate_counters"],
      response: (req, res, state) => {
        const cancelled =
          req.method === "DELETE" && at("openOrders")(req) && served(res)
            ? list(JSON.parse(res.body)).length
            : 0;
        return shiftedWeight(res, state, "extra", Math.max(0, cancelled - 1));
      },
    },
    {
      name: "all-orders-from-id-weighs-less",
      description:
        "all_orders with an orderId is charged 5, the weight of another operation, instead of its x-weight 20",
      caughtBy: ["rate_counters"],
      response: (req, res, state) => {
        const fromId = at("allOrders")(req) && allParams(req).has("orderId") && served(res);
        return shiftedWeight(res, state, "uncharged", fromId ? -15 : 0);
      },
    },
    {
      name: "refused-order-counted",
      description: "the order counters count refused orders too",
      caughtBy: ["rate_counters"],
      response: (req, res, state) => {
        if (!isNewOrder(req)) return res;
        const refused = (state.get("refused") as number | undefined) ?? 0;
        if (res.status >= 400 && res.status < 500) {
          state.set("refused", refused + 1);
          return res;
        }
        const headers = { ...res.headers };
        for (const name of Object.keys(headers))
          if (/^x-mbx-order-count-/i.test(name)) headers[name] = String(Number(headers[name]) + refused);
        return { ...res, headers };
      },
    },
    // Not in the catalog: a daily order count that carries the ten-second one. A run whose orders
    // all fall within ten seconds (a default run against a fresh server) gets equal counts from a
    // right and a wrong server, so no run of that length can tell them apart; rate_counters judges
    // the daily count by the orders of the whole run, which sees it once a run spans the window.
    // ---- clocks by meaning ----
    {
      name: "update-time-frozen-after-cancel",
      description: "a cancelled order's updateTime stays at its placement",
      caughtBy: ["order_times"],
      response: (req, res) =>
        at("order")(req) && req.method === "GET" && served(res)
          ? mapJson(res, (j) =>
              (j as Json).status === "CANCELED" ? { ...(j as Json), updateTime: (j as Json).time } : j,
            )
          : res,
    },
    {
      name: "update-time-frozen-after-fill",
      description: "a filled order's updateTime stays at its placement",
      caughtBy: ["order_times"],
      response: (req, res) =>
        at("order")(req) && req.method === "GET" && served(res)
          ? mapJson(res, (j) =>
              (j as Json).status === "FILLED" ? { ...(j as Json), updateTime: (j as Json).time } : j,
            )
          : res,
    },
    {
      name: "update-time-frozen-after-fill-on-ethusdt",
      description: "a filled ETHUSDT order's updateTime (the second symbol) stays at its placement",
      caughtBy: ["order_times"],
      response: (req, res) =>
        at("order")(req) && req.method === "GET" && req.query.get("symbol") === "ETHUSDT" && served(res)
          ? mapJson(res, (j) =>
              (j as Json).status === "FILLED" ? { ...(j as Json), updateTime: (j as Json).time } : j,
            )
          : res,
    },
    {
      name: "ticker24-last-qty-of-the-aggregate-on-ethbtc",
      description:
        "the 24-hour ticker of ETHBTC (the third symbol) shows as lastQty the newest aggregate trade's quantity (all the trades its taker made at that price), not the newest trade's",
      caughtBy: ["trade_statistics"],
      request: async (req, state) => {
        if (req.method !== "GET" || !at("ticker/24hr")(req)) return req;
        const symbol = req.query.get("symbol");
        if (symbol !== null && symbol !== "ETHBTC") return req;
        const read = await fetch(`${state.get(UPSTREAM) as string}/api/v3/aggTrades?symbol=ETHBTC&limit=1`);
        const newest = list(await read.json())[0];
        // The read weighs 4 on the address: taken off every later answer's counter, as no client sent it.
        state.set("proxyWeight", ((state.get("proxyWeight") as number | undefined) ?? 0) + 4);
        return newest
          ? { ...req, headers: { ...req.headers, "x-newest-aggregate": JSON.stringify(newest) } }
          : req;
      },
      response: (req, res, state) => {
        const proxyWeight = (state.get("proxyWeight") as number | undefined) ?? 0;
        const used = Number(res.headers["x-mbx-used-weight-1m"]);
        const counted = Number.isInteger(used)
          ? {
              ...res,
              headers: { ...res.headers, "x-mbx-used-weight-1m": String(Math.max(0, used - proxyWeight)) },
            }
          : res;
        const raw = req.headers["x-newest-aggregate"];
        if (raw === undefined || !served(counted)) return counted;
        const aggregate = JSON.parse(raw) as Json;
        if (Number(aggregate.f) >= Number(aggregate.l)) return counted;
        return mapJson(counted, (json) => {
          for (const ticker of Array.isArray(json) ? (json as Json[]) : [json as Json])
            if (ticker.symbol === "ETHBTC" && Number(ticker.lastId) === Number(aggregate.l))
              ticker.lastQty = aggregate.q;
          return json;
        });
      },
    },
    {
      name: "cancel-by-client-id-across-symbols",
      description:
        "cancel_order by origClientOrderId alone finds the account's order with that id on any symbol (the index is the account's, not the symbol's), and cancels it",
      caughtBy: ["every_symbol"],
      request: (req, state) => {
        const params = allParams(req);
        const id = params.get("origClientOrderId");
        const symbol = params.get("symbol");
        if (!isCancel(req) || id === null || symbol === null || params.has("orderId")) return req;
        const placedOn = state.get(`placed-on:${id}`) as string | undefined;
        return placedOn === undefined || placedOn === symbol
          ? req
          : resign(req, demo.apiSecret, (p) => p.set("symbol", placedOn));
      },
      response: (req, res, state) => {
        const order = isNewOrder(req) && served(res) ? bodyOf(res) : undefined;
        if (typeof order?.clientOrderId === "string" && typeof order.symbol === "string")
          state.set(`placed-on:${order.clientOrderId}`, order.symbol);
        return res;
      },
    },
    {
      name: "refused-cancel-stamps-update-time",
      description:
        "a cancel refused because the order is no longer open (-2011) still writes its time into the order's updateTime",
      caughtBy: ["order_times"],
      response: (req, res, state) => {
        const params = allParams(req);
        const key = (symbol: unknown, id: unknown) => `refused-cancel:${String(symbol)}:${String(id)}`;
        if (isCancel(req) && bodyOf(res)?.code === -2011) {
          const id = params.get("orderId") ?? params.get("origClientOrderId");
          state.set(key(params.get("symbol"), id), Date.now());
          return res;
        }
        if (req.method !== "GET" || !at("order")(req) || !served(res)) return res;
        return mapJson(res, (j) => {
          const order = j as Json;
          const stamp = (state.get(key(order.symbol, order.orderId)) ??
            state.get(key(order.symbol, order.clientOrderId))) as number | undefined;
          const micro = req.headers["x-mbx-time-unit"]?.toUpperCase() === "MICROSECOND";
          return stamp === undefined ? order : { ...order, updateTime: micro ? stamp * 1000 : stamp };
        });
      },
    },
    {
      name: "cancel-transact-time-is-order-time",
      description: "cancel_order's transactTime is when the order was placed, not when it was cancelled",
      caughtBy: ["order_times"],
      response: (req, res, state) => {
        const placedAt =
          (state.get("placedAt") as Map<number, number> | undefined) ?? new Map<number, number>();
        state.set("placedAt", placedAt);
        const body = served(res) ? bodyOf(res) : undefined;
        if (isNewOrder(req) && typeof body?.orderId === "number" && typeof body.transactTime === "number")
          placedAt.set(body.orderId, body.transactTime);
        if (isCancel(req) && typeof body?.orderId === "number" && placedAt.has(body.orderId))
          return mapJson(res, (j) => ({
            ...(j as Json),
            transactTime: placedAt.get(body.orderId as number),
          }));
        return res;
      },
    },
    {
      name: "transact-time-in-seconds",
      description: "new_order's transactTime in seconds",
      caughtBy: ["order_times"],
      response: (req, res) =>
        isNewOrder(req) && served(res)
          ? mapJson(res, (j) => {
              const body = j as Json;
              if (typeof body.transactTime === "number")
                body.transactTime = Math.floor(body.transactTime / 1000);
              return body;
            })
          : res,
    },
    {
      name: "timestamp-in-seconds-accepted",
      description: "a signed request whose timestamp is in seconds is read as milliseconds and served",
      caughtBy: ["auth_enforcement"],
      request: (req) => {
        const ts = Number(allParams(req).get("timestamp"));
        if (!(ts > 0 && ts < 1e11)) return req;
        return resign(req, secret, (p) => p.set("timestamp", String(ts * 1000)));
      },
    },
    // ---- stops ----
    {
      name: "stop-never-fires",
      description: "a stop order reads as waiting (NEW, not working) whatever the last price does",
      caughtBy: ["stop_triggers"],
      response: onStopQuery((order) => ({
        ...order,
        status: "NEW",
        isWorking: false,
        workingTime: -1,
        executedQty: "0.00000000",
      })),
    },
    {
      name: "stop-never-fires-on-ethusdt",
      description:
        "a stop order of ETHUSDT (the second symbol) reads as waiting (NEW, not working) whatever its last price does",
      caughtBy: ["stop_triggers"],
      response: onStopQuery((order) =>
        order.symbol === "ETHUSDT"
          ? { ...order, status: "NEW", isWorking: false, workingTime: -1, executedQty: "0.00000000" }
          : order,
      ),
    },
    {
      name: "take-profit-working-at-once",
      description:
        "a TAKE_PROFIT_LIMIT order works from the moment it is placed, before the last price reaches its stop",
      caughtBy: ["stop_triggers"],
      response: onStopQuery((order) =>
        order.type === "TAKE_PROFIT_LIMIT" ? { ...order, isWorking: true, workingTime: order.time } : order,
      ),
    },
    {
      name: "stop-working-time-unset",
      description: "a stop that fired keeps workingTime -1",
      caughtBy: ["stop_triggers"],
      response: onStopQuery((order) => (order.isWorking === true ? { ...order, workingTime: -1 } : order)),
    },
    ...timeUnitFaults(),
    ...epochUnitFaults(secret),
  ];
}

// ---- time parameters in microseconds (x-epoch-time) ----
/** The bound the spec states; the faults are servers, so they may know it. */
const MICROS_FROM = 1e14;
const inMicrosValue = (text: string | null | undefined) => text != null && Number(text) >= MICROS_FROM;
const timestampInMicros = (req: ProxyRequest) => inMicrosValue(allParams(req).get("timestamp"));
const WINDOW_READS = ["aggTrades", "allOrders"];
const refusal = (code: number, msg: string): ProxyResponse => ({
  status: 400,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ code, msg }),
});

/** A request fault on the window reads: `change` edits startTime/endTime in microseconds. */
function onWindowBound(secret: string, name: string, change: (micros: number) => number) {
  return (req: ProxyRequest): ProxyRequest => {
    const path = WINDOW_READS.find((p) => at(p)(req));
    if (path === undefined) return req;
    return onRequest(path, secret, (params) => {
      const value = params.get(name);
      if (!inMicrosValue(value)) return false;
      params.set(name, String(change(Number(value))));
      return true;
    })(req);
  };
}

function epochUnitFaults(secret: string): Fault[] {
  return [
    {
      name: "microsecond-timestamp-refused",
      description: "a timestamp in microseconds is refused as malformed (-1100)",
      caughtBy: ["epoch_units"],
      request: (req) =>
        timestampInMicros(req)
          ? refusal(
              -1100,
              "Illegal characters found in parameter 'timestamp'; legal range is '^[0-9]{1,13}$'.",
            )
          : req,
    },
    {
      name: "microsecond-timestamp-window-in-ms",
      description:
        "a timestamp in microseconds is judged against recvWindow as if the window were microseconds: anything older than 5 ms is refused",
      caughtBy: ["epoch_units"],
      request: (req) => {
        if (!timestampInMicros(req)) return req;
        const age = Date.now() * 1000 - Number(allParams(req).get("timestamp"));
        return age > 5000 ? refusal(-1021, "Timestamp for this request is outside of the recvWindow.") : req;
      },
    },
    {
      name: "microsecond-timestamp-not-judged",
      description:
        "a timestamp in microseconds is accepted whatever instant it names (neither the window nor the lead)",
      caughtBy: ["epoch_units"],
      request: (req) =>
        timestampInMicros(req) ? resign(req, secret, (p) => p.set("timestamp", String(Date.now()))) : req,
    },
    {
      name: "microsecond-bounds-read-as-ms",
      description:
        "startTime/endTime in microseconds are read as milliseconds (tens of thousands of years ahead): nothing is selected",
      caughtBy: ["epoch_units"],
      response: (req, res) =>
        WINDOW_READS.some((p) => at(p)(req)) &&
        served(res) &&
        (inMicrosValue(allParams(req).get("startTime")) || inMicrosValue(allParams(req).get("endTime")))
          ? { ...res, body: "[]" }
          : res,
    },
    {
      name: "microsecond-start-rounded-down",
      description:
        "a startTime in microseconds is cut to its millisecond: items in the millisecond before the bound's instant are selected",
      caughtBy: ["epoch_units"],
      request: onWindowBound(secret, "startTime", (micros) => Math.floor(micros / 1000)),
    },
    {
      name: "microsecond-end-rounded-up",
      description:
        "an endTime in microseconds is rounded up to the next millisecond: items in the millisecond after the bound's instant are selected",
      caughtBy: ["epoch_units"],
      request: onWindowBound(secret, "endTime", (micros) => Math.ceil(micros / 1000)),
    },
  ];
}

// ---- the time-unit header (X-MBX-TIME-UNIT) ----
const UNIT_HEADER = "x-mbx-time-unit";
const unitAsked = (req: ProxyRequest) => req.headers[UNIT_HEADER];
const inMicros = (req: ProxyRequest) => unitAsked(req)?.toUpperCase() === "MICROSECOND";

/** Applies `change` to every object of a JSON answer, however deep. */
function everyObject(json: unknown, change: (object: Json) => Json): unknown {
  if (Array.isArray(json)) return json.map((item) => everyObject(item, change));
  if (typeof json !== "object" || json === null) return json;
  const object: Json = {};
  for (const [key, value] of Object.entries(json)) object[key] = everyObject(value, change);
  return change(object);
}

function timeUnitFaults(): Fault[] {
  return [
    {
      name: "time-unit-header-ignored",
      description: "X-MBX-TIME-UNIT is not read: every answer is in milliseconds",
      caughtBy: ["time_unit"],
      request: (req) => {
        const headers = { ...req.headers };
        delete headers[UNIT_HEADER];
        return { ...req, headers };
      },
    },
    {
      name: "time-unit-field-left-in-milliseconds",
      description: "with MICROSECOND, closeTime (avgPrice, the 24-hour ticker) stays in milliseconds",
      caughtBy: ["time_unit"],
      response: (req, res) =>
        inMicros(req) && served(res)
          ? mapJson(res, (json) =>
              everyObject(json, (o) =>
                typeof o.closeTime === "number" ? { ...o, closeTime: Math.floor(o.closeTime / 1000) } : o,
              ),
            )
          : res,
    },
    {
      name: "time-unit-ids-scaled",
      description: "with MICROSECOND, every integer of the answer is multiplied by 1000, ids included",
      caughtBy: ["time_unit"],
      response: (req, res) =>
        inMicros(req) && served(res)
          ? mapJson(res, (json) =>
              everyObject(json, (o) => {
                const out: Json = { ...o };
                for (const [key, value] of Object.entries(o))
                  if (/Id$|^id$|^a$/.test(key) && typeof value === "number" && value > 0)
                    out[key] = value * 1000;
                return out;
              }),
            )
          : res,
    },
    {
      name: "time-unit-lower-case-refused",
      description: "X-MBX-TIME-UNIT: microsecond (lower case) is refused with -1194",
      caughtBy: ["time_unit"],
      request: (req) =>
        unitAsked(req) === "microsecond"
          ? {
              status: 400,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                code: -1194,
                msg: "Invalid value for time unit; expected either MICROSECOND or MILLISECOND.",
              }),
            }
          : req,
    },
    {
      name: "time-unit-unknown-value-served",
      description: "an X-MBX-TIME-UNIT value other than the two units is served in milliseconds",
      caughtBy: ["time_unit"],
      request: (req) => {
        const unit = unitAsked(req);
        if (unit === undefined || ["MICROSECOND", "MILLISECOND"].includes(unit.toUpperCase())) return req;
        const headers = { ...req.headers };
        delete headers[UNIT_HEADER];
        return { ...req, headers };
      },
    },
    {
      name: "time-unit-answer-kept-by-url",
      description:
        "answers are kept by URL alone: the answer asked for in microseconds is given to the next request of the URL without the header",
      caughtBy: ["time_unit"],
      response: (req, res, state) => {
        if (req.method !== "GET" || !served(res)) return res;
        const key = `kept ${req.path}?${req.rawQuery}`;
        if (inMicros(req)) {
          state.set(key, res);
          return res;
        }
        const kept = state.get(key) as ProxyResponse | undefined;
        if (kept === undefined || unitAsked(req) !== undefined) return res;
        state.delete(key);
        return kept;
      },
    },
  ];
}

const keyOf = (req: ProxyRequest) => req.headers["x-mbx-apikey"] ?? "";

/** The candle intervals the sandbox document lists (its interval parameter's enum). */
const KLINE_INTERVALS = new Set(
  (viewOperation(VIEWS.klines)?.parameters.find((p) => p.name === "interval")?.resolvedSchema.enum ?? []).map(
    String,
  ),
);

/** What a stop order's answer says it locks: a SELL its base quantity, a stop-limit BUY price × quantity of the quote. */
function stopLock(order: Json): [string, Dec] | undefined {
  const symbol = String(order.symbol);
  const quote = ["USDT", "BTC", "ETH", "BNB"].find((q) => symbol.endsWith(q) && symbol !== q);
  const [qty, price] = [tryParseDec(order.origQty), tryParseDec(order.price)];
  if (!quote || qty === undefined) return undefined;
  if (order.side === "SELL") return [symbol.slice(0, -quote.length), qty];
  return price !== undefined && String(order.type).endsWith("_LIMIT") ? [quote, mul(price, qty)] : undefined;
}

/** `value` written with as many decimals as `like` shows (the server's own format). */
function sameDecimals(value: Dec, like: string): string {
  const decimals = like.split(".")[1]?.length ?? 0;
  const [whole, fraction = ""] = formatDec(value).split(".");
  return decimals > 0 ? `${whole}.${fraction.padEnd(decimals, "0")}` : whole!;
}

/**
 * A LIMIT taker of `timeInForce` matched as if its price were the best opposite level's: it takes
 * nothing beyond that level. Every view of the order shows the price it was sent with.
 */
function atTheBestLevelOnly(
  demo: { apiKey: string; apiSecret: string },
  timeInForce: "IOC" | "FOK",
): Pick<Fault, "request" | "response"> {
  return {
    request: async (req, state) => {
      const p = allParams(req);
      const [symbol, price, side] = [p.get("symbol"), p.get("price"), p.get("side")];
      if (!isNewOrder(req) || keyOf(req) !== demo.apiKey) return req;
      if (p.get("type") !== "LIMIT" || p.get("timeInForce") !== timeInForce) return req;
      if (!symbol || !price || !/^[A-Z0-9]{1,20}$/.test(symbol) || !/^\d+(\.\d+)?$/.test(price)) return req;
      const book = (await peekUpstream(state, `/api/v3/depth?symbol=${symbol}&limit=1`)) as
        | { bids?: string[][]; asks?: string[][] }
        | undefined;
      const best = side === "BUY" ? book?.asks?.[0]?.[0] : book?.bids?.[0]?.[0];
      if (!best || !(side === "BUY" ? Number(price) > Number(best) : Number(price) < Number(best)))
        return req;
      const limited = resign(req, demo.apiSecret, (q) => q.set("price", best));
      return { ...limited, headers: { ...limited.headers, "x-taker-asked": price } };
    },
    response: (req, res, state) => {
      // Every view of the order shows the price it was sent with, as the faulty engine keeps it.
      const asked =
        (state.get("taker-asked") as Map<string, string> | undefined) ?? new Map<string, string>();
      state.set("taker-asked", asked);
      const sent = req.headers["x-taker-asked"];
      const body = served(res) ? bodyOf(res) : undefined;
      if (sent && body) asked.set(`${String(body.symbol)}:${String(body.orderId)}`, sent);
      const onOrders = ["order", "openOrders", "allOrders"].some((path) => at(path)(req));
      if (!onOrders || !served(res) || asked.size === 0) return res;
      const withAsked = (o: Json) => {
        const price = asked.get(`${String(o.symbol)}:${String(o.orderId)}`);
        return price === undefined ? o : { ...o, price };
      };
      return mapJson(res, (json) =>
        Array.isArray(json) ? (json as Json[]).map(withAsked) : withAsked(json as Json),
      );
    },
  };
}

/**
 * A faulty server's look at its own book: a GET on the upstream from another loopback address
 * (127.0.0.2), so that the weight counted for the run's address does not move.
 */
function peekUpstream(state: ProxyState, path: string): Promise<unknown> {
  const base = new URL(String(state.get(UPSTREAM)));
  return new Promise((resolve) => {
    const request = httpRequest(
      { host: base.hostname, port: base.port, path, method: "GET", localAddress: "127.0.0.2" },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          } catch {
            resolve(undefined);
          }
        });
      },
    );
    request.on("error", () => resolve(undefined));
    request.end();
  });
}

/** The open orders the proxy saw placed, by the API key that placed them (as query_order shows them). */
function trackAccounts(
  req: ProxyRequest,
  res: ProxyResponse,
  state: ProxyState,
): Map<string, Map<number, Json>> {
  const accounts = (state.get("accounts") as Map<string, Map<number, Json>> | undefined) ?? new Map();
  state.set("accounts", accounts);
  const body = served(res) ? bodyOf(res) : undefined;
  if (isNewOrder(req) && body?.status === "NEW" && typeof body.orderId === "number") {
    const orders = accounts.get(keyOf(req)) ?? new Map<number, Json>();
    accounts.set(keyOf(req), orders);
    const { fills: _fills, transactTime, ...order } = body;
    orders.set(body.orderId, { ...order, time: transactTime, updateTime: transactTime, isWorking: true });
  }
  if (isCancel(req) && typeof body?.orderId === "number") accounts.get(keyOf(req))?.delete(body.orderId);
  return accounts;
}

const STOPS = ["STOP_LOSS", "STOP_LOSS_LIMIT", "TAKE_PROFIT", "TAKE_PROFIT_LIMIT"];

/** A response fault on query_order's answers about stop orders. */
function onStopQuery(change: (order: Json) => Json) {
  return (req: ProxyRequest, res: ProxyResponse) =>
    at("order")(req) && req.method === "GET" && served(res)
      ? mapJson(res, (j) => (STOPS.includes(String((j as Json).type)) ? change(j as Json) : j))
      : res;
}
