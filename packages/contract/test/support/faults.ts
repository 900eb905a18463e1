/**
 * The injected faults of the mutation tests, one per kind of contract violation a real
 * implementation might have. Each names the checks expected to catch it.
 */
import {
  allParams,
  type Fault,
  mapJson,
  type ProxyRequest,
  type ProxyResponse,
  resign,
} from "./fault-proxy.js";

type Json = Record<string, unknown>;

const isOrder = (req: ProxyRequest) => req.path === "/api/v3/order";
const isError = (res: ProxyResponse) => res.status >= 400 && res.status < 500;
const signed = (req: ProxyRequest) => allParams(req).has("signature");

function cancelledIds(state: Map<string, unknown>): Map<number, Json> {
  let ids = state.get("cancelled") as Map<number, Json> | undefined;
  if (!ids) {
    ids = new Map();
    state.set("cancelled", ids);
  }
  return ids;
}

/** Remembers every order a DELETE /api/v3/order answer reports as cancelled. */
function rememberCancels(req: ProxyRequest, res: ProxyResponse, state: Map<string, unknown>): void {
  if (req.method !== "DELETE" || !isOrder(req) || res.status !== 200) return;
  const body = JSON.parse(res.body) as Json;
  if (typeof body.orderId === "number") cancelledIds(state).set(body.orderId, body);
}

/** The response with X-MBX-USED-WEIGHT-1M replaced by `value`, or removed. */
function withWeightHeader(res: ProxyResponse, value: string | undefined): ProxyResponse {
  const headers = Object.fromEntries(
    Object.entries(res.headers).filter(([name]) => name.toLowerCase() !== "x-mbx-used-weight-1m"),
  );
  return { ...res, headers: value === undefined ? headers : { ...headers, "x-mbx-used-weight-1m": value } };
}

export function faults(demo: { apiKey: string; apiSecret: string }): Fault[] {
  const secret = demo.apiSecret;
  return [
    {
      name: "price-as-number",
      description: "order book prices sent as JSON numbers instead of decimal strings",
      caughtBy: ["response_schema_conformance"],
      response: (req, res) =>
        req.path === "/api/v3/depth" && res.status === 200
          ? mapJson(res, (j) => {
              const book = j as { bids: unknown[][]; asks: unknown[][] };
              for (const level of [...book.bids, ...book.asks]) level[0] = Number(level[0]);
              return book;
            })
          : res,
    },
    {
      name: "missing-field",
      description: "serverTime missing from the server_time answer",
      caughtBy: ["response_schema_conformance"],
      response: (req, res) =>
        req.path === "/api/v3/time" && res.status === 200 ? mapJson(res, () => ({ time: Date.now() })) : res,
    },
    {
      name: "created-201",
      description: "new_order answers 201 Created instead of the documented 200",
      caughtBy: ["status_code_conformance"],
      response: (req, res) =>
        req.method === "POST" && isOrder(req) && res.status === 200 ? { ...res, status: 201 } : res,
    },
    {
      name: "error-as-200",
      description: "errors answered with status 200 (the error body unchanged)",
      caughtBy: ["negative_data_rejection", "response_schema_conformance"],
      response: (_req, res) => (isError(res) ? { ...res, status: 200 } : res),
    },
    {
      name: "500-on-bad-input",
      description: "invalid input answered with 500 instead of 400",
      caughtBy: ["not_a_server_error", "negative_data_rejection"],
      response: (_req, res) => (res.status === 400 ? { ...res, status: 500 } : res),
    },
    {
      name: "wrong-content-type",
      description: "the price ticker answered as text/plain",
      caughtBy: ["content_type_conformance"],
      response: (req, res) =>
        req.path === "/api/v3/ticker/price"
          ? { ...res, headers: { ...res.headers, "content-type": "text/plain; charset=utf-8" } }
          : res,
    },
    {
      name: "error-msg-names-undefined",
      description:
        "the missing parameter's refusal names it from a variable that is not there: Mandatory parameter 'undefined' was not sent",
      caughtBy: ["readable_errors"],
      response: (_req, res) =>
        isError(res)
          ? mapJson(res, (j) => {
              const error = j as Json;
              if (error.code === -1102 && typeof error.msg === "string")
                error.msg = error.msg.replace(/'[^']*'/, "'undefined'");
              return error;
            })
          : res,
    },
    {
      name: "error-msg-empty",
      description: "errors of unknown symbols answered with an empty msg",
      caughtBy: ["readable_errors"],
      response: (_req, res) =>
        isError(res)
          ? mapJson(res, (j) => {
              const error = j as Json;
              if (error.code === -1121) error.msg = "";
              return error;
            })
          : res,
    },
    {
      name: "unsigned-order-accepted",
      description: "new_order without a signature is accepted",
      caughtBy: ["auth_enforcement"],
      request: (req) => (req.method === "POST" && isOrder(req) && !signed(req) ? resign(req, secret) : req),
    },
    {
      name: "limit-ignored",
      description: "the limit parameter is ignored (every list gets its default size)",
      caughtBy: ["defaults_honoured"],
      request: (req) => {
        if (req.method !== "GET" || !req.query.has("limit") || signed(req)) return req;
        const query = new URLSearchParams(req.query);
        query.delete("limit");
        return { ...req, query };
      },
    },
    {
      name: "cancelled-still-open",
      description: "a cancelled order is still listed by open_orders",
      caughtBy: ["order_lifecycle"],
      response: (req, res, state) => {
        rememberCancels(req, res, state);
        if (req.method !== "GET" || req.path !== "/api/v3/openOrders" || res.status !== 200) return res;
        const ghosts = [...cancelledIds(state).values()];
        return mapJson(res, (list) => [...(list as Json[]), ...ghosts.map((o) => ({ ...o, status: "NEW" }))]);
      },
    },
    {
      name: "cancel-all-of-nothing-answered-empty",
      description: "cancel_all_orders where nothing is open answers 200 [] instead of refusing (-2011)",
      caughtBy: ["order_lifecycle"],
      response: (req, res) =>
        req.method === "DELETE" &&
        req.path === "/api/v3/openOrders" &&
        isError(res) &&
        res.body.includes("-2011")
          ? { ...res, status: 200, body: "[]" }
          : res,
    },
    {
      name: "wrong-default-depth",
      description: "depth without limit returns 50 levels instead of the declared default 100",
      caughtBy: ["defaults_honoured"],
      request: (req) => {
        if (req.path !== "/api/v3/depth" || req.query.has("limit")) return req;
        const query = new URLSearchParams(req.query);
        query.set("limit", "50");
        return { ...req, query };
      },
    },
    {
      name: "missing-weight-header",
      description: "X-MBX-USED-WEIGHT-1M left out of every answer",
      caughtBy: ["response_headers_conformance"],
      response: (_req, res) => withWeightHeader(res, undefined),
    },
    {
      name: "weight-header-not-integer",
      description: 'X-MBX-USED-WEIGHT-1M written as a decimal ("12.5")',
      caughtBy: ["response_headers_conformance"],
      response: (_req, res) => withWeightHeader(res, "12.5"),
    },
    {
      name: "error-without-code",
      description: "error bodies without the code field",
      caughtBy: ["response_schema_conformance", "negative_data_rejection"],
      response: (_req, res) =>
        isError(res)
          ? mapJson(res, (j) => {
              const { code: _code, ...rest } = j as Json;
              return rest;
            })
          : res,
    },
    {
      name: "symbol-and-symbols-accepted",
      description: "exchangeInfo accepts symbol and symbols together (uses symbol)",
      caughtBy: ["negative_data_rejection"],
      request: (req) => {
        if (req.path !== "/api/v3/exchangeInfo" || !req.query.has("symbol") || !req.query.has("symbols"))
          return req;
        const query = new URLSearchParams(req.query);
        query.delete("symbols");
        return { ...req, query };
      },
    },
    {
      name: "stale-timestamp-accepted",
      description: "signed requests with an old timestamp are accepted",
      caughtBy: ["auth_enforcement"],
      request: (req) => {
        if (!signed(req)) return req;
        const ts = Number(allParams(req).get("timestamp"));
        if (!Number.isFinite(ts) || Date.now() - ts < 10_000) return req;
        return resign(req, secret, (params) => params.set("timestamp", String(Date.now())));
      },
    },
    {
      name: "recv-window-one-second-slack",
      description:
        "a timestamp up to a second older than recvWindow allows is still served (the window compared with a second of slack)",
      caughtBy: ["auth_enforcement"],
      request: (req) => {
        if (!signed(req)) return req;
        const params = allParams(req);
        const age = Date.now() - Number(params.get("timestamp"));
        const window = Number(params.get("recvWindow") ?? "5000");
        if (!(age > window && age <= window + 1000)) return req;
        return resign(req, secret, (p) => p.set("timestamp", String(Date.now())));
      },
    },
    {
      name: "api-key-case-insensitive",
      description: "API keys are matched without regard to case (the spec: keys are case-sensitive)",
      caughtBy: ["auth_enforcement"],
      request: (req) => {
        const key = req.headers["x-mbx-apikey"];
        return key !== undefined && key !== demo.apiKey && key.toLowerCase() === demo.apiKey.toLowerCase()
          ? { ...req, headers: { ...req.headers, "x-mbx-apikey": demo.apiKey } }
          : req;
      },
    },
    {
      name: "wrong-signature-accepted",
      description: "signatures are not verified",
      caughtBy: ["auth_enforcement"],
      request: (req) => (signed(req) ? resign(req, secret) : req),
    },
    {
      name: "market-data-key-required",
      description:
        "the market_data trade lists refuse a request without an API key (the key is not required)",
      caughtBy: ["auth_enforcement"],
      response: (req, res) =>
        (req.path === "/api/v3/trades" || req.path === "/api/v3/historicalTrades") &&
        !req.headers["x-mbx-apikey"]
          ? {
              status: 401,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ code: -2014, msg: "API-key format invalid." }),
            }
          : res,
    },
    {
      name: "query-new-after-cancel",
      description: "query_order still shows NEW after the order was cancelled",
      caughtBy: ["order_lifecycle"],
      response: (req, res) =>
        req.method === "GET" && isOrder(req) && res.status === 200
          ? mapJson(res, (j) => ({ ...(j as Json), status: "NEW" }))
          : res,
    },
    {
      name: "resp-type-ignored",
      description: "new_order always answers the ACK shape, whatever newOrderRespType asks",
      caughtBy: ["response_schema_conformance"],
      response: (req, res) =>
        req.method === "POST" && isOrder(req) && res.status === 200
          ? mapJson(res, (j) => {
              const { symbol, orderId, orderListId, clientOrderId, transactTime } = j as Json;
              return { symbol, orderId, orderListId, clientOrderId, transactTime };
            })
          : res,
    },
    {
      name: "resp-type-always-full",
      description:
        "new_order answers the FULL shape whatever newOrderRespType asks (ACK and RESULT get fills)",
      caughtBy: ["response_schema_conformance"],
      request: (req) => {
        if (req.method !== "POST" || !isOrder(req)) return req;
        const asked = allParams(req).get("newOrderRespType");
        if (asked === null || asked === "FULL") return req;
        return resign(req, secret, (p) => p.set("newOrderRespType", "FULL"));
      },
    },
    {
      name: "out-of-range-limit-clamped",
      description: "depth limit outside 1..5000 is clamped instead of rejected",
      caughtBy: ["negative_data_rejection"],
      request: (req) => {
        const limit = Number(req.query.get("limit"));
        if (req.path !== "/api/v3/depth" || !req.query.has("limit") || !Number.isInteger(limit)) return req;
        const query = new URLSearchParams(req.query);
        query.set("limit", String(Math.min(5000, Math.max(1, limit))));
        return { ...req, query };
      },
    },
    {
      name: "cancelled-missing-from-all-orders",
      description: "all_orders leaves out cancelled orders",
      caughtBy: ["order_lifecycle"],
      response: (req, res) =>
        req.path === "/api/v3/allOrders" && res.status === 200
          ? mapJson(res, (list) => (list as Json[]).filter((o) => o.status !== "CANCELED"))
          : res,
    },
    {
      name: "server-error-on-avg-price",
      description: "avgPrice fails with 500 and an HTML page",
      caughtBy: ["not_a_server_error"],
      response: (req, res) =>
        req.path === "/api/v3/avgPrice"
          ? {
              status: 500,
              headers: { "content-type": "text/html" },
              body: "<html><body>Internal Server Error</body></html>",
            }
          : res,
    },
  ];
}
