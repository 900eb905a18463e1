// The contract tester against the reference server with its simulated market on (real-time clock):
// participants quote, cancel and take on every symbol throughout the run, and the tester passes
// (it judges only reads that provably bracket no change, and notes the rest).
import { startServer } from "@marketapi/reference-server";
import { describe, expect, it } from "vitest";
import { reportText } from "../src/report/text.js";
import { runContract } from "./support/run.js";

describe("the reference server with its market on", () => {
  it("passes while the simulated participants trade on every symbol", async () => {
    // A tick every 250 ms, so that any run (hundreds of requests) spans several of them.
    const server = await startServer({ port: 0, seed: 1, market: { tickMs: 250 } });
    const activity = () => server.sandbox?.status().market?.activity;
    try {
      const before = { ticks: 0, orders: 0, ...activity() };
      const result = await runContract({
        baseUrl: server.url,
        apiKey: server.demo.apiKey,
        apiSecret: server.demo.apiSecret,
        allowTrading: true,
        seed: 1,
      });
      expect(result.exitCode, reportText(result, { color: false })).toBe(0);
      // The market really moved during the run: counted by the run's own span, never by a fixed time.
      const after = { ticks: 0, orders: 0, ...activity() };
      const seen = JSON.stringify({ before, after });
      expect(after.ticks - before.ticks, seen).toBeGreaterThan(3);
      expect(after.orders - before.orders, seen).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
