// The write-ahead log stays bounded under a load that never pauses. The main thread commits while
// the writer thread's checkpoint runs, so every checkpoint ends with frames it did not see; SQLite
// starts the WAL over only at a write that finds every frame copied, so unless the checkpoint makes
// that happen, the WAL grows for as long as the load lasts (and start-up reads all of it).
import { mkdtempSync, rmSync, statSync } from "node:fs";
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
/** Commits before the first look at the WAL: past a few checkpoints and the WAL's restart size. */
const FIRST_LOOK = 8000;
/** Commits before the second look. */
const SECOND_LOOK = 20_000;

describe("the write-ahead log under a load that never pauses", () => {
  it(`is no larger after ${SECOND_LOOK} commits than after ${FIRST_LOOK} (plus half)`, async () => {
    const statePath = join(folder, "wal.db");
    const server = await startServer({ config: CONFIG, empty: true, statePath });
    let walAtFirstLook = 0;
    try {
      for (let commit = 1; commit <= SECOND_LOOK; commit += 1) {
        server.exchange.newOrder("bot", {
          symbol: "BTCUSDT",
          side: "BUY",
          type: "LIMIT",
          timeInForce: "IOC",
          price: "50000",
          quantity: "0.001",
        });
        await server.saveState();
        if (commit === FIRST_LOOK) walAtFirstLook = statSync(`${statePath}-wal`).size;
      }
      const walAtSecondLook = statSync(`${statePath}-wal`).size;
      expect(walAtFirstLook).toBeGreaterThan(0);
      expect(walAtSecondLook).toBeLessThanOrEqual(walAtFirstLook * 1.5);
    } finally {
      await server.close();
    }
  }, 120_000);
});
