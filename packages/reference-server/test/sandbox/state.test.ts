// The sandbox with a state database: a simulated stretch of market survives a restart exactly (the
// clock resumes where it stood, the market where it stopped: the same trades as without the
// restart), and a kill -9 while the market runs at 20 times real time loses no order the server
// acknowledged, and the market and its clock go on from what was committed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stateFaults } from "../../src/engine/invariants.js";
import { type RunningServer, type StartServerOptions, startServer } from "../../src/index.js";
import { baseUrlOf, runCli } from "../support/cli.js";
import { send, sendSigned } from "../support/http.js";

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
const folder = mkdtempSync(join(tmpdir(), "sandbox-state-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const OPTIONS: StartServerOptions = { port: 0, seed: 11, now: () => T0, clock: { rate: 0 }, market: true };

function sandboxOf(server: RunningServer) {
  if (!server.sandbox) throw new Error("no sandbox");
  return server.sandbox;
}

function record(server: RunningServer) {
  const ex = server.exchange;
  return {
    time: ex.time(),
    trades: ex.symbols().map((symbol) => ex.historicalTrades(symbol, { fromId: 1, limit: 1000 })),
    books: ex.symbols().map((symbol) => ex.depth(symbol, 50)),
    fair: sandboxOf(server).status().market?.fairPrices,
  };
}

describe("a simulated stretch across a restart", () => {
  it("goes on exactly where it stopped: the same market as a run without the restart", async () => {
    const path = join(folder, "restart.db");
    const first = await startServer({ ...OPTIONS, statePath: path });
    await sandboxOf(first).advance({ ms: 4 * MINUTE });
    const before = sandboxOf(first).status();
    await first.close();

    const second = await startServer({ ...OPTIONS, statePath: path });
    let restarted: ReturnType<typeof record>;
    try {
      const resumed = sandboxOf(second).status();
      expect(resumed.time).toBe(before.time);
      expect(resumed.market?.startedAt).toBe(before.market?.startedAt);
      expect(resumed.market?.fairPrices).toEqual(before.market?.fairPrices);
      await sandboxOf(second).advance({ ms: 4 * MINUTE });
      restarted = record(second);
      expect(stateFaults(second.exchange.internalState())).toEqual([]);
    } finally {
      await second.close();
    }

    const straight = await startServer({ ...OPTIONS, statePath: join(folder, "straight.db") });
    try {
      await sandboxOf(straight).advance({ ms: 8 * MINUTE });
      expect(restarted.trades.flat().length).toBeGreaterThan(100);
      expect(restarted).toEqual(record(straight));
    } finally {
      await straight.close();
    }
  });
});

describe("kill -9 while the market runs", () => {
  it("loses no acknowledged order; the market and its clock resume from what was committed", async () => {
    const path = join(folder, "crash.db");
    const args = ["--port", "0", "--state", path, "--market", "--clock-rate", "20", "--seed", "5"];
    const run = runCli(args);
    const url = await baseUrlOf(run);
    const acked: number[] = [];
    let lastTime = 0;
    try {
      for (let i = 0; i < 40; i += 1) {
        const time = (await send(url, { path: "/api/v3/time" })).json as { serverTime: number };
        lastTime = time.serverTime;
        const side = i % 2 ? "SELL" : "BUY";
        const answer = await sendSigned(url, {
          apiKey: "marketapi-demo-api-key",
          apiSecret: "marketapi-demo-api-secret",
          method: "POST",
          path: "/api/v3/order",
          form: `symbol=BTCUSDT&side=${side}&type=LIMIT&timeInForce=GTC&quantity=0.001&price=${side === "BUY" ? "50000" : "70000"}`,
          timestamp: time.serverTime,
          recvWindow: 60000,
        });
        expect(answer.status, answer.text).toBe(200);
        acked.push((answer.json as { orderId: number }).orderId);
      }
    } finally {
      run.child.kill("SIGKILL");
      await run.exited;
    }
    const after = await startServer({ port: 0, statePath: path, market: true, clock: { rate: 0 }, seed: 5 });
    try {
      for (const orderId of acked) {
        expect(after.exchange.queryOrder("demo", { symbol: "BTCUSDT", orderId }).status).toBe("NEW");
      }
      expect(stateFaults(after.exchange.internalState())).toEqual([]);
      const status = sandboxOf(after).status();
      // The clock resumes at the committed sandbox time: past every acknowledged order's time.
      expect(status.time).toBeGreaterThanOrEqual(lastTime);
      expect(status.market?.activity.ticks).toBeGreaterThan(0);
      const trades = after.exchange.trades("BTCUSDT", 5).length;
      await sandboxOf(after).advance({ ms: 5 * MINUTE });
      expect(after.exchange.historicalTrades("BTCUSDT", { limit: 1 })[0]?.time).toBeGreaterThan(status.time);
      expect(trades).toBe(5);
    } finally {
      await after.close();
    }
  });
});
