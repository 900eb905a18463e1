/**
 * Held-out faults: realistic implementation mistakes that the mutation suite does not contain,
 * written apart from it to measure the tester from outside. They vary the classes the mutation
 * suite covers (order, paging, windows, filters, case, exchange filters, order arithmetic,
 * signing, the receive window) in ways the checks were not tuned against.
 */
import { at, hmac, list, onAnswer, onFill, onRequest, served, unsignedParts } from "./behaviour-faults.js";
import {
  allParams,
  type Fault,
  mapJson,
  type ProxyRequest,
  type ProxyResponse,
  resign,
} from "./fault-proxy.js";

type Json = Record<string, unknown>;

const json400 = (code: number, msg: string): ProxyResponse => ({
  status: 400,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ code, msg }),
});

const isNewOrder = (req: ProxyRequest) => req.method === "POST" && at("order")(req);

/** Rounds a decimal text to `digits` decimals the way a float-based implementation does. */
const floatRound = (text: string, step: number, digits: number) =>
  (Math.round(Number(text) / step) * step).toFixed(digits);

/**
 * Faults the tester cannot observe on this target, each with the note that must say so. The
 * reference server holds about a dozen trades a symbol; a default cut at 100 instead of 500
 * shows only with more than 100, which the tester does not make (not cheap on a real exchange).
 */
export const UNOBSERVABLE: Record<string, { check: string; operationId: string; note: string }> = {
  "trades-default-100": {
    check: "limit_semantics",
    operationId: "recent_trades_list",
    note: "one between is not observable",
  },
};

export function heldOutFaults(demo: { apiSecret: string }): Fault[] {
  const secret = demo.apiSecret;
  return [
    {
      name: "depth-sides-swapped",
      description: "the order book answers its asks under bids and its bids under asks",
      caughtBy: ["list_order"],
      response: onAnswer("depth", (j) => ({
        ...(j as Json),
        bids: (j as Json).asks,
        asks: (j as Json).bids,
      })),
    },
    {
      name: "aggTrades-page-skips-at-end",
      description:
        "an aggTrades page from fromId skips one item just before its last (off by one at the end)",
      caughtBy: ["cursor_paging"],
      response: (req, res) =>
        at("aggTrades")(req) && req.query.has("fromId") && served(res)
          ? mapJson(res, (j) => {
              const items = list(j);
              return items.length > 2 ? [...items.slice(0, -2), items.at(-1)] : j;
            })
          : res,
    },
    {
      name: "historical-page-reversed",
      description: "historicalTrades from fromId answers the page newest first (the plain list is right)",
      caughtBy: ["cursor_paging", "list_order"],
      response: (req, res) =>
        at("historicalTrades")(req) && req.query.has("fromId") && served(res)
          ? mapJson(res, (j) => [...list(j)].reverse())
          : res,
    },
    {
      name: "all-orders-page-one-short",
      description: "all_orders from orderId answers one order fewer than asked (the last is dropped)",
      caughtBy: ["cursor_paging", "limit_semantics"],
      response: (req, res) =>
        at("allOrders")(req) && allParams(req).has("orderId") && served(res)
          ? mapJson(res, (j) => list(j).slice(0, -1))
          : res,
    },
    {
      name: "all-orders-endTime-exclusive",
      description: "all_orders excludes orders made exactly at endTime",
      caughtBy: ["time_window"],
      request: onRequest("allOrders", secret, (p) => {
        const end = Number(p.get("endTime"));
        if (!p.has("endTime") || !Number.isFinite(end)) return false;
        p.set("endTime", String(end - 1));
        return true;
      }),
    },
    {
      name: "aggTrades-startTime-alone-newest",
      description: "aggTrades with startTime alone answers the newest trades instead of the oldest from it",
      caughtBy: ["time_window"],
      request: onRequest("aggTrades", secret, (p) => {
        if (!p.has("startTime") || p.has("endTime")) return false;
        p.delete("startTime");
        return true;
      }),
    },
    {
      name: "exchangeInfo-symbols-one-extra",
      description: "exchangeInfo with symbols lists one symbol more than asked",
      caughtBy: ["result_filter"],
      response: (req, res) => {
        if (!at("exchangeInfo")(req) || !req.query.has("symbols") || !served(res)) return res;
        return mapJson(res, (j) => {
          const symbols = list((j as Json).symbols);
          const first = symbols[0];
          return first ? { ...(j as Json), symbols: [...symbols, { ...first, symbol: "BNBUSDT" }] } : j;
        });
      },
    },
    {
      name: "case-insensitive-avgPrice-only",
      description:
        "avgPrice alone matches the symbol without regard to case (the other operations are right)",
      caughtBy: ["symbol_case"],
      request: (req) => {
        const symbol = req.query.get("symbol");
        if (!at("avgPrice")(req) || !symbol || symbol === symbol.toUpperCase()) return req;
        const query = new URLSearchParams(req.query);
        query.set("symbol", symbol.toUpperCase());
        return { ...req, query };
      },
    },
    {
      name: "unknown-symbol-zero-bookTicker",
      description: "bookTicker answers an unknown symbol with zero prices instead of -1121",
      caughtBy: ["unknown_reference"],
      response: (req, res) =>
        at("ticker/bookTicker")(req) && res.status === 400 && res.body.includes("-1121")
          ? {
              status: 200,
              headers: { ...res.headers, "content-type": "application/json" },
              body: JSON.stringify({
                symbol: req.query.get("symbol"),
                bidPrice: "0.00000000",
                bidQty: "0.00000000",
                askPrice: "0.00000000",
                askQty: "0.00000000",
              }),
            }
          : res,
    },
    {
      name: "step-size-float-rounding",
      description: "LOT_SIZE checked after rounding the quantity to the step in floating point",
      caughtBy: ["exchange_filters"],
      request: onRequest("order", secret, (p) => {
        const qty = p.get("quantity");
        if (!qty) return false;
        const rounded = floatRound(qty, 0.00001, 5);
        if (Number(rounded) === Number(qty) || Number(rounded) <= 0) return false;
        p.set("quantity", rounded);
        return true;
      }),
    },
    {
      name: "tick-size-float-rounding",
      description: "PRICE_FILTER checked after rounding the price to the tick in floating point",
      caughtBy: ["exchange_filters"],
      request: onRequest("order", secret, (p) => {
        const price = p.get("price");
        if (!price) return false;
        const rounded = floatRound(price, 0.01, 2);
        if (Number(rounded) === Number(price)) return false;
        p.set("price", rounded);
        return true;
      }),
    },
    {
      name: "aggTrades-limit-before-window",
      description: "aggTrades takes the newest `limit` trades first, then applies startTime/endTime",
      caughtBy: ["time_window"],
      // The window travels to the response in a header the server ignores.
      request: (req) => {
        if (!at("aggTrades")(req) || !(req.query.has("startTime") || req.query.has("endTime"))) return req;
        const query = new URLSearchParams(req.query);
        const window = `${query.get("startTime") ?? ""},${query.get("endTime") ?? ""}`;
        query.delete("startTime");
        query.delete("endTime");
        return { ...req, query, headers: { ...req.headers, "x-held-window": window } };
      },
      response: (req, res) => {
        const window = req.headers["x-held-window"];
        if (window === undefined || !served(res)) return res;
        const [start, end] = window.split(",").map((t) => (t === "" ? undefined : Number(t)));
        return mapJson(res, (j) =>
          list(j).filter(
            (t) => (start === undefined || Number(t.T) >= start) && (end === undefined || Number(t.T) <= end),
          ),
        );
      },
    },
    {
      name: "fok-treated-as-ioc",
      description: "a FOK order fills what it can and expires the rest (it is handled as IOC)",
      caughtBy: ["order_arithmetic"],
      request: (req) => {
        if (!isNewOrder(req) || allParams(req).get("timeInForce") !== "FOK") return req;
        const changed = resign(req, secret, (p) => p.set("timeInForce", "IOC"));
        return { ...changed, headers: { ...changed.headers, "x-held-fok": "1" } };
      },
      // The answer still says FOK, as the order was placed.
      response: (req, res) =>
        req.headers["x-held-fok"] && served(res)
          ? mapJson(res, (j) => ({ ...(j as Json), timeInForce: "FOK" }))
          : res,
    },
    {
      name: "quote-qty-from-order-price",
      description: "cummulativeQuoteQty is executedQty × the order's limit price, not Σ fill price × qty",
      caughtBy: ["order_arithmetic"],
      response: (req, res) => {
        const price = Number(allParams(req).get("price"));
        if (!isNewOrder(req) || !served(res) || !(price > 0)) return res;
        return onFill((o) => ({
          ...o,
          cummulativeQuoteQty: (Number(o.executedQty) * price).toFixed(8),
        }))(req, res);
      },
    },
    {
      name: "market-order-status-new",
      description: "a MARKET order that filled answers status NEW (LIMIT orders are right)",
      caughtBy: ["order_arithmetic"],
      response: (req, res) =>
        allParams(req).get("type") === "MARKET" ? onFill((o) => ({ ...o, status: "NEW" }))(req, res) : res,
    },
    {
      name: "recvWindow-in-seconds",
      description: "recvWindow is read as seconds, so a timestamp older than recvWindow ms is accepted",
      caughtBy: ["auth_enforcement"],
      request: (req) => {
        const params = allParams(req);
        const window = Number(params.get("recvWindow"));
        const age = Date.now() - Number(params.get("timestamp"));
        if (!params.has("signature") || !(window > 0) || !(age > window && age <= window * 1000)) return req;
        return resign(req, secret, (p) => p.set("timestamp", String(Date.now())));
      },
    },
    {
      name: "recvWindow-capped-at-default",
      description: "a recvWindow above the default 5000 ms is validated but 5000 is applied",
      caughtBy: ["auth_enforcement"],
      request: (req) => {
        const params = allParams(req);
        const window = Number(params.get("recvWindow"));
        const age = Date.now() - Number(params.get("timestamp"));
        if (!params.has("signature") || !(window > 5000) || !(age > 5000)) return req;
        return json400(-1021, "Timestamp for this request is outside of the recvWindow.");
      },
    },
    {
      name: "signature-over-body-on-post",
      description: "new_order checks its signature over the form body alone, ignoring the query",
      caughtBy: ["auth_enforcement"],
      request: (req) => {
        const signature = allParams(req).get("signature");
        if (!isNewOrder(req) || !signature || req.body === "") return req;
        return hmac(secret, unsignedParts(req).body) === signature.toLowerCase() ? resign(req, secret) : req;
      },
    },
    {
      name: "trades-default-100",
      description: "trades without limit answers 100 trades instead of 500",
      caughtBy: ["limit_semantics"],
      response: (req, res) =>
        at("trades")(req) && !req.query.has("limit") && served(res)
          ? mapJson(res, (j) => list(j).slice(-100))
          : res,
    },
  ];
}
