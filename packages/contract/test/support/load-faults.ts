/**
 * Faults of rate-limit enforcement, for the opt-in load phase (rate_limit_enforcement, --load):
 * the burst's faults rewrite the answers of a reference server whose REQUEST_WEIGHT limit is
 * LOAD_WEIGHT_LIMIT, each caught at the burst, before the ban; the connection probes' faults stand
 * in front of a server with its default limits, where the phase probes without a burst.
 */
import type { Fault, ProxyResponse } from "./fault-proxy.js";

/** The weight limit of the server the faults stand in front of (a multiple of depth's heaviest weight). */
export const LOAD_WEIGHT_LIMIT = 2000;

const isDepth = (path: string) => path.endsWith("/depth");

const tooMuchWeight = (res: ProxyResponse, retryAfter: string | undefined): ProxyResponse => ({
  status: 429,
  headers: {
    "content-type": "application/json;charset=UTF-8",
    "x-mbx-used-weight-1m": res.headers["x-mbx-used-weight-1m"] ?? "0",
    ...(retryAfter ? { "retry-after": retryAfter } : {}),
  },
  body: JSON.stringify({
    code: -1003,
    msg: `Too much request weight used; current limit is ${LOAD_WEIGHT_LIMIT}.`,
  }),
});

/** Connections after which the slot-leaking fault refuses every new one. */
const LEAKED_SLOTS = 300;

/** Bytes beyond any request line or header block the run sends but the load phase's overlong probes. */
const OVERLONG = 32 * 1024;

const refusal = (status: number, code: number, msg: string): ProxyResponse => ({
  status,
  headers: { "content-type": "application/json;charset=UTF-8", connection: "close" },
  body: JSON.stringify({ code, msg }),
});

/**
 * Faults of the connection probes (connection slots, overlong requests): against a server whose
 * weight limit a bounded burst cannot reach, the phase sends no burst and probes at once, so their
 * runs do not wait out a weight window.
 */
export function probeFaults(): Fault[] {
  return [
    {
      name: "closed-connections-still-counted",
      description: `a connection's slot is never given back, so the ${LEAKED_SLOTS + 1}st connection of an address is refused with 429 (stood for by pings: the load phase's connection probe sends one per connection)`,
      caughtBy: ["rate_limit_enforcement"],
      request: (req, state) => {
        if (!req.path.endsWith("/ping")) return req;
        const seen = ((state.get("connections") as number | undefined) ?? 0) + 1;
        state.set("connections", seen);
        return seen > LEAKED_SLOTS
          ? refusal(429, -1003, `Too many open connections from your address; the limit is ${LEAKED_SLOTS}.`)
          : req;
      },
    },
    {
      name: "overlong-request-line-refused-431",
      description:
        "an overlong request line is refused with 431 (header fields too large) instead of 414 (URI too long)",
      caughtBy: ["rate_limit_enforcement"],
      request: (req) =>
        req.rawQuery.length > OVERLONG ? refusal(431, -1101, "Request header fields too large.") : req,
    },
    {
      name: "overlong-headers-refused-414",
      description: "overlong request headers are refused with 414 (URI too long) instead of 431",
      caughtBy: ["rate_limit_enforcement"],
      request: (req) =>
        Object.values(req.headers).some((value) => value.length > OVERLONG)
          ? refusal(414, -1101, "Request line too long.")
          : req,
    },
  ];
}

/** Faults of the burst to the weight limit, the ban and the recovery: in front of a server whose limit is LOAD_WEIGHT_LIMIT. */
export function loadFaults(): Fault[] {
  return [...probeFaults(), ...burstFaults(), ...orderBurstFaults()];
}

/** The ORDERS limit per 10 seconds of the server the order burst's faults stand in front of. */
export const LOAD_ORDER_LIMIT = 20;

const isOrderPost = (req: { method: string; path: string }) =>
  req.method === "POST" && req.path === "/api/v3/order";

/** Faults of the burst to the ORDERS limit: in front of a server whose 10-second limit is LOAD_ORDER_LIMIT. */
export function orderBurstFaults(): Fault[] {
  return [
    {
      name: "orders-limit-refuses-cancels",
      description:
        "while new orders are refused for the ORDERS limit, cancels are refused too (429 -1015), so an account at its limit cannot take its orders off the book",
      caughtBy: ["rate_limit_enforcement"],
      response: (req, res, state) => {
        if (isOrderPost(req) && res.status === 429)
          state.set("refusing", {
            until: Date.now() + 1000 * Number(res.headers["retry-after"] ?? "10"),
            res,
          });
        const refusing = state.get("refusing") as { until: number; res: ProxyResponse } | undefined;
        const cancel = req.method === "DELETE" && req.path === "/api/v3/order";
        return cancel && refusing && Date.now() < refusing.until ? refusing.res : res;
      },
    },
    {
      name: "orders-limit-announced-twice-enforced",
      description: "exchangeInfo announces an ORDERS limit twice the one enforced",
      caughtBy: ["rate_limit_enforcement"],
      response: (req, res) => {
        if (req.path !== "/api/v3/exchangeInfo" || res.status !== 200) return res;
        const info = JSON.parse(res.body) as { rateLimits?: Array<{ rateLimitType: string; limit: number }> };
        for (const limit of info.rateLimits ?? []) if (limit.rateLimitType === "ORDERS") limit.limit *= 2;
        return { ...res, body: JSON.stringify(info) };
      },
    },
    {
      name: "orders-limit-429-without-retry-after",
      description: "the 429 for too many orders carries no Retry-After",
      caughtBy: ["rate_limit_enforcement"],
      response: (req, res) => {
        if (!isOrderPost(req) || res.status !== 429) return res;
        const { "retry-after": _dropped, ...headers } = res.headers;
        return { ...res, headers };
      },
    },
  ];
}

export function burstFaults(): Fault[] {
  return [
    {
      name: "weight-limit-refuses-at-the-limit",
      description:
        "the request that brings the used weight exactly to the limit is refused (>= where > belongs)",
      caughtBy: ["rate_limit_enforcement"],
      response: (_req, res) =>
        res.status === 200 && Number(res.headers["x-mbx-used-weight-1m"]) === LOAD_WEIGHT_LIMIT
          ? tooMuchWeight(res, "30")
          : res,
    },
    {
      name: "weight-limit-429-without-retry-after",
      description: "the 429 for too much weight carries no Retry-After",
      caughtBy: ["rate_limit_enforcement", "response_headers_conformance"],
      response: (req, res) => {
        if (!isDepth(req.path) || res.status !== 429) return res;
        const { "retry-after": _dropped, ...headers } = res.headers;
        return { ...res, headers };
      },
    },
    {
      name: "weight-limit-retry-after-too-short",
      description:
        "the 429's Retry-After is one second whatever is left of the weight window (counted to the window before it)",
      caughtBy: ["rate_limit_enforcement"],
      response: (req, res) =>
        isDepth(req.path) && res.status === 429
          ? { ...res, headers: { ...res.headers, "retry-after": "1" } }
          : res,
    },
    {
      name: "weight-limit-not-enforced",
      description: "past the limit the request is served anyway (the 429 becomes the answer of a depth read)",
      caughtBy: ["rate_limit_enforcement"],
      response: (req, res, state) => {
        if (!isDepth(req.path)) return res;
        if (res.status === 200) state.set("last", res);
        const last = state.get("last") as ProxyResponse | undefined;
        return res.status === 429 && last ? last : res;
      },
    },
  ];
}

/**
 * A used-weight counter that never starts again: each answer's X-MBX-USED-WEIGHT-1M carries the
 * totals of the windows before. Seen only by a run that spans a window's boundary
 * (test/weight-window.test.ts starts one just before it).
 */
export function windowRestartFault(): Fault {
  return {
    name: "weight-window-never-restarts",
    description:
      "the weight counter never restarts at a new minute: it carries the count of the windows before",
    caughtBy: ["rate_counters"],
    response: (_req, res, state) => {
      const raw = Number(res.headers["x-mbx-used-weight-1m"]);
      if (!Number.isFinite(raw)) return res;
      const last = (state.get("last") as number | undefined) ?? 0;
      // The server's count fell: a new window began; the fault carries the old one's total over.
      const carried = ((state.get("carried") as number | undefined) ?? 0) + (raw < last ? last : 0);
      state.set("carried", carried);
      state.set("last", raw);
      const shown = String(raw + carried);
      return {
        ...res,
        headers: { ...res.headers, "x-mbx-used-weight-1m": shown, "x-mbx-used-weight": shown },
      };
    },
  };
}
