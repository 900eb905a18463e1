/**
 * Faults in what answers mean, not in their shape: each one a realistic implementation mistake in
 * the behaviour the spec's extensions state (order, paging, windows, filters, unknown references,
 * symbol case, methods, limits, exchange filters, order arithmetic), naming the check that must catch it.
 */
import { createHmac } from "node:crypto";
import {
  allParams,
  type Fault,
  mapJson,
  type ProxyRequest,
  type ProxyResponse,
  resign,
} from "./fault-proxy.js";

type Json = Record<string, unknown>;

export const at = (path: string) => (req: ProxyRequest) => req.path === `/api/v3/${path}`;
export const served = (res: ProxyResponse) => res.status === 200;
const unknownSymbol = (res: ProxyResponse) => res.status === 400 && res.body.includes("-1121");

/** A response fault on one path's successful JSON answers. */
export function onAnswer(path: string, change: (json: unknown, req: ProxyRequest) => unknown) {
  return (req: ProxyRequest, res: ProxyResponse) =>
    at(path)(req) && served(res) ? mapJson(res, (json) => change(json, req)) : res;
}

/** A request fault on one path: `change` edits the parameters (re-signed when the request was signed). */
export function onRequest(path: string, secret: string, change: (params: URLSearchParams) => boolean) {
  return (req: ProxyRequest): ProxyRequest => {
    if (!at(path)(req)) return req;
    const params = allParams(req);
    if (params.has("signature")) {
      let changed = false;
      const next = resign(req, secret, (p) => {
        changed = change(p);
      });
      return changed ? next : req;
    }
    const query = new URLSearchParams(req.query);
    return change(query) ? { ...req, query } : req;
  };
}

export const reversed = (json: unknown) => (Array.isArray(json) ? [...json].reverse() : json);
export const list = (json: unknown) => (Array.isArray(json) ? (json as Json[]) : []);

/** An empty answer of the operation's shape, as a server that does not know the symbol might send. */
function emptyFor(path: string): string {
  if (path === "depth") return JSON.stringify({ lastUpdateId: 0, bids: [], asks: [] });
  if (path === "avgPrice") return JSON.stringify({ mins: 5, price: "0", closeTime: 0 });
  return "[]";
}

function unknownSymbolServed(path: string): Fault {
  return {
    name: `unknown-symbol-empty-${path}`,
    description: `${path} answers an unknown symbol with an empty result instead of -1121`,
    caughtBy: ["unknown_reference"],
    response: (req, res) =>
      at(path)(req) && unknownSymbol(res)
        ? {
            status: 200,
            headers: { ...res.headers, "content-type": "application/json" },
            body: emptyFor(path),
          }
        : res,
  };
}

function caseInsensitive(path: string): Fault {
  return {
    name: `case-insensitive-${path}`,
    description: `${path} matches the symbol without regard to case`,
    caughtBy: ["symbol_case"],
    request: (req) => {
      const symbol = req.query.get("symbol");
      if (!at(path)(req) || !symbol || symbol === symbol.toUpperCase()) return req;
      const query = new URLSearchParams(req.query);
      query.set("symbol", symbol.toUpperCase());
      return { ...req, query };
    },
  };
}

/** Rewrites a FULL new_order answer that executed something. */
export function onFill(change: (order: Json) => Json) {
  return (req: ProxyRequest, res: ProxyResponse) =>
    req.method === "POST" && at("order")(req) && served(res)
      ? mapJson(res, (json) => {
          const order = json as Json;
          return Number(order.executedQty) > 0 && Array.isArray(order.fills) ? change(order) : order;
        })
      : res;
}

/** The query and the body as sent, each without the signature parameter. */
export function unsignedParts(req: ProxyRequest): { query: string; body: string } {
  const strip = (text: string) =>
    text
      .split("&")
      .filter((pair) => pair !== "" && !pair.startsWith("signature="))
      .join("&");
  return { query: strip(req.query.toString()), body: strip(req.body) };
}

export const hmac = (secret: string, text: string) => createHmac("sha256", secret).update(text).digest("hex");

/** A server that checks the signature over only one part of what was sent: such requests pass. */
function partialSignature(secret: string, part: "query" | "body"): (req: ProxyRequest) => ProxyRequest {
  return (req) => {
    const signature = allParams(req).get("signature");
    if (!signature || req.body === "") return req;
    const parts = unsignedParts(req);
    return hmac(secret, parts[part]) === signature.toLowerCase() ? resign(req, secret) : req;
  };
}

export function behaviourFaults(demo: { apiSecret: string }): Fault[] {
  const secret = demo.apiSecret;
  return [
    // ---- order of list answers ----
    ...(["trades", "historicalTrades", "aggTrades"] as const).map(
      (path): Fault => ({
        name: `${path}-newest-first`,
        description: `${path} answers newest first`,
        caughtBy: ["list_order"],
        response: onAnswer(path, reversed),
      }),
    ),
    {
      name: "bids-worst-first",
      description: "order book bids sorted ascending (worst first)",
      caughtBy: ["list_order"],
      response: onAnswer("depth", (j) => ({ ...(j as Json), bids: reversed((j as Json).bids) })),
    },
    {
      name: "asks-worst-first",
      description: "order book asks sorted descending (worst first)",
      caughtBy: ["list_order"],
      response: onAnswer("depth", (j) => ({ ...(j as Json), asks: reversed((j as Json).asks) })),
    },
    {
      name: "all-orders-newest-first",
      description: "all_orders answers newest first",
      caughtBy: ["list_order"],
      response: onAnswer("allOrders", reversed),
    },
    {
      name: "trades-duplicate-item",
      description: "the recent trades list repeats its second item",
      caughtBy: ["list_order"],
      response: onAnswer("trades", (j) => {
        const items = list(j);
        return items.length > 2 ? [items[0], items[1], ...items.slice(1, -1)] : j;
      }),
    },
    {
      name: "depth-levels-unsorted",
      description: "order book levels in insertion order (two bid levels swapped)",
      caughtBy: ["list_order"],
      response: onAnswer("depth", (j) => {
        const bids = [...((j as Json).bids as unknown[])];
        if (bids.length > 2) [bids[1], bids[2]] = [bids[2], bids[1]];
        return { ...(j as Json), bids };
      }),
    },
    // ---- cursor paging ----
    {
      name: "historical-fromId-exclusive",
      description: "historicalTrades starts after fromId instead of at it",
      caughtBy: ["cursor_paging"],
      request: onRequest("historicalTrades", secret, (p) => {
        if (!p.has("fromId")) return false;
        p.set("fromId", String(Number(p.get("fromId")) + 1));
        return true;
      }),
    },
    {
      name: "aggTrades-fromId-exclusive",
      description: "aggTrades starts after fromId instead of at it",
      caughtBy: ["cursor_paging"],
      request: onRequest("aggTrades", secret, (p) => {
        if (!p.has("fromId")) return false;
        p.set("fromId", String(Number(p.get("fromId")) + 1));
        return true;
      }),
    },
    {
      name: "historical-fromId-past-newest-clamped",
      description:
        "historicalTrades asked from past the newest trade answers the newest trade (the cursor clamped to the last id) instead of nothing",
      caughtBy: ["cursor_paging"],
      response: (req, res, state) => {
        const symbol = req.query.get("symbol");
        if (!served(res) || req.method !== "GET" || !at("historicalTrades")(req) || !symbol) return res;
        // Kept by unit: an answer in microseconds shows its trade's time so.
        const key = `newest:${symbol}:${req.headers["x-mbx-time-unit"]?.toUpperCase() ?? ""}`;
        const trades = list(JSON.parse(res.body));
        const newest = trades.at(-1);
        const had = state.get(key) as Json | undefined;
        if (newest && (!had || Number(newest.id) >= Number(had.id))) state.set(key, newest);
        const fromId = Number(req.query.get("fromId"));
        if (trades.length > 0 || !had || !(Number(had.id) < fromId)) return res;
        return { ...res, body: JSON.stringify([had]) };
      },
    },
    {
      name: "historical-fromId-ignored",
      description: "historicalTrades validates fromId but answers the newest trades",
      caughtBy: ["cursor_paging"],
      request: onRequest("historicalTrades", secret, (p) => {
        if (!p.has("fromId")) return false;
        p.delete("fromId");
        return true;
      }),
    },
    {
      name: "aggTrades-fromId-ignored",
      description: "aggTrades validates fromId but answers the newest trades",
      caughtBy: ["cursor_paging"],
      request: onRequest("aggTrades", secret, (p) => {
        if (!p.has("fromId") || p.has("startTime")) return false;
        p.delete("fromId");
        return true;
      }),
    },
    {
      name: "historical-page-skips-one",
      description: "a historicalTrades page from fromId skips its second trade",
      caughtBy: ["cursor_paging"],
      response: (req, res) =>
        at("historicalTrades")(req) && req.query.has("fromId") && served(res)
          ? mapJson(res, (j) => list(j).filter((_, i) => i !== 1))
          : res,
    },
    {
      name: "aggTrades-page-repeats-cursor",
      description: "an aggTrades page from fromId repeats the item before the cursor",
      caughtBy: ["cursor_paging", "list_order"],
      request: onRequest("aggTrades", secret, (p) => {
        if (!p.has("fromId")) return false;
        p.set("fromId", String(Math.max(0, Number(p.get("fromId")) - 1)));
        return true;
      }),
    },
    {
      name: "all-orders-orderId-ignored",
      description: "all_orders validates orderId but answers from the newest",
      caughtBy: ["cursor_paging"],
      request: onRequest("allOrders", secret, (p) => {
        if (!p.has("orderId")) return false;
        p.delete("orderId");
        return true;
      }),
    },
    // ---- time windows ----
    {
      name: "aggTrades-startTime-ignored",
      description: "aggTrades validates startTime but ignores it",
      caughtBy: ["time_window"],
      request: onRequest("aggTrades", secret, (p) => {
        if (!p.has("startTime")) return false;
        p.delete("startTime");
        return true;
      }),
    },
    {
      name: "aggTrades-date-time-to-the-second",
      description:
        "aggTrades reads startTime and endTime given as RFC 3339 date-times to the whole second, dropping their fraction",
      caughtBy: ["time_window"],
      request: onRequest("aggTrades", secret, (p) =>
        rewriteBounds(p, (value) => value.replace(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.\d+/, "$1")),
      ),
    },
    {
      name: "aggTrades-window-over-an-hour-refused",
      description:
        "aggTrades refuses startTime and endTime more than an hour apart with -1127, a cap the spec does not state (the live API's until 2022)",
      caughtBy: ["time_window"],
      response: (req, res) => {
        // In milliseconds: from 10^14 on, an integer bound is in microseconds (x-epoch-time).
        const [start, end] = ["startTime", "endTime"].map((name) => {
          const value = Number(req.query.get(name) ?? Number.NaN);
          return value >= 1e14 ? value / 1000 : value;
        });
        if (req.method !== "GET" || !at("aggTrades")(req) || !served(res) || !(end! - start! > 3_600_000))
          return res;
        return {
          ...res,
          status: 400,
          body: JSON.stringify({ code: -1127, msg: "More than 1 hours between startTime and endTime." }),
        };
      },
    },
    {
      name: "window-of-one-instant-empty",
      description:
        "aggTrades and allOrders with startTime equal to endTime answer nothing (a window read as start ≤ t < end), though both bounds are inclusive",
      caughtBy: ["time_window"],
      response: (req, res) => {
        const [start, end] = ["startTime", "endTime"].map((name) => req.query.get(name));
        if (req.method !== "GET" || !(at("aggTrades")(req) || at("allOrders")(req)) || !served(res))
          return res;
        return start !== null && start === end ? { ...res, body: "[]" } : res;
      },
    },
    {
      name: "aggTrades-date-time-offset-read-as-utc",
      description:
        "aggTrades reads an RFC 3339 startTime or endTime with an offset as if it were UTC (the offset dropped, the local time kept)",
      caughtBy: ["time_window"],
      request: onRequest("aggTrades", secret, (p) =>
        rewriteBounds(p, (value) => value.replace(/[+-]\d\d:\d\d$/, "Z")),
      ),
    },
    {
      name: "time-unit-header-scales-time-bounds",
      description:
        "with X-MBX-TIME-UNIT: MICROSECOND, aggTrades and all_orders read startTime and endTime in microseconds too (the header sets the answer's unit only)",
      caughtBy: ["time_unit"],
      request: (req) => {
        const micro = req.headers["x-mbx-time-unit"]?.toUpperCase() === "MICROSECOND";
        if (!micro || req.method !== "GET" || !(at("aggTrades")(req) || at("allOrders")(req))) return req;
        const scale = (p: URLSearchParams) => {
          for (const name of ["startTime", "endTime"]) {
            const value = p.get(name);
            if (value !== null && /^[0-9]{1,13}$/.test(value))
              p.set(name, String(Math.floor(Number(value) / 1000)));
          }
        };
        const params = allParams(req);
        if (!params.has("startTime") && !params.has("endTime")) return req;
        if (params.has("signature")) return resign(req, secret, scale);
        const query = new URLSearchParams(req.query);
        scale(query);
        return { ...req, query };
      },
    },
    {
      name: "aggTrades-endTime-ignored",
      description: "aggTrades validates endTime but ignores it",
      caughtBy: ["time_window"],
      request: onRequest("aggTrades", secret, (p) => {
        if (!p.has("endTime")) return false;
        p.delete("endTime");
        return true;
      }),
    },
    {
      name: "aggTrades-endTime-exclusive",
      description: "aggTrades treats endTime as exclusive",
      caughtBy: ["time_window"],
      request: onRequest("aggTrades", secret, (p) => {
        const end = Number(p.get("endTime"));
        if (!p.has("endTime") || !Number.isFinite(end)) return false;
        p.set("endTime", String(end - 1));
        return true;
      }),
    },
    {
      name: "aggTrades-startTime-exclusive",
      description: "aggTrades treats startTime as exclusive",
      caughtBy: ["time_window"],
      request: onRequest("aggTrades", secret, (p) => {
        const start = Number(p.get("startTime"));
        if (!p.has("startTime") || !Number.isFinite(start)) return false;
        p.set("startTime", String(start + 1));
        return true;
      }),
    },
    {
      name: "aggTrades-endTime-alone-oldest",
      description: "aggTrades with endTime alone answers the oldest trades instead of the newest up to it",
      caughtBy: ["time_window"],
      request: onRequest("aggTrades", secret, (p) => {
        if (!p.has("endTime") || p.has("startTime")) return false;
        p.set("startTime", "0");
        return true;
      }),
    },
    {
      name: "all-orders-wide-window-accepted",
      description: "all_orders accepts a window over 24 h (clamps it)",
      caughtBy: ["time_window"],
      request: onRequest("allOrders", secret, (p) => {
        const start = Number(p.get("startTime"));
        const end = Number(p.get("endTime"));
        if (!(end - start > 86_400_000)) return false;
        p.set("endTime", String(start + 86_400_000));
        return true;
      }),
    },
    {
      name: "all-orders-one-hour-window",
      description: "all_orders refuses windows over one hour (the old limit) instead of 24 h",
      caughtBy: ["time_window"],
      response: (req, res) => {
        const p = allParams(req);
        const span = Number(p.get("endTime")) - Number(p.get("startTime"));
        return at("allOrders")(req) && span > 3_600_000
          ? {
              status: 400,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ code: -1127, msg: "More than 1 hours between startTime and endTime." }),
            }
          : res;
      },
    },
    {
      name: "all-orders-endTime-ignored",
      description: "all_orders validates endTime but ignores it",
      caughtBy: ["time_window"],
      request: onRequest("allOrders", secret, (p) => {
        if (!p.has("endTime") || !p.has("startTime")) return false;
        p.delete("endTime");
        return true;
      }),
    },
    // ---- result filters ----
    {
      name: "exchangeInfo-symbol-ignored",
      description: "exchangeInfo validates symbol but lists every symbol",
      caughtBy: ["result_filter"],
      request: (req) => {
        if (!at("exchangeInfo")(req) || !req.query.has("symbol") || req.query.has("symbols")) return req;
        const query = new URLSearchParams(req.query);
        query.delete("symbol");
        return { ...req, query };
      },
    },
    {
      name: "exchangeInfo-symbols-ignored",
      description: "exchangeInfo validates symbols but lists every symbol",
      caughtBy: ["result_filter"],
      request: (req) => {
        if (!at("exchangeInfo")(req) || !req.query.has("symbols") || req.query.has("symbol")) return req;
        const query = new URLSearchParams(req.query);
        query.delete("symbols");
        return { ...req, query };
      },
    },
    {
      name: "symbols-list-unknown-member-skipped",
      description:
        "a symbols list naming a symbol the server does not list is answered for the others instead of refused (-1121)",
      caughtBy: ["result_filter"],
      request: (req, state) => {
        const named = req.query.get("symbols");
        const listed = state.get("listed") as string[] | undefined;
        if (!named || !listed) return req;
        let members: unknown;
        try {
          members = JSON.parse(named);
        } catch {
          return req;
        }
        if (!Array.isArray(members)) return req;
        const known = members.filter((m) => listed.includes(String(m).toUpperCase()));
        if (known.length === 0 || known.length === members.length) return req;
        const query = new URLSearchParams(req.query);
        query.set("symbols", JSON.stringify(known));
        return { ...req, query, rawQuery: query.toString() };
      },
      response: (req, res, state) => {
        if (at("exchangeInfo")(req) && served(res) && !req.query.has("symbols") && !req.query.has("symbol"))
          mapJson(res, (j) => {
            state.set(
              "listed",
              list((j as Json).symbols).map((s) => String(s.symbol)),
            );
            return j;
          });
        return res;
      },
    },
    {
      name: "exchangeInfo-symbols-first-only",
      description: "exchangeInfo with symbols answers only the first symbol listed",
      caughtBy: ["result_filter"],
      response: (req, res) =>
        at("exchangeInfo")(req) && req.query.has("symbols") && served(res)
          ? mapJson(res, (j) => ({ ...(j as Json), symbols: list((j as Json).symbols).slice(0, 1) }))
          : res,
    },
    {
      name: "all-orders-other-symbols",
      description: "all_orders also lists the account's orders on other symbols",
      caughtBy: ["result_filter"],
      response: onAnswer("allOrders", (j) => {
        const items = list(j);
        return items.length > 0 ? [...items, { ...items[0], symbol: "ETHUSDT", orderId: 999_999_999 }] : j;
      }),
    },
    {
      name: "open-orders-other-symbols",
      description: "open_orders with symbol also lists open orders on other symbols",
      caughtBy: ["result_filter"],
      response: (req, res) =>
        at("openOrders")(req) && allParams(req).has("symbol") && served(res)
          ? mapJson(res, (j) => {
              const items = list(j);
              return items.length > 0
                ? [...items, { ...items[0], symbol: "ETHUSDT", orderId: 999_999_998 }]
                : j;
            })
          : res,
    },
    // ---- unknown references ----
    ...(["trades", "depth", "avgPrice", "aggTrades", "historicalTrades", "ticker/price"] as const).map(
      unknownSymbolServed,
    ),
    {
      name: "unknown-symbol-wrong-code",
      description: "an unknown symbol answered with -1100 instead of -1121",
      caughtBy: ["unknown_reference"],
      response: (_req, res) =>
        unknownSymbol(res) ? { ...res, body: res.body.replace("-1121", "-1100") } : res,
    },
    {
      name: "unknown-order-query-wrong-code",
      description: "query_order of an unknown order answers -2011 instead of -2013",
      caughtBy: ["unknown_reference"],
      response: (req, res) =>
        req.method === "GET" && at("order")(req) && res.status === 400 && res.body.includes("-2013")
          ? { ...res, body: res.body.replace("-2013", "-2011") }
          : res,
    },
    {
      name: "unknown-order-cancel-wrong-code",
      description: "cancel_order of an unknown order answers -2013 instead of -2011",
      caughtBy: ["unknown_reference"],
      response: (req, res) =>
        req.method === "DELETE" && at("order")(req) && res.status === 400 && res.body.includes("-2011")
          ? { ...res, body: res.body.replace("-2011", "-2013") }
          : res,
    },
    {
      name: "open-orders-unknown-symbol-empty",
      description: "open_orders answers an unknown symbol with an empty list",
      caughtBy: ["unknown_reference"],
      response: (req, res) =>
        at("openOrders")(req) && unknownSymbol(res)
          ? { status: 200, headers: { ...res.headers, "content-type": "application/json" }, body: "[]" }
          : res,
    },
    // ---- symbol case ----
    ...(["depth", "trades", "exchangeInfo", "ticker/24hr"] as const).map(caseInsensitive),
    // ---- methods a path does not list ----
    {
      name: "method-ignored-depth",
      description: "depth answers any method as GET (routed by path alone)",
      caughtBy: ["method_refusal"],
      request: (req) => (at("depth")(req) && req.method !== "GET" ? { ...req, method: "GET" } : req),
    },
    // ---- limits ----
    {
      name: "trades-limit-above-max-truncated",
      description: "trades truncates a limit above 1000 instead of refusing it",
      caughtBy: ["limit_semantics", "negative_data_rejection"],
      request: onRequest("trades", secret, (p) => {
        if (!(Number(p.get("limit")) > 1000)) return false;
        p.set("limit", "1000");
        return true;
      }),
    },
    {
      name: "depth-limit-above-max-refused",
      description: "depth refuses a limit above 5000 instead of truncating it",
      caughtBy: ["limit_semantics"],
      response: (req, res) =>
        at("depth")(req) && Number(req.query.get("limit")) > 5000
          ? {
              status: 400,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ code: -1100, msg: "limit too large" }),
            }
          : res,
    },
    {
      name: "trades-default-10",
      description: "trades without limit answers 10 trades instead of 500",
      caughtBy: ["limit_semantics"],
      response: (req, res) =>
        at("trades")(req) && !req.query.has("limit") && served(res)
          ? mapJson(res, (j) => list(j).slice(-10))
          : res,
    },
    {
      name: "limit-of-one-served-as-two",
      description: "all_orders with limit=1 answers two orders (the smallest page taken as 2)",
      caughtBy: ["limit_semantics"],
      request: onRequest("allOrders", secret, (p) => {
        if (p.get("limit") !== "1") return false;
        p.set("limit", "2");
        return true;
      }),
    },
    {
      name: "limit-off-by-one",
      description: "historicalTrades answers limit + 1 items",
      caughtBy: ["limit_semantics", "defaults_honoured"],
      request: onRequest("historicalTrades", secret, (p) => {
        const limit = Number(p.get("limit"));
        if (!p.has("limit") || !(limit < 1000)) return false;
        p.set("limit", String(limit + 1));
        return true;
      }),
    },
    {
      name: "depth-limit-counts-both-sides",
      description: "depth's limit counts bids and asks together (half per side)",
      caughtBy: ["limit_semantics"],
      response: (req, res) => {
        const limit = Number(req.query.get("limit") ?? 100);
        return at("depth")(req) && served(res)
          ? mapJson(res, (j) => {
              const book = j as { bids: unknown[]; asks: unknown[] };
              const half = Math.max(1, Math.floor(limit / 2));
              return { ...book, bids: book.bids.slice(0, half), asks: book.asks.slice(0, half) };
            })
          : res;
      },
    },
    // ---- exchange filters ----
    {
      name: "tick-size-not-enforced",
      description: "new_order accepts a price off the tick size (rounds it)",
      caughtBy: ["exchange_filters"],
      request: onRequest("order", secret, (p) => {
        const price = p.get("price");
        if (!price || !/\.\d*5$/.test(price)) return false;
        p.set("price", String(Math.round(Number(price))));
        return true;
      }),
    },
    {
      name: "lot-size-not-enforced",
      description: "new_order accepts a quantity off the step size (rounds it down)",
      caughtBy: ["exchange_filters"],
      request: onRequest("order", secret, (p) => {
        // The symbol's step is 0.00001: a sixth decimal is off the step; the server drops it.
        const qty = p.get("quantity");
        const match = qty ? /^(\d+\.\d{5})\d+$/.exec(qty) : null;
        if (!match) return false;
        p.set("quantity", match[1]!);
        return true;
      }),
    },
    // ---- concurrency ----
    {
      name: "cancel-succeeds-after-fill",
      description:
        "a cancel that lost the race to a fill still answers CANCELED (two outcomes for one order)",
      caughtBy: ["cancel_race"],
      response: cancelSucceedsAfterFill(),
    },
    {
      name: "cancel-succeeds-after-fill-on-ethbtc",
      description:
        "on ETHBTC (the third symbol) alone, a cancel that lost the race to a fill still answers CANCELED",
      caughtBy: ["cancel_race"],
      response: cancelSucceedsAfterFill("ETHBTC"),
    },
    // ---- the server clock ----
    {
      name: "server-time-in-seconds",
      description: "server_time answers epoch seconds",
      caughtBy: ["clock_sanity"],
      response: onAnswer("time", (j) => ({ serverTime: Math.floor(Number((j as Json).serverTime) / 1000) })),
    },
    {
      name: "server-clock-9-years-off",
      description: "the server clock is nine years ahead (it checks timestamps against its own clock)",
      caughtBy: ["clock_sanity"],
      // Timestamps signed with the server's offset are taken back to the real server's clock.
      request: (req) => {
        const params = allParams(req);
        if (!params.has("signature") || !params.has("timestamp")) return req;
        const shifted = Number(params.get("timestamp")) - 9 * 365 * 86_400_000;
        return resign(req, secret, (p) => p.set("timestamp", String(shifted)));
      },
      // The whole server runs nine years ahead: its HTTP Date header says so too.
      response: (req, res) => {
        const nine = 9 * 365 * 86_400_000;
        const moved = onAnswer("time", (j) => ({ serverTime: Number((j as Json).serverTime) + nine }))(
          req,
          res,
        );
        const date = Date.parse(moved.headers.date ?? "");
        return Number.isFinite(date)
          ? { ...moved, headers: { ...moved.headers, date: new Date(date + nine).toUTCString() } }
          : moved;
      },
    },
    {
      name: "server-clock-stands-still",
      description: "server_time answers the time of its first answer ever after",
      caughtBy: ["clock_sanity"],
      response: (() => {
        let first: unknown;
        return onAnswer("time", (j) => {
          first ??= (j as Json).serverTime;
          return { serverTime: first };
        });
      })(),
    },
    {
      name: "server-time-cut-to-the-second",
      description:
        "server_time answers its clock cut to the whole second (a seconds clock times 1000), so it falls behind the times the server stamps on orders",
      caughtBy: ["clock_sanity"],
      response: onAnswer("time", (j) => {
        const time = (j as Json).serverTime;
        return typeof time === "number" ? { serverTime: Math.floor(time / 1000) * 1000 } : j;
      }),
    },
    // ---- signing and the receive window ----
    {
      name: "signature-over-query-only",
      description: "the signature is checked over the query string alone, ignoring the body",
      caughtBy: ["auth_enforcement"],
      request: partialSignature(secret, "query"),
    },
    {
      name: "signature-over-body-only",
      description: "the signature is checked over the form body alone, ignoring the query",
      caughtBy: ["auth_enforcement"],
      request: partialSignature(secret, "body"),
    },
    {
      name: "recvWindow-not-applied",
      description: "recvWindow is validated but the default window is applied",
      caughtBy: ["auth_enforcement"],
      request: (req) => {
        if (!allParams(req).has("recvWindow") || !allParams(req).has("signature")) return req;
        return resign(req, secret, (p) => p.delete("recvWindow"));
      },
    },
    // ---- order arithmetic ----
    {
      name: "ioc-remainder-rests",
      description: "an IOC order that did not fill answers NEW (its remainder rests)",
      caughtBy: ["order_arithmetic"],
      response: (req, res) =>
        req.method === "POST" &&
        at("order")(req) &&
        served(res) &&
        allParams(req).get("timeInForce") === "IOC"
          ? mapJson(res, (j) => ((j as Json).status === "EXPIRED" ? { ...(j as Json), status: "NEW" } : j))
          : res,
    },
    {
      name: "quote-from-limit-price-on-ethusdt",
      description:
        "on ETHUSDT (the second symbol) alone, a LIMIT order that fills reports cummulativeQuoteQty at its own price, not the fills'",
      caughtBy: ["order_arithmetic"],
      response: (req, res) => {
        const params = allParams(req);
        const price = Number(params.get("price"));
        if (params.get("symbol") !== "ETHUSDT" || !(price > 0)) return res;
        return onFill((o) => ({ ...o, cummulativeQuoteQty: (Number(o.executedQty) * price).toFixed(8) }))(
          req,
          res,
        );
      },
    },
    {
      name: "status-new-after-fill",
      description: "a filled order answers status NEW",
      caughtBy: ["order_arithmetic"],
      response: onFill((o) => ({ ...o, status: "NEW" })),
    },
    {
      name: "empty-fills-on-full",
      description: "a filled FULL answer has empty fills",
      caughtBy: ["order_arithmetic"],
      response: onFill((o) => ({ ...o, fills: [] })),
    },
    {
      name: "quote-qty-without-price",
      description: "cummulativeQuoteQty is the executed quantity, not Σ price × qty",
      caughtBy: ["order_arithmetic"],
      response: onFill((o) => ({ ...o, cummulativeQuoteQty: o.executedQty })),
    },
    {
      name: "quote-qty-from-limit-price",
      description: "cummulativeQuoteQty is computed from the order's price doubled (a wrong price)",
      caughtBy: ["order_arithmetic"],
      response: onFill((o) => ({
        ...o,
        cummulativeQuoteQty: (Number(o.cummulativeQuoteQty) * 2).toFixed(8),
      })),
    },
    {
      name: "fills-missing-one",
      description: "a FULL answer lists fills whose quantities do not sum to executedQty",
      caughtBy: ["order_arithmetic"],
      response: onFill((o) => ({
        ...o,
        executedQty: (Number(o.executedQty) * 2).toFixed(8),
        status: "PARTIALLY_FILLED",
      })),
    },
    {
      name: "fills-short-on-ethusdt",
      description: "a FULL answer on ETHUSDT (the second symbol) lists fills of half the quantity executed",
      caughtBy: ["order_arithmetic"],
      response: (req, res) =>
        allParams(req).get("symbol") === "ETHUSDT"
          ? onFill((o) => ({
              ...o,
              fills: (o.fills as Json[]).map((f) => ({ ...f, qty: (Number(f.qty) / 2).toFixed(8) })),
            }))(req, res)
          : res,
    },
    {
      name: "fok-partial",
      description: "a FOK order answers PARTIALLY_FILLED",
      caughtBy: ["order_arithmetic"],
      response: (req, res) =>
        req.method === "POST" &&
        at("order")(req) &&
        served(res) &&
        allParams(req).get("timeInForce") === "FOK"
          ? mapJson(res, (j) => {
              const o = j as Json;
              return Number(o.executedQty) > 0
                ? { ...o, origQty: (Number(o.origQty) * 2).toFixed(8), status: "PARTIALLY_FILLED" }
                : o;
            })
          : res,
    },
  ];
}

/** A refused cancel (-2011, the order filled) of the tester's order answered CANCELED, on `symbol` or every symbol. */
function cancelSucceedsAfterFill(symbol?: string): Fault["response"] {
  return (req, res) => {
    const params = allParams(req);
    if (req.method !== "DELETE" || !at("order")(req) || res.status !== 400 || !res.body.includes("-2011"))
      return res;
    if (!params.get("origClientOrderId")?.startsWith("mct-")) return res;
    if (symbol !== undefined && params.get("symbol") !== symbol) return res;
    return {
      status: 200,
      headers: { ...res.headers, "content-type": "application/json" },
      body: JSON.stringify({
        symbol: params.get("symbol"),
        origClientOrderId: params.get("origClientOrderId"),
        orderId: 1,
        orderListId: -1,
        clientOrderId: "cancelled",
        transactTime: Date.now(),
        price: "0.00000000",
        origQty: "0.00000000",
        executedQty: "0.00000000",
        cummulativeQuoteQty: "0.00000000",
        status: "CANCELED",
        timeInForce: "GTC",
        type: "LIMIT",
        side: "SELL",
        selfTradePreventionMode: "NONE",
      }),
    };
  };
}

/** `startTime` and `endTime` as `change` rewrites them; whether either changed. */
function rewriteBounds(params: URLSearchParams, change: (value: string) => string): boolean {
  let changed = false;
  for (const name of ["startTime", "endTime"]) {
    const value = params.get(name);
    if (value === null || change(value) === value) continue;
    params.set(name, change(value));
    changed = true;
  }
  return changed;
}
