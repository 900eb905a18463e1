// A restart over a long history: a million trades (and their orders) in the state database.
// Loading reads the live state only, so the rows read and the memory used do not grow with the
// history; the history is still answered from the database.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";
import { StateDatabase } from "../src/store/state-database.js";
import { baseUrlOf, runCli } from "./support/cli.js";
import { send, sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-history-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const MILLION = 1_000_000;
const NOW = Date.now();
const demo = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };

/**
 * Writes `count` trades between two accounts' (closed) orders straight into a state database,
 * spread over the last 30 days with the newest tenth in the last day, plus the minute buckets
 * the server keeps for the last day.
 */
async function databaseWithTrades(path: string, count: number): Promise<void> {
  const server = await startServer({ statePath: path, empty: true });
  await server.close();
  const { default: Driver } = await import("better-sqlite3");
  const db = new Driver(path);
  const trade = db.prepare(`INSERT INTO trades VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const order = db.prepare(
    `INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const minute = db.prepare(
    `INSERT OR REPLACE INTO trade_minutes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const recent = Math.floor(count / 10);
  const timeOf = (i: number) =>
    i <= count - recent
      ? NOW - 30 * 86_400_000 + Math.floor((i * 29 * 86_400_000) / (count - recent))
      : NOW - 86_000_000 + Math.floor(((i - (count - recent)) * 85_000_000) / recent);
  const buckets = new Map<number, { first: number; last: number; n: number }>();
  db.transaction(() => {
    for (let i = 1; i <= count; i += 1) {
      const time = timeOf(i);
      trade.run(
        "BTCUSDT",
        i,
        "60000",
        "0.001",
        "60",
        time,
        1,
        "demo",
        2 * i,
        "0.000001",
        "BTC",
        "demo",
        2 * i - 1,
        "0.06",
        "USDT",
      );
      order.run(
        "BTCUSDT",
        i,
        "demo",
        `h${i}`,
        "BUY",
        "LIMIT",
        "GTC",
        "60000",
        "0.001",
        "0",
        "0.001",
        "60",
        "0",
        "0",
        null,
        "FILLED",
        1,
        time,
        time,
        time,
        null,
        null,
        "0",
        0,
      );
      if (time >= NOW - 86_400_000 - 120_000) {
        const m = time - (time % 60_000);
        const b = buckets.get(m) ?? { first: i, last: i, n: 0 };
        b.last = i;
        b.n += 1;
        buckets.set(m, b);
      }
    }
    for (const [m, b] of buckets) {
      minute.run(
        "BTCUSDT",
        m,
        b.first,
        b.last,
        b.n,
        "60000",
        "60000",
        "60000",
        "60000",
        "0.001",
        (b.n * 0.001).toFixed(3),
        String(b.n * 60),
      );
    }
    db.prepare("UPDATE symbols SET next_trade_id = ?, next_order_id = ? WHERE symbol = 'BTCUSDT'").run(
      count + 1,
      count + 1,
    );
  })();
  db.close();
}

const small = join(folder, "small.db");
const large = join(folder, "large.db");

beforeAll(async () => {
  await databaseWithTrades(small, 1000);
  await databaseWithTrades(large, MILLION);
}, 600_000);

async function rowsReadToLoad(path: string): Promise<number> {
  const db = await StateDatabase.open(path);
  try {
    db.load(() => NOW);
    return db.loadStats.rows;
  } finally {
    await db.close();
  }
}

describe("a million historical trades", () => {
  it("loading reads the live state only: as many rows for a million trades as for a thousand, bar the day's minute buckets", async () => {
    const forSmall = await rowsReadToLoad(small);
    const forLarge = await rowsReadToLoad(large);
    // The large history has more minute buckets in its last day (at most 1,442 per symbol).
    expect(forLarge - forSmall).toBeLessThanOrEqual(1442);
    expect(forLarge).toBeLessThan(2000);
  });

  it("a restarted server answers history from the database with bounded memory", async () => {
    const run = runCli(["--port", "0", "--state", large]);
    const url = await baseUrlOf(run, 120_000);
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
      expect((ticker.json as { count: number }).count).toBeGreaterThan(MILLION / 10 - 2000);
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
