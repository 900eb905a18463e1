/**
 * Faults in the order state that only a sequence of operations shows: reads that disagree after a
 * partial fill, a cancel of a partly filled order, colliding client order ids, quote-budget
 * orders, LIMIT_MAKER semantics, the response variants. Each one a realistic implementation
 * mistake, injected by the proxy, that stateful_exploration must catch.
 */
import { at, list, onAnswer, served } from "./behaviour-faults.js";
import {
  allParams,
  type Fault,
  mapJson,
  type ProxyRequest,
  type ProxyResponse,
  resign,
} from "./fault-proxy.js";

type Json = Record<string, unknown>;

const isNewOrder = (req: ProxyRequest) => req.method === "POST" && at("order")(req);
const ZERO = "0.00000000";

/** Rewrites every order object of one path's answers (an object, or each item of a list). */
function onOrders(path: string, method: string, change: (order: Json) => Json) {
  return (req: ProxyRequest, res: ProxyResponse) =>
    at(path)(req) && req.method === method && served(res)
      ? mapJson(res, (json) => (Array.isArray(json) ? list(json).map(change) : change(json as Json)))
      : res;
}

/** The client order ids the proxy saw accepted and not yet closed (by the answers it relayed). */
function openIds(state: Map<string, unknown>): Set<string> {
  let ids = state.get("open-ids") as Set<string> | undefined;
  if (!ids) {
    ids = new Set();
    state.set("open-ids", ids);
  }
  return ids;
}

export function explorationFaults(demo: { apiSecret: string }): Fault[] {
  const secret = demo.apiSecret;
  return [
    {
      name: "query-partial-fill-as-new",
      description:
        "query_order shows a partly filled order as NEW with nothing executed (a stale copy of the order)",
      caughtBy: ["stateful_exploration"],
      response: onOrders("order", "GET", (o) =>
        o.status === "PARTIALLY_FILLED"
          ? { ...o, status: "NEW", executedQty: ZERO, cummulativeQuoteQty: ZERO }
          : o,
      ),
    },
    {
      name: "open-orders-drop-partial",
      description: "open_orders leaves out orders that are partly filled",
      caughtBy: ["stateful_exploration"],
      response: onAnswer("openOrders", (j, req) =>
        req.method === "GET" ? list(j).filter((o) => o.status !== "PARTIALLY_FILLED") : j,
      ),
    },
    {
      name: "cancel-report-drops-fill",
      description: "the cancel answer of a partly filled order reports nothing executed",
      caughtBy: ["stateful_exploration"],
      response: onOrders("order", "DELETE", (o) =>
        Number(o.executedQty) > 0 ? { ...o, executedQty: ZERO, cummulativeQuoteQty: ZERO } : o,
      ),
    },
    {
      name: "all-orders-maker-fill-stale",
      description:
        "all_orders shows a resting order's executed quantity as of its placement (fills against it not written back)",
      caughtBy: ["stateful_exploration"],
      response: onOrders("allOrders", "GET", (o) =>
        o.status === "PARTIALLY_FILLED"
          ? { ...o, executedQty: ZERO, cummulativeQuoteQty: ZERO, status: "NEW" }
          : o,
      ),
    },
    {
      name: "cancel-all-omits-partial",
      description: "cancel_all_orders cancels partly filled orders but leaves them out of its answer",
      caughtBy: ["stateful_exploration"],
      response: onAnswer("openOrders", (j, req) =>
        req.method === "DELETE" ? list(j).filter((o) => Number(o.executedQty) === 0) : j,
      ),
    },
    {
      name: "result-variant-before-matching",
      description: "the RESULT answer is written before the order matched: nothing executed, status NEW",
      caughtBy: ["stateful_exploration"],
      response: (req, res) =>
        isNewOrder(req) && allParams(req).get("newOrderRespType") === "RESULT" && served(res)
          ? mapJson(res, (j) => ({
              ...(j as Json),
              status: "NEW",
              executedQty: ZERO,
              cummulativeQuoteQty: ZERO,
            }))
          : res,
    },
    {
      name: "quote-order-origqty-is-budget",
      description: "a MARKET order by quoteOrderQty answers origQty as the quote budget",
      caughtBy: ["stateful_exploration"],
      response: (req, res) => {
        const quote = allParams(req).get("quoteOrderQty");
        return isNewOrder(req) && quote && served(res)
          ? mapJson(res, (j) => ((j as Json).origQty !== undefined ? { ...(j as Json), origQty: quote } : j))
          : res;
      },
    },
    {
      name: "limit-maker-as-limit",
      description: "LIMIT_MAKER is treated as a plain GTC limit: one that would take is accepted and trades",
      caughtBy: ["stateful_exploration"],
      request: (req) => {
        if (!isNewOrder(req) || allParams(req).get("type") !== "LIMIT_MAKER") return req;
        return resign(req, secret, (p) => {
          p.set("type", "LIMIT");
          p.set("timeInForce", "GTC");
        });
      },
    },
    {
      name: "limit-maker-as-limit-on-ethbtc",
      description:
        "on ETHBTC (the third symbol) alone, LIMIT_MAKER is treated as a plain GTC limit: one that would take is accepted and trades",
      caughtBy: ["stateful_exploration"],
      request: (req) => {
        const params = allParams(req);
        if (!isNewOrder(req) || params.get("type") !== "LIMIT_MAKER" || params.get("symbol") !== "ETHBTC")
          return req;
        return resign(req, secret, (p) => {
          p.set("type", "LIMIT");
          p.set("timeInForce", "GTC");
        });
      },
    },
    {
      name: "duplicate-client-id-accepted",
      description:
        "a new order reusing the client order id of an open order is accepted (uniqueness not enforced)",
      caughtBy: ["stateful_exploration"],
      request: (req, state) => {
        const id = allParams(req).get("newClientOrderId");
        if (!isNewOrder(req) || !id || !openIds(state).has(id)) return req;
        state.set("renamed", id);
        return resign(req, secret, (p) => p.set("newClientOrderId", `dup${Date.now().toString(36)}`));
      },
      response: (req, res, state) => {
        const renamed = state.get("renamed") as string | undefined;
        if (isNewOrder(req) && served(res)) {
          state.delete("renamed");
          const body = JSON.parse(res.body) as Json;
          if (
            renamed === undefined &&
            typeof body.clientOrderId === "string" &&
            ["NEW", "PARTIALLY_FILLED", undefined].includes(body.status as string)
          )
            openIds(state).add(body.clientOrderId);
          return renamed === undefined
            ? res
            : mapJson(res, (j) => ({ ...(j as Json), clientOrderId: renamed }));
        }
        if (req.method === "DELETE" && served(res))
          for (const o of Array.isArray(JSON.parse(res.body))
            ? list(JSON.parse(res.body))
            : [JSON.parse(res.body) as Json])
            if (typeof o.origClientOrderId === "string") openIds(state).delete(o.origClientOrderId);
        return res;
      },
    },
    {
      name: "mismatched-ids-follow-orderId",
      description:
        "query_order and cancel_order given an orderId and an origClientOrderId of another order act on the orderId",
      caughtBy: ["stateful_exploration"],
      request: (req) => {
        const params = allParams(req);
        if (
          !at("order")(req) ||
          req.method === "POST" ||
          !params.has("orderId") ||
          !params.has("origClientOrderId")
        )
          return req;
        return resign(req, secret, (p) => p.delete("origClientOrderId"));
      },
    },
    {
      name: "ioc-partial-as-filled",
      description: "an IOC order that filled in part answers FILLED (the expired remainder forgotten)",
      caughtBy: ["stateful_exploration"],
      response: (req, res) =>
        isNewOrder(req) && allParams(req).get("timeInForce") === "IOC" && served(res)
          ? mapJson(res, (j) => {
              const o = j as Json;
              return o.status === "EXPIRED" && Number(o.executedQty) > 0 ? { ...o, status: "FILLED" } : o;
            })
          : res,
    },
    {
      name: "open-orders-maker-fill-zero",
      description: "open_orders shows every open order with nothing executed",
      caughtBy: ["stateful_exploration"],
      response: onAnswer("openOrders", (j, req) =>
        req.method === "GET"
          ? list(j).map((o) => ({ ...o, executedQty: ZERO, cummulativeQuoteQty: ZERO }))
          : j,
      ),
    },
  ];
}
