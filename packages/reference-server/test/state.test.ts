import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StateFileError, startServer } from "../src/index.js";
import { baseUrlOf, runCli } from "./support/cli.js";
import { send, sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-state-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const restingSell = "symbol=ETHUSDT&side=SELL&type=LIMIT&timeInForce=GTC&quantity=0.5&price=4000";
const marketBuy = "symbol=BTCUSDT&side=BUY&type=MARKET&quantity=0.01";
const demo = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };

function views(server: Awaited<ReturnType<typeof startServer>>) {
  const ex = server.exchange;
  return {
    depth: ex.depth("BTCUSDT", 50),
    ticker: ex.ticker24hr("BTCUSDT"),
    avg: ex.avgPrice("BTCUSDT"),
    trades: ex.trades("BTCUSDT", 100),
    agg: ex.aggTrades("BTCUSDT", { limit: 100 }),
    orders: ex.allOrders("demo", { symbol: "BTCUSDT" }),
    myTrades: ex.myTrades("demo", { symbol: "BTCUSDT" }),
    myTradesFrom: ex.myTrades("demo", { symbol: "BTCUSDT", fromId: 2, limit: 2 }),
    open: ex.openOrders("demo"),
    balances: ex.balances("demo"),
    fees: ex.feesCollected(),
    live: ex.toJSON(),
  };
}

describe("state database", () => {
  it("restores every order, trade, balance and statistic after a restart", async () => {
    const statePath = join(folder, "round-trip.db");
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const first = await startServer({ statePath, seed: 5, now });
    for (let i = 0; i < 5; i += 1) {
      clock += 1000;
      const placed = await sendSigned(first.url, {
        ...demo,
        method: "POST",
        path: "/api/v3/order",
        query: marketBuy,
        timestamp: clock,
      });
      expect(placed.status).toBe(200);
    }
    const resting = await sendSigned(first.url, {
      ...demo,
      method: "POST",
      path: "/api/v3/order",
      query: `${restingSell}&newClientOrderId=kept`,
      timestamp: clock,
    });
    expect(resting.status).toBe(200);
    const before = views(first);
    await first.close();

    const second = await startServer({ statePath, now });
    try {
      expect(views(second)).toEqual(before);
      const query = await sendSigned(second.url, {
        ...demo,
        method: "GET",
        path: "/api/v3/order",
        query: "symbol=ETHUSDT&origClientOrderId=kept",
        timestamp: clock,
      });
      expect(query.json).toMatchObject({ status: "NEW", price: "4000.00000000", origQty: "0.50000000" });
      expect(second.exchange.balances("demo").find((b) => b.asset === "ETH")?.locked).toBe("0.50000000");
    } finally {
      await second.close();
    }
  });

  it("answers an order only once it is committed", async () => {
    const statePath = join(folder, "ack.db");
    const server = await startServer({ statePath, empty: true });
    try {
      const placed = await sendSigned(server.url, {
        ...demo,
        method: "POST",
        path: "/api/v3/order",
        query: restingSell,
      });
      expect(placed.status).toBe(200);
      // A second, independent reader sees the order as soon as it was answered.
      const { default: Driver } = await import("better-sqlite3");
      const reader = new Driver(statePath, { readonly: true });
      const { position } = reader.prepare("SELECT position FROM symbols WHERE symbol = 'ETHUSDT'").get() as {
        position: number;
      };
      const row = reader
        .prepare(`SELECT status FROM orders_${position} WHERE order_id = ?`)
        .get((placed.json as { orderId: number }).orderId);
      reader.close();
      expect(row).toEqual({ status: "NEW" });
    } finally {
      await server.close();
    }
  });

  it("with a retention period, old trades and closed orders are deleted as time passes", async () => {
    const statePath = join(folder, "retention.db");
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const server = await startServer({ statePath, seed: 7, now, retentionMs: 25 * 3_600_000 });
    try {
      const headers = { "X-MBX-APIKEY": demo.apiKey };
      const first = await send(server.url, {
        path: "/api/v3/historicalTrades",
        query: "symbol=BTCUSDT&fromId=1&limit=1",
        headers,
      });
      expect((first.json as { id: number }[])[0]?.id).toBe(1);
      const seededUpTo = server.exchange.trades("BTCUSDT", 1)[0]?.id ?? 0;
      clock += 26 * 3_600_000;
      for (let i = 0; i < 2; i += 1) {
        clock += 61_000;
        const placed = await sendSigned(server.url, {
          ...demo,
          method: "POST",
          path: "/api/v3/order",
          query: marketBuy,
          timestamp: clock,
        });
        expect(placed.status).toBe(200);
      }
      await server.saveState();
      const after = await send(server.url, {
        path: "/api/v3/historicalTrades",
        query: "symbol=BTCUSDT&fromId=1&limit=5",
        headers,
      });
      const ids = (after.json as { id: number }[]).map((t) => t.id);
      // The seeded history is gone; the two new orders and their trades remain.
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.every((id) => id > seededUpTo)).toBe(true);
      expect(server.exchange.allOrders("demo", { symbol: "BTCUSDT" })).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("imports a JSON state file of the earlier format once, keeping it as a backup", async () => {
    const statePath = join(folder, "legacy.json");
    copyFileSync(new URL("./fixtures/legacy-state.json", import.meta.url), statePath);
    const server = await startServer({ statePath });
    try {
      expect(server.exchange.balances("alice").find((b) => b.asset === "BTC")).toBeDefined();
      expect(server.exchange.openOrders("alice").length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
    expect(readFileSync(statePath).subarray(0, 15).toString()).toBe("SQLite format 3");
    expect(existsSync(`${statePath}.json-backup`)).toBe(true);
    const again = await startServer({ statePath });
    expect(again.exchange.openOrders("alice").length).toBeGreaterThan(0);
    await again.close();
  });
});

describe("storage faults at start-up", () => {
  const refused = (statePath: string) => startServer({ statePath, empty: true });

  it("a missing folder", async () => {
    await expect(refused(join(folder, "nope", "state.db"))).rejects.toThrow(
      /the folder .*nope does not exist/,
    );
  });

  it("something that is not a regular file: a folder, /dev/full", async () => {
    await expect(refused(folder)).rejects.toThrow(/is not a regular file/);
    await expect(refused("/dev/full")).rejects.toThrow(StateFileError);
    // Refused before the lock: no lock file is made beside what cannot be a state file.
    expect(existsSync(`${folder}.lock`)).toBe(false);
    expect(existsSync("/dev/full.lock")).toBe(false);
  });

  it("a corrupt file and a file of another kind", async () => {
    const garbage = join(folder, "garbage.db");
    writeFileSync(garbage, Buffer.alloc(8192, 7));
    await expect(refused(garbage)).rejects.toThrow(
      /neither a marketapi state database nor a JSON state file/,
    );
    const corrupt = join(folder, "corrupt.db");
    const server = await startServer({ statePath: corrupt });
    await server.close();
    const bytes = readFileSync(corrupt);
    bytes.fill(0xee, 4096, bytes.length);
    writeFileSync(corrupt, bytes);
    await expect(refused(corrupt)).rejects.toThrow(/corrupt|malformed|not a database/);
  });

  it("a truncated file", async () => {
    const truncated = join(folder, "truncated.db");
    const server = await startServer({ statePath: truncated });
    await server.close();
    truncateSync(truncated, 8192);
    await expect(refused(truncated)).rejects.toThrow(/is truncated: its header says \d+ pages/);
  });

  it("a JSON file that is not a state file", async () => {
    const other = join(folder, "other.json");
    writeFileSync(other, '{"format":"something-else"}');
    await expect(refused(other)).rejects.toThrow(/unknown format "something-else"/);
    writeFileSync(other, "{ not json");
    await expect(refused(other)).rejects.toThrow(/not JSON/);
  });

  it("an inconsistent state is refused with what is wrong", async () => {
    const statePath = join(folder, "inconsistent.db");
    const server = await startServer({ statePath, empty: true });
    await server.close();
    const { default: Driver } = await import("better-sqlite3");
    const db = new Driver(statePath);
    db.prepare("UPDATE balances SET free = '-3' WHERE account = 'demo' AND asset = 'BTC'").run();
    db.prepare("UPDATE symbol_counters SET next_order_id = 0 WHERE symbol = 'BTCUSDT'").run();
    db.close();
    const error = await refused(statePath).catch((e: Error) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toContain('account "demo" BTC: free balance is negative (-3)');
    expect((error as Error).message).toContain("asset BTC: balances and fees add up to");
  });

  it("a symbol whose counters are missing is refused, naming the symbol", async () => {
    const statePath = join(folder, "no-counters.db");
    const server = await startServer({ statePath, empty: true });
    await server.close();
    const { default: Driver } = await import("better-sqlite3");
    const db = new Driver(statePath);
    db.prepare("DELETE FROM symbol_counters WHERE symbol = 'BTCUSDT'").run();
    db.close();
    const error = await refused(statePath).catch((e: Error) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toContain("symbol BTCUSDT has no counters");
  });
});

describe("marketapi-server command", () => {
  it("keeps orders across SIGTERM and restart, and adds new accounts to a restored exchange", async () => {
    const statePath = join(folder, "cli.db");
    const run = runCli(["--port", "0", "--state", statePath, "--seed", "11"]);
    const url = await baseUrlOf(run);
    expect(run.stdout()).toContain("demo API key     marketapi-demo-api-key");
    const placed = await sendSigned(url, {
      ...demo,
      method: "POST",
      path: "/api/v3/order",
      query: `${restingSell}&newClientOrderId=from-cli`,
    });
    expect(placed.status).toBe(200);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);

    const again = runCli([
      "--port",
      "0",
      "--state",
      statePath,
      "--api-key",
      "mine",
      "--api-secret",
      "s3cret",
    ]);
    const url2 = await baseUrlOf(again);
    const query = await sendSigned(url2, {
      ...demo,
      method: "GET",
      path: "/api/v3/order",
      query: "symbol=ETHUSDT&origClientOrderId=from-cli",
    });
    expect(query.json).toMatchObject({ status: "NEW" });
    const mine = await sendSigned(url2, {
      apiKey: "mine",
      apiSecret: "s3cret",
      method: "GET",
      path: "/api/v3/openOrders",
    });
    expect(mine.json).toEqual([]);
    again.child.kill("SIGINT");
    expect(await again.exited).toBe(0);
  });

  it("exits 2 with one line for a state path it cannot use", async () => {
    const missing = runCli(["--port", "0", "--state", join(folder, "absent", "x.db")]);
    expect(await missing.exited).toBe(2);
    expect(missing.stderr().trim().split("\n")).toHaveLength(1);
    expect(missing.stderr()).toMatch(
      /^marketapi-server: state file .*absent\/x\.db: the folder .* does not exist/,
    );
    const badRetention = runCli(["--state", join(folder, "r.db"), "--retention", "3h"]);
    expect(await badRetention.exited).toBe(2);
    expect(badRetention.stderr()).toContain("--retention must be at least 25h");
  });

  it("reports a bad --config file with the path of each fault and exits 1", async () => {
    const config = join(folder, "bad-config.json");
    writeFileSync(
      config,
      JSON.stringify({
        symbols: ["BTCUSDT", { symbol: "lower", baseAsset: "X", quoteAsset: "X", referencePrice: "-1" }],
        accounts: [
          { apiKey: "has space", apiSecret: "s" },
          { apiKey: "ok", balances: { USDT: 5 } },
        ],
        rateLimits: { requestWeightPerMinute: 0 },
        network: { maxConnections: 0 },
        historyRetention: "2h",
        stateSync: "sometimes",
        colour: "blue",
      }),
    );
    const run = runCli(["--config", config]);
    expect(await run.exited).toBe(1);
    const message = run.stderr();
    expect(message).toContain(config);
    for (const path of [
      "/symbols/1/symbol",
      "/symbols/1/quoteAsset",
      "/symbols/1/referencePrice",
      "/accounts/0/apiKey",
      "/accounts/1/apiSecret",
      "/accounts/1/balances/USDT",
      "/rateLimits/requestWeightPerMinute",
      "/network/maxConnections",
      "/historyRetention",
      "/stateSync",
      "/colour",
    ]) {
      expect(message).toContain(`${path}:`);
    }
  });

  it("exits 1 for a config file that is not JSON (located), 2 for unknown options; --help exits 0", async () => {
    const config = join(folder, "not-json.json");
    writeFileSync(config, "{ nope");
    const notJson = runCli(["--config", config]);
    expect(await notJson.exited).toBe(1);
    expect(notJson.stderr()).toContain(`${config} (line 1, column 3): expected JSON, found a syntax error`);
    const unknown = runCli(["--colour", "blue"]);
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain("Usage: marketapi-server");
    const help = runCli(["--help"]);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain("--state FILE");
  });

  // An empty word (an unset variable in a script) is no value: a server in memory where a state
  // file was asked for, or listening on every interface, would lose or expose what it serves.
  it.each([
    { given: ["--state", ""], want: "--state needs a value" },
    { given: ["--host", ""], want: "--host needs a value" },
    { given: ["--admin-token="], want: "--admin-token needs a value" },
  ])("$given is refused with exit 2: $want", async ({ given, want }) => {
    const run = runCli(["--port", "0", ...given]);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain(want);
  });
});

mkdirSync(folder, { recursive: true });
