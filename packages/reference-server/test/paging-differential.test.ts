// The state database pages allOrders, aggTrades and myTrades by id ranges found through a (symbol,
// time) index; the in-memory history by binary searches. The same orders at the same times must
// page the same through both, for every combination of fromId / orderId, startTime and endTime.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";
import { sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-paging-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const demo = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };
const T0 = 1_700_000_000_000;
/** Steps of the clock between orders: several orders in one millisecond, and gaps. */
const STEPS = [0, 0, 1, 5, 0, 1000, 3, 0, 0, 250, 1, 60_000, 0, 2, 7, 0, 400, 1, 1, 0];

async function placeAll(options: { statePath?: string }) {
  let clock = T0;
  const server = await startServer({ seed: 3, now: () => clock, ...options });
  for (const [i, step] of STEPS.entries()) {
    clock += step;
    const side = i % 3 === 0 ? "SELL" : "BUY";
    const type = i % 4 === 0 ? "type=LIMIT&timeInForce=GTC&price=50000" : "type=MARKET";
    const placed = await sendSigned(server.url, {
      ...demo,
      method: "POST",
      path: "/api/v3/order",
      query: `symbol=BTCUSDT&side=${side}&${type}&quantity=0.01`,
      timestamp: clock,
    });
    expect(placed.status).toBe(200);
  }
  return server;
}

describe("paging through the state database and the in-memory history", () => {
  it("gives the same pages for every combination of bounds", async () => {
    const memory = await placeAll({});
    const durable = await placeAll({ statePath: join(folder, "paging.db") });
    try {
      const orders = memory.exchange.allOrders("demo", { symbol: "BTCUSDT", limit: 1000 });
      expect(orders.length).toBeGreaterThan(STEPS.length - 1);
      const ids = [undefined, orders[0]?.orderId, orders[5]?.orderId, (orders.at(-1)?.orderId ?? 0) + 1];
      const times = [undefined, T0 - 1, T0, T0 + 6, T0 + 1010, T0 + 61_300, T0 + 10 ** 7];
      let compared = 0;
      for (const fromId of ids)
        for (const startTime of times)
          for (const endTime of times)
            for (const limit of [1, 3, 500]) {
              if (startTime !== undefined && endTime !== undefined && endTime < startTime) continue;
              const q = { symbol: "BTCUSDT", orderId: fromId, startTime, endTime, limit };
              const agg = { fromId, startTime, endTime, limit };
              expect(durable.exchange.allOrders("demo", q), JSON.stringify(q)).toEqual(
                memory.exchange.allOrders("demo", q),
              );
              expect(durable.exchange.aggTrades("BTCUSDT", agg), JSON.stringify(agg)).toEqual(
                memory.exchange.aggTrades("BTCUSDT", agg),
              );
              expect(durable.exchange.myTrades("demo", { ...q, fromId }), JSON.stringify(q)).toEqual(
                memory.exchange.myTrades("demo", { ...q, fromId }),
              );
              compared += 1;
            }
      expect(compared).toBeGreaterThan(300);
    } finally {
      await memory.close();
      await durable.close();
    }
  });
});
