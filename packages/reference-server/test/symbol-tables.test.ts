// Each symbol's orders, trades and aggregate trades are a B-tree of their own, so a symbol's new
// rows are appended at the end of its tree whatever the other symbols hold. In one table shared by
// all symbols, a symbol's rows went in mid-tree (before the next symbol's rows), where SQLite
// rebalances a full page with its neighbours: more pages written per commit than for the last
// symbol. Measured as the bytes each commit appends to the write-ahead log.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-symbol-tables-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const CONFIG = {
  symbols: ["BTCUSDT", "ETHUSDT"],
  accounts: [{ id: "bot", apiKey: "bot-key", apiSecret: "bot-secret" }],
};
/** Commits per measurement; all of them stay below the writer thread's first checkpoint (1,000). */
const COMMITS = 250;

describe("the tables of each symbol", () => {
  it("take as many WAL bytes per order for the first symbol as for the last", async () => {
    const statePath = join(folder, "symbols.db");
    const server = await startServer({ config: CONFIG, empty: true, statePath });
    const walSize = () => statSync(`${statePath}-wal`).size;
    const expireOrders = async (symbol: string, price: string) => {
      const before = walSize();
      for (let i = 0; i < COMMITS; i += 1) {
        server.exchange.newOrder("bot", {
          symbol,
          side: "BUY",
          type: "LIMIT",
          timeInForce: "IOC",
          price,
          quantity: "0.1",
        });
        await server.saveState();
      }
      return walSize() - before;
    };
    try {
      // Both symbols hold rows first, so that the first symbol's rows are followed by the last's.
      await expireOrders("ETHUSDT", "1000");
      await expireOrders("BTCUSDT", "20000");
      const first = await expireOrders("BTCUSDT", "20000");
      const last = await expireOrders("ETHUSDT", "1000");
      expect(first / last).toBeLessThan(1.1);
      expect(first / last).toBeGreaterThan(0.9);
    } finally {
      await server.close();
    }
  });
});
