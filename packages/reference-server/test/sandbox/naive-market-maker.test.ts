// The naive market maker a bot developer tries first, against the server with the market on, as a
// separate program would run it: through @marketapi/client over HTTP (clock synced with the
// server's time, every answer checked by the validators), the admin surface over HTTP moving the
// paused sandbox clock 2 s per tick. 144 ticks, about five minutes of sandbox time in seconds of
// real time: the price moves and the quotes get filled by the simulated participants.
import { createSpotClient } from "@marketapi/client";
import { validateResponse } from "@marketapi/validators";
import { validateResponse as validateAdmin } from "@marketapi/validators/sandbox";
import { describe, expect, it } from "vitest";
import { startServer } from "../../src/index.js";

const TICKS = 144;
const SYMBOL = "BTCUSDT";

describe("a naive market maker (read the book, cancel, quote mid ± 0.1 %)", () => {
  it("sees the price move and gets fills over five minutes of sandbox time", async () => {
    const server = await startServer({ port: 0, seed: 3, market: true, clock: { rate: 0 }, admin: true });
    const admin = server.admin;
    if (!admin) throw new Error("no admin surface");
    let offset = 0;
    const api = createSpotClient({
      baseUrl: server.url,
      ...server.demo,
      throwOnError: true,
      now: () => Date.now() + offset,
      validateResponse,
    });
    const advance = async () => {
      const answer = await fetch(`${admin.url}/clock/advance`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${admin.token}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: "ms=2000",
      });
      const body = await answer.json();
      expect(answer.status, JSON.stringify(body)).toBe(200);
      expect(validateAdmin("sandbox_advance_clock", 200, body).valid).toBe(true);
    };
    const mids: number[] = [];
    try {
      for (let tick = 0; tick < TICKS; tick += 1) {
        // Sync the clock as bots do: the sandbox time is not the machine's.
        const { data: time } = await api.server_time();
        offset = time.serverTime - Date.now();
        const { data: book } = await api.order_book({ symbol: SYMBOL, limit: 5 });
        const [bid, ask] = [Number(book.bids[0]?.[0]), Number(book.asks[0]?.[0])];
        const mid = (bid + ask) / 2;
        mids.push(mid);
        const { data: open } = await api.open_orders({ symbol: SYMBOL });
        if (open.length > 0) await api.cancel_all_orders({ symbol: SYMBOL });
        for (const [side, factor] of [
          ["BUY", 0.999],
          ["SELL", 1.001],
        ] as const) {
          await api.new_order({
            symbol: SYMBOL,
            side,
            type: "LIMIT",
            timeInForce: "GTC",
            quantity: 0.001,
            price: Number((mid * factor).toFixed(2)),
          });
        }
        await advance();
      }
      const { data: orders } = await api.all_orders({ symbol: SYMBOL, limit: 1000 });
      const filled = orders.filter((order) => Number(order.executedQty) > 0);
      const distinctMids = new Set(mids).size;
      const range = (Math.max(...mids) - Math.min(...mids)) / (mids[0] ?? 1);
      const summary = JSON.stringify({ distinctMids, range, filled: filled.length, orders: orders.length });
      expect(distinctMids, summary).toBeGreaterThan(TICKS / 2);
      expect(range, summary).toBeGreaterThan(0.0003);
      expect(filled.length, summary).toBeGreaterThanOrEqual(1);
      // Every fill is someone else's: the bot's two quotes never cross each other.
      expect(orders).toHaveLength(2 * TICKS);
    } finally {
      await server.close();
    }
  });
});
