// No false alarm on a market that moves while it is read: a trader of another account keeps placing,
// filling and cancelling orders on the symbol the tester reads, in memory and with a state
// database. The relation checks judge only reads that provably bracket no change; the rest is noted.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "@marketapi/reference-server";
import { afterAll, describe, expect, it } from "vitest";
import { checksAt } from "../src/checks/index.js";
import { reportText } from "../src/report/text.js";
import { startBackgroundTrader } from "./support/background-trader.js";
import { runContract } from "./support/run.js";

const scratch = mkdtempSync(join(tmpdir(), "contract-busy-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const TRADER = { id: "busy-trader", apiKey: "busyTraderKey", apiSecret: "busy-trader-secret" };

/**
 * The cells run: seeds 1–4 by default (3 and 4 once showed an order filled by the other account
 * between two reads); MARKETAPI_BUSY_SEEDS=FROM-TO runs a soak over more seeds, odd ones in memory
 * and even ones with a state database (seeds 11, 27 and 30 found the races of a shared level).
 */
function cells(): (readonly [number, "memory" | "state"])[] {
  const [from, to] = (process.env.MARKETAPI_BUSY_SEEDS ?? "1-4").split("-").map(Number);
  if (!Number.isInteger(from) || !Number.isInteger(to) || from! < 1 || to! < from!)
    throw new Error(`MARKETAPI_BUSY_SEEDS takes FROM-TO (1-40), got ${process.env.MARKETAPI_BUSY_SEEDS}`);
  return Array.from({ length: to! - from! + 1 }, (_, i) => {
    const seed = from! + i;
    return [seed, seed % 2 === 1 ? "memory" : "state"] as const;
  });
}

describe("a market that moves while it is read", () => {
  it.each(cells())("seed %i, %s: exit 0 while another account trades on", async (seed, kind) => {
    const server = await startServer({
      port: 0,
      seed,
      config: { accounts: [TRADER] },
      ...(kind === "state" ? { statePath: join(scratch, `state-${seed}.db`) } : {}),
    });
    const trader = await startBackgroundTrader(server.url, TRADER, "BTCUSDT", seed);
    let counts: Awaited<ReturnType<typeof trader.stop>> | undefined;
    try {
      const result = await runContract({
        baseUrl: server.url,
        apiKey: server.demo.apiKey,
        apiSecret: server.demo.apiSecret,
        allowTrading: true,
        seed,
      });
      counts = await trader.stop();
      expect(result.exitCode, reportText(result, { color: false })).toBe(0);
      // The market really moved during the run.
      expect(counts.trades, JSON.stringify(counts)).toBeGreaterThan(20);
      expect(counts.bookChanges, JSON.stringify(counts)).toBeGreaterThan(20);
      // Every relation check ran: each judged something, or said why it could not.
      for (const { name } of checksAt("relation")) {
        const cells = result.cells.filter((c) => c.check === name && c.status !== "skipped");
        const said = result.cells.some(
          (c) => c.check === name && /not judged|moved|changed/.test(c.reason ?? ""),
        );
        expect(cells.length > 0 || said, name).toBe(true);
      }
    } finally {
      counts ??= await trader.stop();
      await server.close();
    }
  });
});
