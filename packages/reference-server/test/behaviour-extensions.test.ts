// The reference server honours the spec's behaviour extensions: its limits are the x-limit values,
// its largest windows the x-time-window ones, and over HTTP an unknown symbol or order, a window too
// wide and a limit above the maximum get exactly the answer the extensions state.
import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel } from "@marketapi/spec/model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGG_TRADES_LIMIT, DEPTH_LIMIT, TRADES_LIMIT } from "../src/engine/market-data.js";
import { ALL_ORDERS_LIMIT } from "../src/engine/order-ops.js";
import { DAY_MS } from "../src/engine/paging.js";
import { type RunningServer, startServer } from "../src/index.js";
import { send, sendSigned } from "./support/http.js";

const model = buildSpecModel(loadOpenApi());
const byId = (id: string) => model.operations.find((o) => o.operationId === id)!;

const SERVER_LIMITS: Record<string, { default: number; max: number }> = {
  order_book: DEPTH_LIMIT,
  recent_trades_list: TRADES_LIMIT,
  historical_trades: TRADES_LIMIT,
  aggTrades: AGG_TRADES_LIMIT,
  all_orders: ALL_ORDERS_LIMIT,
};

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 3 });
});
afterAll(() => server.close());

describe("the reference server honours the behaviour extensions", () => {
  it.each(Object.entries(SERVER_LIMITS))("%s: its default and maximum are x-limit's", (id, limits) => {
    const rule = byId(id).behaviour.limit!;
    expect({ default: limits.default, max: limits.max }).toEqual({
      default: rule.default,
      max: rule.maximum,
    });
  });

  it("every operation with x-limit has its limits here", () => {
    const withLimit = model.operations.filter((o) => o.behaviour.limit).map((o) => o.operationId);
    expect(withLimit.sort()).toEqual(Object.keys(SERVER_LIMITS).sort());
  });

  it("all_orders refuses a window one ms wider than x-time-window's maxSpanMs, with its code", async () => {
    const window = byId("all_orders").behaviour.timeWindow!;
    expect(window.maxSpanMs).toBe(DAY_MS);
    const start = Date.now() - 2 * DAY_MS;
    const wide = await sendSigned(server.url, {
      ...server.demo,
      method: "GET",
      path: "/api/v3/allOrders",
      query: `symbol=BTCUSDT&startTime=${start}&endTime=${start + window.maxSpanMs! + 1}`,
    });
    expect(wide.status).toBe(400);
    expect(wide.json).toMatchObject({ code: window.tooWideCode });
  });

  it("answers an unknown symbol with x-unknown-reference's code on every market-data operation", async () => {
    for (const operation of model.operations.filter(
      (o) => !o.signed && o.behaviour.unknownReferences?.symbol,
    )) {
      const rule = operation.behaviour.unknownReferences!.symbol!;
      const res = await send(server.url, { path: operation.path, query: "symbol=ZZQXUNKNOWN" });
      expect(res.status, operation.operationId).toBe(rule.status);
      expect(res.json, operation.operationId).toMatchObject({ code: rule.code });
    }
  });

  it("truncates or refuses a limit above the maximum, as x-limit's aboveMaximum says", async () => {
    for (const operation of model.operations.filter((o) => !o.signed && o.behaviour.limit)) {
      const rule = operation.behaviour.limit!;
      const res = await send(server.url, {
        path: operation.path,
        query: `symbol=BTCUSDT&limit=${rule.maximum + 1}`,
      });
      expect(res.status, operation.operationId).toBe(rule.aboveMaximum === "truncate" ? 200 : 400);
    }
  });
});
