// A restart over a long history: a million trades (and their orders) in the state database, spread
// over 30 days or all in the last five minutes. Loading reads the live state only, so the rows read
// and the memory used do not grow with the history, whatever its shape; the history is still
// answered from the database.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StateDatabase } from "../src/store/state-database.js";
import { baseUrlOf, runCli } from "./support/cli.js";
import { databaseWithTrades, type HistoryShape } from "./support/history-db.js";
import { send, sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-history-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const MILLION = 1_000_000;
const NOW = Date.now();
const demo = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };

const SHAPES: readonly HistoryShape[] = ["30-days", "last-5-minutes"];
const small = (shape: HistoryShape) => join(folder, `small-${shape}.db`);
const large = (shape: HistoryShape) => join(folder, `large-${shape}.db`);

beforeAll(async () => {
  for (const shape of SHAPES) {
    await databaseWithTrades(small(shape), 1000, shape, NOW);
    await databaseWithTrades(large(shape), MILLION, shape, NOW);
  }
}, 900_000);

async function rowsReadToLoad(path: string): Promise<number> {
  const db = await StateDatabase.open(path);
  try {
    db.load(() => NOW);
    return db.loadStats.rows;
  } finally {
    await db.close();
  }
}

describe.each(SHAPES)("a million historical trades (%s)", (shape) => {
  it("loading reads the live state only: as many rows for a million trades as for a thousand, bar the day's minute buckets", async () => {
    const forSmall = await rowsReadToLoad(small(shape));
    const forLarge = await rowsReadToLoad(large(shape));
    // The large history has more minute buckets in its last day (at most 1,442 per symbol).
    expect(forLarge - forSmall).toBeLessThanOrEqual(1442);
    expect(forLarge).toBeLessThan(2000);
  });

  it("a restarted server answers history from the database with bounded memory", async () => {
    const run = runCli(["--port", "0", "--state", large(shape)]);
    const url = await baseUrlOf(run);
    try {
      const pid = run.child.pid as number;
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
      // A million trades held in memory took well over 1 GB; the live state needs a fraction.
      expect(peakKiB).toBeLessThan(350 * 1024);

      const headers = { "X-MBX-APIKEY": demo.apiKey };
      const from = await send(url, {
        path: "/api/v3/historicalTrades",
        query: "symbol=BTCUSDT&fromId=500000&limit=3",
        headers,
      });
      expect(from.json, from.text).toBeInstanceOf(Array);
      expect((from.json as { id: number }[]).map((t) => t.id)).toEqual([500000, 500001, 500002]);
      const recent = await send(url, { path: "/api/v3/trades", query: "symbol=BTCUSDT&limit=2", headers });
      expect((recent.json as { id: number }[]).map((t) => t.id)).toEqual([MILLION - 1, MILLION]);
      const orders = await sendSigned(url, {
        ...demo,
        method: "GET",
        path: "/api/v3/allOrders",
        query: "symbol=BTCUSDT&orderId=750000&limit=2",
      });
      expect((orders.json as { orderId: number }[]).map((o) => o.orderId)).toEqual([750000, 750001]);
      const ticker = await send(url, { path: "/api/v3/ticker/24hr", query: "symbol=BTCUSDT" });
      expect((ticker.json as { count: number; lastId: number }).lastId).toBe(MILLION);
      const inLastDay = shape === "30-days" ? MILLION / 10 - 2000 : MILLION - 1;
      expect((ticker.json as { count: number }).count).toBeGreaterThan(inLastDay);
      // The average price counts the trades of the last five minutes (every trade was at 60000).
      const avg = await send(url, { path: "/api/v3/avgPrice", query: "symbol=BTCUSDT" });
      expect(avg.json).toMatchObject({ price: "60000.00000000" });
      const placed = await sendSigned(url, {
        ...demo,
        method: "POST",
        path: "/api/v3/order",
        query: "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=59000",
      });
      expect((placed.json as { orderId: number }).orderId).toBe(MILLION + 1);
    } finally {
      run.child.kill("SIGTERM");
      await run.exited;
    }
  });
});
