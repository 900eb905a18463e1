// The write-ahead log stays bounded under a load that never pauses. The main thread commits while
// the writer thread's checkpoint runs, so every checkpoint ends with frames it did not see; SQLite
// starts the WAL over only at a write that finds every frame copied, so unless the checkpoint makes
// that happen, the WAL grows for as long as the load lasts (and start-up reads all of it).
//
// The test counts the times the WAL starts over (its header's checkpoint sequence number, which
// SQLite increments at each start), not the file's size: the file keeps its largest extent, and
// that depends on how many commits land while a checkpoint waits for the disk, which a busy
// machine stretches. Without the RESTART checkpoint the count stays 0 for the whole load.
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-wal-bounded-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const CONFIG = {
  symbols: ["BTCUSDT"],
  accounts: [{ id: "bot", apiKey: "bot-key", apiSecret: "bot-secret" }],
};
/** Starts over the WAL must make: one comes every 5,000 to 7,000 commits on this machine. */
const STARTS_OVER = 3;
/** Commits the load may take to get there (without starting over, the WAL would hold over 100 MB). */
const MOST_COMMITS = 60_000;
/** Commits between two looks at the WAL's header. */
const LOOK_EVERY = 500;

/** The checkpoint sequence number in a WAL file's header (big-endian, bytes 12 to 15). */
function walStartsOver(walPath: string): number {
  const header = Buffer.alloc(32);
  const fd = openSync(walPath, "r");
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(12);
}

describe("the write-ahead log under a load that never pauses", () => {
  it(`starts over ${STARTS_OVER} times within ${MOST_COMMITS} commits`, async () => {
    const statePath = join(folder, "wal.db");
    const server = await startServer({ config: CONFIG, empty: true, statePath });
    let startsOver = 0;
    let commits = 0;
    try {
      while (startsOver < STARTS_OVER && commits < MOST_COMMITS) {
        server.exchange.newOrder("bot", {
          symbol: "BTCUSDT",
          side: "BUY",
          type: "LIMIT",
          timeInForce: "IOC",
          price: "50000",
          quantity: "0.001",
        });
        await server.saveState();
        commits += 1;
        if (commits % LOOK_EVERY === 0) startsOver = walStartsOver(`${statePath}-wal`);
      }
      expect(startsOver, `times started over in ${commits} commits`).toBeGreaterThanOrEqual(STARTS_OVER);
    } finally {
      await server.close();
    }
  });
});
