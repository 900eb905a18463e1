// A restart over a long history: 100,000 trades (and their orders) in the state database against
// 1,000, spread over 30 days or all in the last five minutes. Loading reads the live state only, so
// the rows read and the memory used do not grow with the history, whatever its shape: the growth is
// shown by comparing the two sizes (rows counted, peak memory compared), not by an absolute figure
// at a size that takes minutes to build. The history is still answered from the database.
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

/** The long history; held in memory it would take over 100 MiB (over 1 KiB a trade). */
const LARGE = 100_000;
const SMALL = 1000;
const NOW = Date.now();
const demo = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };

const SHAPES: readonly HistoryShape[] = ["30-days", "last-5-minutes"];
const small = (shape: HistoryShape) => join(folder, `small-${shape}.db`);
const large = (shape: HistoryShape) => join(folder, `large-${shape}.db`);

beforeAll(async () => {
  for (const shape of SHAPES) {
    await databaseWithTrades(small(shape), SMALL, shape, NOW);
    await databaseWithTrades(large(shape), LARGE, shape, NOW);
  }
});

async function rowsReadToLoad(path: string): Promise<number> {
  const db = await StateDatabase.open(path);
  try {
    db.load(() => NOW);
    return db.loadStats.rows;
  } finally {
    await db.close();
  }
}

/** The peak memory (VmHWM) of a server started on `path`, once it serves. */
async function peakKiBOfServerOn(path: string): Promise<number> {
  const run = runCli(["--port", "0", "--state", path]);
  try {
    await baseUrlOf(run);
    const status = readFileSync(`/proc/${run.child.pid}/status`, "utf8");
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
  } finally {
    run.child.kill("SIGTERM");
    await run.exited;
  }
}

describe.each(SHAPES)("a long history of trades (%s)", (shape) => {
  it("loading reads the live state only: as many rows for 100,000 trades as for 1,000, bar the day's minute buckets", async () => {
    const forSmall = await rowsReadToLoad(small(shape));
    const forLarge = await rowsReadToLoad(large(shape));
    // The large history has more minute buckets in its last day (at most 1,442 per symbol).
    expect(forLarge - forSmall).toBeLessThanOrEqual(1442);
    expect(forLarge).toBeLessThan(2000);
  });

  it("a restarted server's memory does not grow with the history: 100,000 trades cost what 1,000 do, give or take a fraction of holding them", async () => {
    const forSmall = await peakKiBOfServerOn(small(shape));
    const forLarge = await peakKiBOfServerOn(large(shape));
    // Holding the 99,000 more trades would take over 100 MiB; the live state does not change.
    expect(forLarge - forSmall).toBeLessThan(25 * 1024);
  });

  it("a restarted server answers history from the database", async () => {
    const run = runCli(["--port", "0", "--state", large(shape)]);
    const url = await baseUrlOf(run);
    try {
      const headers = { "X-MBX-APIKEY": demo.apiKey };
      const from = await send(url, {
        path: "/api/v3/historicalTrades",
        query: `symbol=BTCUSDT&fromId=${LARGE / 2}&limit=3`,
        headers,
      });
      expect(from.json, from.text).toBeInstanceOf(Array);
      expect((from.json as { id: number }[]).map((t) => t.id)).toEqual([
        LARGE / 2,
        LARGE / 2 + 1,
        LARGE / 2 + 2,
      ]);
      const recent = await send(url, { path: "/api/v3/trades", query: "symbol=BTCUSDT&limit=2", headers });
      expect((recent.json as { id: number }[]).map((t) => t.id)).toEqual([LARGE - 1, LARGE]);
      const orders = await sendSigned(url, {
        ...demo,
        method: "GET",
        path: "/api/v3/allOrders",
        query: `symbol=BTCUSDT&orderId=${(LARGE * 3) / 4}&limit=2`,
      });
      expect((orders.json as { orderId: number }[]).map((o) => o.orderId)).toEqual([
        (LARGE * 3) / 4,
        (LARGE * 3) / 4 + 1,
      ]);
      const ticker = await send(url, { path: "/api/v3/ticker/24hr", query: "symbol=BTCUSDT" });
      expect((ticker.json as { count: number; lastId: number }).lastId).toBe(LARGE);
      const inLastDay = shape === "30-days" ? LARGE / 10 - 2000 : LARGE - 1;
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
      expect((placed.json as { orderId: number }).orderId).toBe(LARGE + 1);
    } finally {
      run.child.kill("SIGTERM");
      await run.exited;
    }
  });
});
