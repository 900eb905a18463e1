// A batch of any size commits: one turn of the event loop that changes 150,000 orders (as 200
// connections pipelining 500 orders each do) is one batch, written and loaded again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-big-batch-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const ORDERS = 150_000;
const CONFIG = {
  symbols: ["BTCUSDT"],
  accounts: [{ id: "bot", apiKey: "bot-key", apiSecret: "bot-secret" }],
};

describe("a huge batch", () => {
  it(`commits ${ORDERS} orders changed in one turn of the event loop`, async () => {
    const statePath = join(folder, "big.db");
    const server = await startServer({ config: CONFIG, empty: true, statePath });
    let last = 0;
    try {
      for (let i = 0; i < ORDERS; i += 1) {
        const order = server.exchange.newOrder("bot", {
          symbol: "BTCUSDT",
          side: "BUY",
          type: "LIMIT",
          timeInForce: "IOC",
          price: "50000",
          quantity: "0.001",
        });
        last = order.orderId;
      }
      await server.saveState();
    } finally {
      await server.close();
    }
    const again = await startServer({ config: CONFIG, empty: true, statePath });
    try {
      expect(again.exchange.queryOrder("bot", { symbol: "BTCUSDT", orderId: last }).status).toBe("EXPIRED");
      expect(again.exchange.allOrders("bot", { symbol: "BTCUSDT", limit: 1000 })).toHaveLength(1000);
    } finally {
      await again.close();
    }
  });
});
