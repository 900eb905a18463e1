/**
 * Faults in meaning rather than shape: filter bounds that are off by one at their exact edge, what
 * exchange_info announces disagreeing with what the engine does, counters that do not count,
 * refusals with the wrong code, and signing or timing rules that hold only at the far points the
 * older checks used. Each one a realistic implementation mistake, injected by the proxy.
 */
import { createHmac } from "node:crypto";
import { at, onAnswer, onRequest, served } from "./behaviour-faults.js";
import {
  allParams,
  type Fault,
  mapJson,
  type ProxyRequest,
  type ProxyResponse,
  resign,
  shiftedWeight,
} from "./fault-proxy.js";

type Json = Record<string, unknown>;

const isNewOrder = (req: ProxyRequest) => req.method === "POST" && at("order")(req);

const refusal = (status: number, code: number, msg: string): ProxyResponse => ({
  status,
  headers: { "content-type": "application/json", "x-mbx-used-weight-1m": "1" },
  body: JSON.stringify({ code, msg }),
});

/** A filter of BTCUSDT as the reference server announces it (its defaults). */
const BTCUSDT = { maxPrice: 1_000_000, maxQty: 9000, minNotional: 5, icebergParts: 10, maxTrailing: 2000 };
/** ETHBTC's LOT_SIZE maxQty on the reference server (the USDT symbols' is BTCUSDT's). */
const ETHBTC_MAX_QTY = 100_000;

/** Changes, in place, one symbol's entry of exchangeInfo's answers. */
function onSymbolInfo(symbol: string, change: (entry: Json) => void) {
  return onAnswer("exchangeInfo", (json) => {
    for (const entry of ((json as Json).symbols as Json[] | undefined) ?? [])
      if (entry.symbol === symbol) change(entry);
    return json;
  });
}

/** Rewrites the answers' error code `from` to `to` (one operation, or every one). */
function recode(from: number, to: number, status?: number, where?: (req: ProxyRequest) => boolean) {
  return (req: ProxyRequest, res: ProxyResponse) =>
    res.status >= 400 && res.status < 500 && (!where || where(req)) && res.body.includes(`"code":${from}`)
      ? { ...res, status: status ?? res.status, body: res.body.replace(`"code":${from}`, `"code":${to}`) }
      : res;
}

/** The name sent twice in one part of a request (a query string or a form body), if any. */
function repeatedName(raw: string): string | undefined {
  const names = [...new URLSearchParams(raw).keys()].filter((n) => n !== "signature");
  return names.find((n, i) => names.indexOf(n) !== i);
}

/** A query string or form body with only the first value of each name kept. */
function firstValues(raw: string): URLSearchParams {
  const kept = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(raw)) if (!kept.has(name)) kept.append(name, value);
  return kept;
}

/** Whether a request's signature holds over its query and body as sent (x-signing's payload). */
function signedAsSent(req: ProxyRequest, secret: string): boolean {
  const unsigned = (raw: string) =>
    raw
      .split("&")
      .filter((pair) => pair !== "" && !pair.startsWith("signature="))
      .join("&");
  const signature = allParams(req).get("signature")?.toLowerCase();
  const payload = unsigned(req.rawQuery) + unsigned(req.body);
  return signature === createHmac("sha256", secret).update(payload).digest("hex");
}

function timestampAge(req: ProxyRequest): number | undefined {
  const ts = Number(allParams(req).get("timestamp"));
  return Number.isFinite(ts) && ts > 0 ? Date.now() - ts : undefined;
}

export function meaningFaults(demo: { apiKey: string; apiSecret: string }): Fault[] {
  const secret = demo.apiSecret;
  return [
    // ---- exchange_info's announcements ----
    {
      name: "max-price-bound-exclusive",
      description: "PRICE_FILTER's maxPrice treated as exclusive: an order at exactly maxPrice is refused",
      caughtBy: ["announced_rules"],
      request: (req) =>
        isNewOrder(req) && Number(allParams(req).get("price")) === BTCUSDT.maxPrice
          ? refusal(400, -1013, "Filter failure: PRICE_FILTER")
          : req,
    },
    {
      name: "max-qty-unenforced",
      description: "LOT_SIZE's maxQty not enforced: a larger order is accepted (as maxQty)",
      caughtBy: ["announced_rules"],
      request: onRequest("order", secret, (p) => {
        if (Number(p.get("quantity")) <= BTCUSDT.maxQty || p.get("type") !== "LIMIT") return false;
        p.set("quantity", String(BTCUSDT.maxQty));
        return true;
      }),
    },
    {
      name: "third-symbol-max-qty-unenforced",
      description:
        "LOT_SIZE's maxQty not enforced on ETHBTC only (its own bound, 100000, unlike the USDT symbols'): a larger order is accepted (as maxQty)",
      caughtBy: ["announced_rules"],
      request: onRequest("order", secret, (p) => {
        if (
          p.get("symbol") !== "ETHBTC" ||
          p.get("type") !== "LIMIT" ||
          Number(p.get("quantity")) <= ETHBTC_MAX_QTY
        )
          return false;
        p.set("quantity", String(ETHBTC_MAX_QTY));
        return true;
      }),
    },
    {
      name: "market-lot-size-unenforced-on-ethbtc",
      description:
        "ETHBTC announces a MARKET_LOT_SIZE minQty of 0.01, and MARKET orders below it are taken (the filter is announced, not enforced)",
      caughtBy: ["announced_rules"],
      response: onSymbolInfo("ETHBTC", (symbol) => {
        for (const filter of symbol.filters as Json[])
          if (filter.filterType === "MARKET_LOT_SIZE") filter.minQty = "0.01000000";
      }),
    },
    {
      name: "iceberg-not-allowed-accepted-on-ethusdt",
      description: "ETHUSDT announces icebergAllowed false, and icebergs are taken there",
      caughtBy: ["announced_rules"],
      response: onSymbolInfo("ETHUSDT", (symbol) => {
        symbol.icebergAllowed = false;
      }),
    },
    {
      name: "quote-market-not-allowed-accepted-on-ethusdt",
      description:
        "ETHUSDT announces quoteOrderQtyMarketAllowed false, and MARKET orders by quote budget are taken there",
      caughtBy: ["announced_rules"],
      response: onSymbolInfo("ETHUSDT", (symbol) => {
        symbol.quoteOrderQtyMarketAllowed = false;
      }),
    },
    {
      name: "min-notional-bound-exclusive",
      description: "NOTIONAL's minimum treated as exclusive: an order of exactly minNotional is refused",
      caughtBy: ["announced_rules"],
      request: (req) => {
        const p = allParams(req);
        const notional = Number(p.get("price")) * Number(p.get("quantity"));
        return isNewOrder(req) && Math.abs(notional - BTCUSDT.minNotional) < 1e-9
          ? refusal(400, -1013, "Filter failure: NOTIONAL")
          : req;
      },
    },
    {
      name: "iceberg-parts-off-by-one",
      description: "ICEBERG_PARTS counted one too many: an iceberg of exactly `limit` parts is refused",
      caughtBy: ["announced_rules"],
      request: (req) => {
        const p = allParams(req);
        const parts = Math.ceil(Number(p.get("quantity")) / Number(p.get("icebergQty")) - 1e-9);
        return isNewOrder(req) && p.has("icebergQty") && parts === BTCUSDT.icebergParts
          ? refusal(400, -1013, "Filter failure: ICEBERG_PARTS")
          : req;
      },
    },
    {
      name: "trailing-delta-max-unenforced",
      description: "TRAILING_DELTA's maximum not enforced: a wider trailing stop is accepted",
      caughtBy: ["announced_rules"],
      request: onRequest("order", secret, (p) => {
        if (Number(p.get("trailingDelta")) <= BTCUSDT.maxTrailing) return false;
        p.set("trailingDelta", String(BTCUSDT.maxTrailing));
        return true;
      }),
    },
    {
      name: "stp-mode-not-allowed-placed-as-none",
      description:
        "new_order takes a selfTradePreventionMode the symbol's allowedSelfTradePreventionModes leaves out (the reference server allows NONE only), placing the order under NONE, instead of refusing it",
      caughtBy: ["announced_rules"],
      request: (req) => {
        const mode = allParams(req).get("selfTradePreventionMode");
        if (!isNewOrder(req) || mode === null || mode === "NONE" || !signedAsSent(req, secret)) return req;
        return resign(req, secret, (p) => p.delete("selfTradePreventionMode"));
      },
    },
    {
      name: "exchange-info-omits-a-type-it-accepts",
      description:
        "exchange_info leaves TAKE_PROFIT out of every symbol's orderTypes, but the engine accepts it",
      caughtBy: ["announced_rules"],
      response: (req, res) =>
        at("exchangeInfo")(req) && served(res)
          ? mapJson(res, (j) => {
              const info = j as { symbols?: Json[] };
              for (const s of info.symbols ?? [])
                s.orderTypes = (s.orderTypes as string[]).filter((t) => t !== "TAKE_PROFIT");
              return info;
            })
          : res,
    },
    {
      name: "listed-type-refused",
      description: "exchange_info lists STOP_LOSS_LIMIT, but the engine refuses it",
      caughtBy: ["announced_rules"],
      request: (req) =>
        isNewOrder(req) && allParams(req).get("type") === "STOP_LOSS_LIMIT"
          ? refusal(400, -2010, "Stop loss limit orders are not supported for this symbol.")
          : req,
    },
    // ---- counters ----
    {
      name: "weight-counts-one-per-request",
      description: "X-MBX-USED-WEIGHT-1M counts requests, not their weight",
      caughtBy: ["rate_counters"],
      response: (_req, res, state) => {
        const n = ((state.get("requests") as number | undefined) ?? 0) + 1;
        state.set("requests", n);
        const headers = Object.fromEntries(
          Object.entries(res.headers).filter(([k]) => !/used-weight/i.test(k)),
        );
        return { ...res, headers: { ...headers, "x-mbx-used-weight-1m": String(n) } };
      },
    },
    {
      name: "weight-counts-double",
      description:
        "X-MBX-USED-WEIGHT-1M shows twice the weight used (more than the weight, alike on every request)",
      caughtBy: ["rate_counters"],
      response: (_req, res) => {
        const key = Object.keys(res.headers).find((k) => /^x-mbx-used-weight-1m$/i.test(k));
        const used = key === undefined ? undefined : Number(res.headers[key]);
        return key === undefined || !Number.isInteger(used)
          ? res
          : { ...res, headers: { ...res.headers, [key]: String(2 * used!) } };
      },
    },
    {
      name: "weight-tiers-ignored",
      description:
        "depth counts its base weight (5) whatever its limit: the x-weight tiers (25, 50, 250) are never charged",
      caughtBy: ["rate_counters"],
      response: (req, res, state) => {
        const limit = Number(req.query.get("limit") ?? "100");
        const tier = limit <= 100 ? 5 : limit <= 500 ? 25 : limit <= 1000 ? 50 : 250;
        const depth = req.path === "/api/v3/depth" && res.status === 200;
        return shiftedWeight(res, state, "uncharged", depth ? 5 - tier : 0);
      },
    },
    {
      name: "ticker-without-symbol-weighs-more",
      description:
        "symbol_price_ticker and order_book_ticker without symbol are charged 2 more than x-weight's flat weight",
      caughtBy: ["rate_counters"],
      response: (req, res, state) => {
        const list =
          (req.path === "/api/v3/ticker/price" || req.path === "/api/v3/ticker/bookTicker") &&
          !req.query.has("symbol") &&
          res.status === 200;
        return shiftedWeight(res, state, "overcharged", list ? 2 : 0);
      },
    },
    {
      name: "weight-counted-per-api-key",
      description:
        "the used-weight counter on another account's answers counts only that API key's requests, not the address's (UsedWeight1m: used by the caller's IP)",
      caughtBy: ["rate_counters"],
      response: (req, res, state) => {
        const key = Object.keys(res.headers).find((k) => /^x-mbx-used-weight-1m$/i.test(k));
        const used = key === undefined ? undefined : Number(res.headers[key]);
        if (key === undefined || !Number.isInteger(used)) return res;
        const last = (state.get("last") as number | undefined) ?? 0;
        // The address's growth since the answer before: this request's weight, or a new window's count.
        const grew = used! >= last ? used! - last : used!;
        state.set("last", used);
        const apiKey = req.headers["x-mbx-apikey"];
        if (apiKey === undefined || apiKey === demo.apiKey || res.status !== 200) return res;
        const own = ((state.get(`key:${apiKey}`) as number | undefined) ?? 0) + grew;
        state.set(`key:${apiKey}`, own);
        return { ...res, headers: { ...res.headers, [key]: String(own) } };
      },
    },
    {
      name: "order-count-1d-shows-10s",
      description:
        "X-MBX-ORDER-COUNT-1D shows the 10-second window's count (the day's orders lost at each 10 s boundary)",
      caughtBy: ["rate_counters"],
      response: (req, res) => {
        const tenSeconds = res.headers["x-mbx-order-count-10s"];
        return isNewOrder(req) &&
          served(res) &&
          tenSeconds !== undefined &&
          "x-mbx-order-count-1d" in res.headers
          ? { ...res, headers: { ...res.headers, "x-mbx-order-count-1d": tenSeconds } }
          : res;
      },
    },
    {
      name: "order-count-frozen",
      description: "X-MBX-ORDER-COUNT-10S stays at 1 (the counter is never incremented)",
      caughtBy: ["rate_counters"],
      response: (req, res) =>
        isNewOrder(req) && served(res)
          ? { ...res, headers: { ...res.headers, "x-mbx-order-count-10s": "1" } }
          : res,
    },
    {
      name: "order-count-read-before-increment",
      description:
        "the order counters on an accepted order are read before it is counted (an account's first order of a window shows 0)",
      caughtBy: ["rate_counters"],
      response: (req, res) => {
        if (!isNewOrder(req) || !served(res)) return res;
        const headers = { ...res.headers };
        for (const name of Object.keys(headers))
          if (/^x-mbx-order-count-/i.test(name))
            headers[name] = String(Math.max(0, Number(headers[name]) - 1));
        return { ...res, headers };
      },
    },
    // ---- the text of decimals ----
    {
      name: "decimal-exponent-notation-accepted",
      description:
        "new_order reads decimals written in exponent notation (`1e-3` as 0.001), which x-wire-pattern refuses",
      caughtBy: ["negative_data_rejection"],
      request: onRequest("order", secret, (p) => {
        let changed = false;
        for (const [name, value] of [...p.entries()])
          if (/^[0-9.]+e[+-]?[0-9]+$/i.test(value)) {
            p.set(
              name,
              Number(value)
                .toFixed(8)
                .replace(/\.?0+$/, ""),
            );
            changed = true;
          }
        return changed;
      }),
    },
    // ---- what an order type forbids ----
    {
      name: "market-time-in-force-dropped",
      description:
        "new_order takes a MARKET order with timeInForce (x-order-type-rules forbids it), dropping the parameter",
      caughtBy: ["announced_rules"],
      request: onRequest("order", secret, (p) => {
        if (p.get("type") !== "MARKET" || !p.has("timeInForce")) return false;
        p.delete("timeInForce");
        return true;
      }),
    },
    {
      name: "take-profit-trailing-delta-unbounded",
      description:
        "new_order takes a take-profit's trailingDelta outside TRAILING_DELTA's bounds (10 to 2000), clamping it (the filter applied to stop-losses only)",
      caughtBy: ["announced_rules"],
      request: onRequest("order", secret, (p) => {
        const delta = Number(p.get("trailingDelta") ?? Number.NaN);
        if (
          !p.get("type")?.startsWith("TAKE_PROFIT") ||
          !Number.isInteger(delta) ||
          (delta >= 10 && delta <= 2000)
        )
          return false;
        p.set("trailingDelta", String(Math.min(2000, Math.max(10, delta))));
        return true;
      }),
    },
    // ---- conditions between parameters ----
    {
      name: "iceberg-not-gtc-accepted",
      description:
        "new_order takes an iceberg order whose timeInForce is not GTC, as a GTC order (x-parameter-conditions: with icebergQty, timeInForce must be GTC)",
      caughtBy: ["negative_data_rejection"],
      request: onRequest("order", secret, (p) => {
        const timeInForce = p.get("timeInForce");
        if (!p.has("icebergQty") || timeInForce === null || timeInForce === "GTC") return false;
        p.set("timeInForce", "GTC");
        return true;
      }),
    },
    // ---- codes the spec names ----
    {
      name: "missing-parameter-generic-code",
      description: "a missing parameter answered -1100 (illegal characters) instead of -1102",
      caughtBy: ["negative_data_rejection"],
      response: recode(-1102, -1100),
    },
    {
      name: "unknown-side-generic-code",
      description: "an unknown side answered -1100 instead of -1117",
      caughtBy: ["negative_data_rejection"],
      response: recode(-1117, -1100),
    },
    {
      name: "signing-refusals-as-401-unauthorized",
      description:
        "a refusal for the signature (-1022) or the timestamp (-1021) answered 401, as the API key's refusals are, instead of the 400 BadRequest lists them under",
      caughtBy: ["auth_enforcement"],
      response: (req, res) => recode(-1021, -1021, 401)(req, recode(-1022, -1022, 401)(req, res)),
    },
    {
      name: "missing-timestamp-answered-outside-the-window",
      description:
        "a signed request without its timestamp is judged against the receive window as if its time were 0 and refused -1021 (outside the window) instead of -1102 (x-refusals missing-parameter)",
      caughtBy: ["auth_enforcement"],
      response: recode(
        -1102,
        -1021,
        400,
        (req) => allParams(req).has("signature") && !allParams(req).has("timestamp"),
      ),
    },
    {
      name: "repeated-parameter-first-value-taken",
      description:
        "a parameter given twice in the query (or twice in a form body) is served with its first value instead of refused (x-refusals duplicate-parameter: 400, -1101)",
      caughtBy: ["negative_data_rejection"],
      request: (req) => {
        const inQuery = repeatedName(req.rawQuery) !== undefined;
        if (!inQuery && repeatedName(req.body) === undefined) return req;
        if (allParams(req).has("signature")) {
          // The signature is checked over the bytes as sent, then the first values are read.
          if (!signedAsSent(req, secret)) return req;
          const params = firstValues(req.rawQuery);
          for (const [name, value] of firstValues(req.body)) if (!params.has(name)) params.set(name, value);
          return resign({ ...req, query: params, body: "" }, secret);
        }
        return inQuery
          ? { ...req, query: firstValues(req.rawQuery) }
          : { ...req, body: firstValues(req.body).toString() };
      },
    },
    {
      name: "unknown-api-key-as-400",
      description: "an unknown API key answered with status 400 instead of 401",
      caughtBy: ["auth_enforcement"],
      response: recode(-2015, -2015, 400),
    },
    {
      name: "filter-failure-as-rejected",
      description: "filter failures answered -2010 (order rejected) instead of -1013",
      caughtBy: ["exchange_filters", "announced_rules"],
      response: recode(-1013, -2010),
    },
    {
      name: "cancel-closed-as-unknown",
      description: "a cancel of an order that is no longer open answered -2013 instead of -2011",
      caughtBy: ["stateful_exploration"],
      response: recode(-2011, -2013, undefined, (req) => req.method === "DELETE" && at("order")(req)),
    },
    // ---- signing and timing at the edges ----
    {
      name: "signature-hex-case-sensitive",
      description: "the signature compared case-sensitively: one in upper-case hex is refused",
      caughtBy: ["wire_variants"],
      request: (req) => {
        const signature = allParams(req).get("signature");
        return signature && /[A-F]/.test(signature) && !/[a-f]/.test(signature)
          ? refusal(400, -1022, "Signature for this request is not valid.")
          : req;
      },
    },
    {
      name: "escapes-normalised-before-verifying",
      description: "the signature checked over the query re-encoded with upper-case escapes, not as sent",
      caughtBy: ["wire_variants"],
      request: (req) => {
        // What re-encoding would change: a lower-case escape, or an escaped letter or digit.
        const normalisable = /%(?:[0-9a-f][a-f]|[a-f][0-9a-f]|3[0-9]|[46][1-9a-fA-F]|[57][0-9aA])/;
        return allParams(req).has("signature") &&
          (normalisable.test(req.rawQuery) || normalisable.test(req.body))
          ? refusal(400, -1022, "Signature for this request is not valid.")
          : req;
      },
    },
    {
      name: "server-error-on-bytes-outside-ascii",
      description:
        "a signed payload with bytes outside ASCII is answered 500 (the signature computed by a routine that fails on them)",
      caughtBy: ["wire_variants", "not_a_server_error"],
      request: (req) =>
        allParams(req).has("signature") && /[^\p{ASCII}]/u.test(req.rawQuery + req.body)
          ? refusal(500, -1000, "An unknown error occurred while processing the request.")
          : req,
    },
    {
      name: "default-window-ten-seconds",
      description: "the default receive window is 10000 ms, not 5000",
      caughtBy: ["wire_variants"],
      request: (req) => {
        const age = timestampAge(req);
        if (age === undefined || allParams(req).has("recvWindow") || age <= 5000 || age > 10_000) return req;
        return resign(req, secret, (p) => p.set("timestamp", String(Date.now())));
      },
    },
    {
      name: "future-timestamps-within-window",
      description: "a timestamp ahead of the server is accepted up to the receive window, not 1000 ms",
      caughtBy: ["wire_variants"],
      request: (req) => {
        const age = timestampAge(req);
        if (age === undefined || age >= -1000 || age < -5000) return req;
        return resign(req, secret, (p) => p.set("timestamp", String(Date.now())));
      },
    },
    {
      name: "body-wins-over-query",
      description: "a parameter in both the query and the body takes the body's value",
      caughtBy: ["wire_variants"],
      request: (req) => {
        if (!isNewOrder(req) || req.body === "") return req;
        const body = new URLSearchParams(req.body);
        const both = [...body.keys()].filter((k) => req.query.has(k) && k !== "signature");
        if (both.length === 0) return req;
        return resign(req, secret, (p) => {
          for (const k of both) p.set(k, body.get(k)!);
        });
      },
    },
  ];
}
