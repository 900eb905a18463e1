/**
 * Faults in the relations between operations (x-relations): each a realistic mistake where two
 * operations that report the same fact disagree, naming the check that must catch it. Data only:
 * the suites that run faults take this list as they take the others.
 */
import { at, onAnswer, served } from "./behaviour-faults.js";
import type { Fault, ProxyRequest, ProxyResponse, ProxyState } from "./fault-proxy.js";

type Json = Record<string, unknown>;

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
      name: "aggTrades-not-best-match",
      description:
        "aggregate trades say they were not the best price match (M false) though their trades were",
      caughtBy: ["aggregate_cover"],
      response: onAnswer("aggTrades", (j) =>
        Array.isArray(j) ? (j as Json[]).map((a) => ({ ...a, M: false })) : j,
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
