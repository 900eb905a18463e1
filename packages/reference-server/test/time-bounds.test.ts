// Time bounds on the state database's history become id bounds by a binary search over the primary
// key (ids and times grow together): the rows a time-bounded read visits grow with the logarithm of
// the history. Counted in rows read (StateDatabase.loadStats), for a thousand and 100,000 orders
// and trades.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StateDatabase } from "../src/store/state-database.js";
import { databaseWithTrades } from "./support/history-db.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-time-bounds-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const NOW = 1_800_000_000_000;
const DAY = 86_400_000;
const SIZES = [1000, 100_000] as const;
const path = (size: number) => join(folder, `history-${size}.db`);

beforeAll(async () => {
  for (const size of SIZES) await databaseWithTrades(path(size), size, "30-days", NOW);
});

interface Read {
  name: string;
  run(db: StateDatabase): unknown[];
}

/** Each read returns a few rows from the middle of a 30-day history. */
const READS: Read[] = [
  {
    name: "all_orders from a start time",
    run: (db) => db.orders("demo", "BTCUSDT", { startTime: NOW - 15 * DAY }, 5),
  },
  {
    name: "all_orders up to an end time (newest first)",
    run: (db) => db.orders("demo", "BTCUSDT", { endTime: NOW - 15 * DAY }, 5),
  },
  {
    name: "all_orders between two times",
    run: (db) => db.orders("demo", "BTCUSDT", { startTime: NOW - 16 * DAY, endTime: NOW - 15 * DAY }, 5),
  },
  {
    name: "trades between two times",
    run: (db) => db.tradesBetween("BTCUSDT", NOW - 15 * DAY, NOW - 15 * DAY + 2 * 3_600_000),
  },
  {
    name: "the last trade before a time",
    run: (db) => [db.lastTradeBefore("BTCUSDT", NOW - 15 * DAY)],
  },
];

/** Rows a read visits beyond those it returns, and what it returns. */
async function rowsVisited(size: number, read: Read): Promise<{ extra: number; returned: number }> {
  const db = await StateDatabase.open(path(size));
  try {
    db.load(() => NOW);
    const before = db.loadStats.rows;
    const returned = read.run(db).length;
    return { extra: db.loadStats.rows - before - returned, returned };
  } finally {
    await db.close();
  }
}

describe.each(READS)("$name", (read) => {
  it("visits a logarithmic number of rows beyond those it returns", async () => {
    const [small, large] = [await rowsVisited(SIZES[0], read), await rowsVisited(SIZES[1], read)];
    expect(small.returned).toBeGreaterThan(0);
    expect(large.returned).toBeGreaterThan(0);
    // Two probes per halving of the id range per bound, and the first and last rows.
    for (const [size, { extra }] of [
      [SIZES[0], small],
      [SIZES[1], large],
    ] as const)
      expect(extra).toBeLessThanOrEqual(2 * (Math.ceil(Math.log2(size)) + 2));
    // 100 times the history: about 2 × log2(100) ≈ 14 more probes, never 100 times the rows.
    expect(large.extra - small.extra).toBeLessThanOrEqual(2 * (Math.ceil(Math.log2(100)) + 1));
  });
});
