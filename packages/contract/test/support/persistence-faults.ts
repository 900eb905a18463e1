/**
 * Faults of a target that restarted and kept less than it acknowledged, for `recall`
 * (persistence): each stands in front of the restarted reference server and rewrites what it
 * shows of the past. Each names what `recall` must say changed (`want`).
 */
import {
  type Fault,
  type ProxyRequest,
  type ProxyResponse,
  type ProxyState,
  resign,
  UPSTREAM,
} from "./fault-proxy.js";

export interface PersistenceFault extends Fault {
  /** What the recall's findings must say (one of them matches). */
  want: RegExp;
  /**
   * Seen only while the run's trades lie within a window of real time that ends this long after
   * them (the average price's five minutes): a suite judges such faults first, right after the
   * restart, so that a loaded machine's slower tests before them do not close the window.
   */
  seenWithinMs?: number;
}

type Item = Record<string, unknown>;

const json = (res: ProxyResponse): unknown => {
  try {
    return JSON.parse(res.body);
  } catch {
    return undefined;
  }
};
const withBody = (res: ProxyResponse, body: unknown): ProxyResponse => ({
  ...res,
  body: JSON.stringify(body),
});
const at = (req: ProxyRequest, path: string) => req.method === "GET" && req.path === path;
const unknownOrder: ProxyResponse = {
  status: 400,
  headers: { "content-type": "application/json;charset=UTF-8" },
  body: JSON.stringify({ code: -2013, msg: "Order does not exist." }),
};
const param = (req: ProxyRequest, name: string): string | null =>
  req.query.get(name) ?? new URLSearchParams(req.body).get(name);

/** The first closed order all_orders showed (the fault's victim), kept in the proxy's state. */
function victim(state: ProxyState, orders: Item[]): Item | undefined {
  if (!state.has("victim")) {
    const first = orders.find((o) => o.status === "FILLED") ?? orders[0];
    if (first) state.set("victim", first);
  }
  return state.get("victim") as Item | undefined;
}

const isVictim = (req: ProxyRequest, state: ProxyState): boolean => {
  const order = state.get("victim") as Item | undefined;
  if (!order || req.query.get("symbol") !== order.symbol) return false;
  return (
    req.query.get("orderId") === String(order.orderId) ||
    req.query.get("origClientOrderId") === order.clientOrderId
  );
};

/** `apiSecret`: the account's, to sign a request the fault rewrites. */
export function persistenceFaults(apiSecret: string): PersistenceFault[] {
  return [
    {
      name: "restart-newest-page-short",
      description: "all_orders without a cursor lists only the newest order after the restart",
      caughtBy: ["persistence"],
      want: /all_orders \(newest 1000\): 1 order\(s\), but the account has the \d+ remembered/,
      response: (req, res) => {
        if (!at(req, "/api/v3/allOrders") || res.status !== 200) return res;
        if (req.query.has("orderId") || req.query.has("startTime") || req.query.has("endTime")) return res;
        return withBody(res, (json(res) as Item[]).slice(-1));
      },
    },
    {
      name: "fresh-page-over-its-limit",
      description: "all_orders from a cursor answers one item more than its limit",
      caughtBy: ["persistence"],
      want: /all_orders .*more than its limit/,
      request: (req) =>
        at(req, "/api/v3/allOrders") && req.query.has("orderId") && Number(req.query.get("limit")) < 10
          ? resign(req, apiSecret, (params) => params.set("limit", String(Number(params.get("limit")) + 1)))
          : req,
    },
    {
      name: "fresh-window-end-ignored",
      description: "all_orders ignores endTime when startTime is given",
      caughtBy: ["persistence"],
      want: /all_orders .*outside its window/,
      request: (req) =>
        at(req, "/api/v3/allOrders") && req.query.has("endTime") && req.query.has("startTime")
          ? resign(req, apiSecret, (params) => params.delete("endTime"))
          : req,
    },
    {
      name: "restart-drops-an-acknowledged-order",
      description: "after the restart a filled order is gone from all_orders and unknown to query_order",
      caughtBy: ["persistence"],
      want: /order \d+ .*(all_orders|query_order by orderId): not found/,
      request: (req, state) => (at(req, "/api/v3/order") && isVictim(req, state) ? unknownOrder : req),
      response: (req, res, state) => {
        if (!at(req, "/api/v3/allOrders") || res.status !== 200) return res;
        const orders = json(res) as Item[];
        const gone = victim(state, orders);
        return withBody(
          res,
          orders.filter((o) => o.orderId !== gone?.orderId),
        );
      },
    },
    {
      name: "restart-forgets-fills",
      description: "after the restart a filled order shows nothing executed and status NEW",
      caughtBy: ["persistence"],
      want: /order \d+ .*executedQty: "[\d.]+" → "0\.00000000"; .*status: "FILLED" → "NEW"/,
      response: (req, res) => {
        if (!(at(req, "/api/v3/allOrders") || at(req, "/api/v3/order")) || res.status !== 200) return res;
        const forget = (o: Item): Item =>
          o.status === "FILLED"
            ? { ...o, status: "NEW", executedQty: "0.00000000", cummulativeQuoteQty: "0.00000000" }
            : o;
        const body = json(res);
        return withBody(res, Array.isArray(body) ? (body as Item[]).map(forget) : forget(body as Item));
      },
    },
    {
      name: "restart-resets-a-balance",
      description: "after the restart the account's balances are back to what they were before the run",
      caughtBy: ["persistence"],
      want: /balance of \w+: account: free/,
      response: (req, res) => {
        if (!at(req, "/api/v3/account") || res.status !== 200) return res;
        const body = json(res) as { balances: Item[] };
        return withBody(res, {
          ...body,
          balances: body.balances.map((b, i) => (i === 0 ? { ...b, free: `${b.free}1` } : b)),
        });
      },
    },
    {
      name: "restart-changes-a-trade",
      description: "after the restart one of the account's trades shows another price",
      caughtBy: ["persistence"],
      want: /trade \d+ \(order \d+\): myTrades: price/,
      response: (req, res) => {
        if (!at(req, "/api/v3/myTrades") || res.status !== 200) return res;
        const trades = json(res) as Item[];
        return withBody(
          res,
          trades.map((t, i) => (i === 0 ? { ...t, price: "1.00000000" } : t)),
        );
      },
    },
    {
      name: "restart-drops-a-public-trade",
      description: "after the restart the trade list lacks the oldest trade the run made",
      caughtBy: ["persistence"],
      want: /trade \d+.*: historical_trades: not found/,
      response: (req, res, state) => {
        if (!at(req, "/api/v3/historicalTrades") || res.status !== 200) return res;
        const trades = json(res) as Item[];
        if (!state.has("dropped") && trades[0]) state.set("dropped", trades[0].id);
        return withBody(
          res,
          trades.filter((t) => t.id !== state.get("dropped")),
        );
      },
    },
    {
      name: "restart-rewrites-a-candle",
      description: "after the restart a closed 1-minute candle shows another volume",
      caughtBy: ["persistence"],
      want: /1m candle opening .*: klines:/,
      response: (req, res) => {
        if (!at(req, "/api/v3/klines") || res.status !== 200) return res;
        const candles = json(res) as unknown[][];
        return withBody(
          res,
          candles.map((c, i) => (i === 0 ? [...c.slice(0, 5), "123.00000000", ...c.slice(6)] : c)),
        );
      },
    },
    {
      name: "restart-forgets-the-average-window",
      description: "after the restart the average price leaves out the trades of its window made before it",
      caughtBy: ["persistence"],
      seenWithinMs: 5 * 60_000,
      want: /current_average_price: average price: \/price is "[\d.]+"; the \d+ trade\(s\) of its window give [\d.]+ \(weightedAverage\)/,
      response: (req, res) => {
        if (!at(req, "/api/v3/avgPrice") || res.status !== 200) return res;
        const body = json(res) as Item;
        return withBody(res, { ...body, price: "1.00000000" });
      },
    },
    {
      name: "restart-reuses-order-ids",
      description: "after the restart the order id counter starts again: a new order gets id 1",
      caughtBy: ["persistence"],
      want: /new order .*orderId 1 is not above the highest remembered/,
      request: (req, state) => {
        // The reused id stands for the real one in later requests, as a server that reused it would.
        const real = state.get("real") as string | undefined;
        if (real === undefined || param(req, "orderId") !== "1") return req;
        return resign(req, apiSecret, (params) => params.set("orderId", real));
      },
      response: (req, res, state) => {
        if (!(req.method === "POST" && req.path === "/api/v3/order") || res.status !== 200) return res;
        const order = json(res) as Item;
        state.set("real", String(order.orderId));
        return withBody(res, { ...order, orderId: 1 });
      },
    },
    {
      name: "restart-refuses-a-closed-orders-client-id",
      description: "after the restart a client order id of a closed order is refused as a duplicate",
      caughtBy: ["persistence"],
      want: /new order .*refused as a duplicate/,
      request: (req) =>
        req.method === "POST" && req.path === "/api/v3/order"
          ? {
              status: 400,
              headers: { "content-type": "application/json;charset=UTF-8" },
              body: JSON.stringify({ code: -2010, msg: "Duplicate order sent." }),
            }
          : req,
    },
  ];
}

const adminAt = (req: ProxyRequest, method: string, pattern: RegExp) =>
  req.method === method && pattern.test(req.path);
const json200 = (body: unknown): ProxyResponse => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/**
 * Faults of a sandbox's admin surface (in front of it): a restore that answers without bringing
 * the snapshot back, a delete that keeps the snapshot.
 */
export function snapshotFaults(): PersistenceFault[] {
  return [
    {
      name: "restore-answers-but-keeps-the-present",
      description: "a restore answers 200 with the snapshot's id and time, and changes nothing",
      caughtBy: ["persistence"],
      want: /placed after the snapshot are still listed after its restore/,
      response: (req, res, state) => {
        if (adminAt(req, "POST", /^\/admin\/v1\/snapshots$/) && res.status === 201)
          state.set("taken", JSON.parse(res.body));
        return res;
      },
      request: (req, state) => {
        const taken = state.get("taken") as { id: string; takenAt: number } | undefined;
        return adminAt(req, "POST", /\/restore$/) && taken
          ? json200({ id: taken.id, time: taken.takenAt })
          : req;
      },
    },
    {
      name: "delete-keeps-the-snapshot",
      description: "a delete answers 204 and the snapshot stays, restorable",
      caughtBy: ["persistence"],
      want: /after its delete: status 200/,
      request: (req) =>
        adminAt(req, "DELETE", /^\/admin\/v1\/snapshots\/s\d+$/)
          ? { status: 204, headers: {}, body: "" }
          : req,
    },
  ];
}

const jsonOf = async (response: Response): Promise<unknown> => JSON.parse(await response.text());

/** The upstream admin surface's sandbox time (GET /admin/v1/status). */
async function sandboxTime(admin: string, headers: Record<string, string>): Promise<number> {
  const status = (await jsonOf(await fetch(`${admin}/admin/v1/status`, { headers }))) as { time: number };
  return status.time;
}

/** Forwards the reset itself; the fault then does `after` to the upstream, and answers its answer. */
async function resetThen(
  req: ProxyRequest,
  state: ProxyState,
  after: (admin: string, headers: Record<string, string>) => Promise<void>,
): Promise<ProxyResponse> {
  const admin = state.get(UPSTREAM) as string;
  const headers = { authorization: req.headers.authorization ?? "" };
  const answer = await fetch(`${admin}${req.path}`, { method: "POST", headers });
  const body = await answer.text();
  if (answer.ok) await after(admin, headers);
  return { status: answer.status, headers: { "content-type": "application/json" }, body };
}

const isReset = (req: ProxyRequest) => adminAt(req, "POST", /^\/admin\/v1\/reset$/);

/**
 * Faults of the sandbox's reset (recall --allow-reset), each in front of the admin surface; one
 * (`api`) also stands in front of the API, to see what the account placed. `apiSecret`: the
 * account's, to sign a placement the fault sends again.
 */
export function resetFaults(apiSecret: string): Array<PersistenceFault & { api?: Fault }> {
  const placements: ProxyRequest[] = [];
  let api = "";
  /** The placements are seen from the first reset on (those before it are the past the reset keeps). */
  let seeing = false;
  return [
    {
      name: "reset-answers-and-changes-nothing",
      description: "a reset answers 200 with the sandbox's time and changes nothing",
      caughtBy: ["persistence"],
      want: /placed between the resets, query_order after the second answers status 200/,
      request: async (req, state) =>
        isReset(req)
          ? json200({
              time: await sandboxTime(state.get(UPSTREAM) as string, {
                authorization: req.headers.authorization ?? "",
              }),
            })
          : req,
    },
    {
      name: "reset-keeps-an-added-account",
      description: "a reset leaves the accounts added through the admin surface able to trade",
      caughtBy: ["persistence"],
      want: /added through the admin surface\): after the reset its signed read answers status 200/,
      request: async (req, state) => {
        if (adminAt(req, "POST", /^\/admin\/v1\/accounts$/)) state.set("added", req.rawQuery);
        if (!isReset(req)) return req;
        return resetThen(req, state, async (admin, headers) => {
          const added = state.get("added") as string | undefined;
          if (added) await fetch(`${admin}/admin/v1/accounts?${added}`, { method: "POST", headers });
        });
      },
    },
    {
      name: "reset-leaves-the-clock",
      description: "a reset brings the exchange back but leaves the sandbox clock where it was",
      caughtBy: ["persistence"],
      want: /a reset brings the clock back to the server's start/,
      request: async (req, state) => {
        if (!isReset(req)) return req;
        const admin = state.get(UPSTREAM) as string;
        const headers = { authorization: req.headers.authorization ?? "" };
        const was = await sandboxTime(admin, headers);
        await resetThen(req, state, async () => {
          await fetch(`${admin}/admin/v1/clock/advance?to=${was}`, { method: "POST", headers });
        });
        return json200({ time: await sandboxTime(admin, headers) });
      },
    },
    {
      name: "reset-keeps-an-order",
      description: "a reset keeps the LIMIT orders the account placed since the last reset (placed again)",
      caughtBy: ["persistence"],
      want: /placed between the resets, query_order after the second answers 200|listed after the second reset, not after the first/,
      api: {
        name: "reset-keeps-an-order (the API)",
        description: "sees the account's LIMIT placements",
        caughtBy: ["persistence"],
        request: (req, state) => {
          api = state.get(UPSTREAM) as string;
          if (
            seeing &&
            req.method === "POST" &&
            req.path === "/api/v3/order" &&
            param(req, "type") === "LIMIT"
          )
            placements.push(req);
          return req;
        },
      },
      request: async (req, state) => {
        if (!isReset(req)) return req;
        seeing = true;
        return resetThen(req, state, async (admin, headers) => {
          const time = await sandboxTime(admin, headers);
          for (const placed of placements.splice(0)) {
            const again = resign(placed, apiSecret, (params) => params.set("timestamp", String(time)));
            await fetch(`${api}${again.path}?${again.query.toString()}`, {
              method: "POST",
              headers: { "x-mbx-apikey": placed.headers["x-mbx-apikey"] ?? "" },
            });
          }
        });
      },
    },
    // Last: the snapshot taken before the reset is gone, so the sandbox stays reset.
    {
      name: "reset-drops-the-snapshots",
      description: "a reset deletes the snapshots kept",
      caughtBy: ["persistence"],
      want: /listed before it are not listed after it: a reset keeps the snapshots/,
      request: async (req, state) => {
        if (!isReset(req)) return req;
        return resetThen(req, state, async (admin, headers) => {
          const status = (await jsonOf(await fetch(`${admin}/admin/v1/status`, { headers }))) as {
            snapshots: Array<{ id: string }>;
          };
          for (const { id } of status.snapshots)
            await fetch(`${admin}/admin/v1/snapshots/${id}`, { method: "DELETE", headers });
        });
      },
    },
  ];
}
