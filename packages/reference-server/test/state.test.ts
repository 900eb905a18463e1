import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { STATE_FORMAT, StateFileError, startServer } from "../src/index.js";
import { baseUrlOf, runCli } from "./support/cli.js";
import { sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-state-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const restingSell = "symbol=ETHUSDT&side=SELL&type=LIMIT&timeInForce=GTC&quantity=0.5&price=4000";

describe("state file", () => {
  it("restores an open order and the locked balance after a restart", async () => {
    const statePath = join(folder, "round-trip.json");
    const first = await startServer({ statePath, seed: 5 });
    const placed = await sendSigned(first.url, {
      ...first.demo,
      method: "POST",
      path: "/api/v3/order",
      query: `${restingSell}&newClientOrderId=kept`,
    });
    expect(placed.status).toBe(200);
    const balancesBefore = first.exchange.balances("demo");
    await first.close();
    const saved = JSON.parse(readFileSync(statePath, "utf8")) as { format: string };
    expect(saved.format).toBe(STATE_FORMAT);
    expect(readdirSync(folder).filter((name) => name.endsWith(".tmp"))).toEqual([]);

    const second = await startServer({ statePath });
    try {
      const query = await sendSigned(second.url, {
        ...second.demo,
        method: "GET",
        path: "/api/v3/order",
        query: "symbol=ETHUSDT&origClientOrderId=kept",
      });
      expect(query.json).toMatchObject({ status: "NEW", price: "4000.00000000", origQty: "0.50000000" });
      expect(second.exchange.balances("demo")).toEqual(balancesBefore);
      expect(second.exchange.balances("demo").find((b) => b.asset === "ETH")?.locked).toBe("0.50000000");
    } finally {
      await second.close();
    }
  });

  it("saves periodically after a change, before any shutdown", async () => {
    const statePath = join(folder, "periodic.json");
    const server = await startServer({ statePath, saveIntervalMs: 50, empty: true });
    try {
      expect(existsSync(statePath)).toBe(false);
      await sendSigned(server.url, {
        ...server.demo,
        method: "POST",
        path: "/api/v3/order",
        query: restingSell,
      });
      // Polls until the periodic save has happened; a save that never comes fails on the test timeout.
      while (!existsSync(statePath)) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await server.close();
    }
  });

  it("refuses a state file that is not one", async () => {
    const statePath = join(folder, "broken.json");
    writeFileSync(statePath, '{"format":"something-else"}');
    await expect(startServer({ statePath })).rejects.toBeInstanceOf(StateFileError);
    writeFileSync(statePath, "{ not json");
    await expect(startServer({ statePath })).rejects.toThrow(/not JSON/);
  });
});

describe("marketapi-server command", () => {
  it("saves the state and exits 0 on SIGTERM, and restores it on the next start", async () => {
    const statePath = join(folder, "cli.json");
    const run = runCli(["--port", "0", "--state", statePath, "--seed", "11"]);
    const url = await baseUrlOf(run);
    expect(run.stdout()).toContain("demo API key     marketapi-demo-api-key");
    const placed = await sendSigned(url, {
      apiKey: "marketapi-demo-api-key",
      apiSecret: "marketapi-demo-api-secret",
      method: "POST",
      path: "/api/v3/order",
      query: `${restingSell}&newClientOrderId=from-cli`,
    });
    expect(placed.status).toBe(200);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(readFileSync(statePath, "utf8")).toContain("from-cli");

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
      apiKey: "marketapi-demo-api-key",
      apiSecret: "marketapi-demo-api-secret",
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

  it("reports a bad --config file with the path of each fault and exits 2", async () => {
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
        colour: "blue",
      }),
    );
    const run = runCli(["--config", config]);
    expect(await run.exited).toBe(2);
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
      "/colour",
    ]) {
      expect(message).toContain(`${path}:`);
    }
  });

  it("exits 2 for a config file that is not JSON, and for unknown options; --help exits 0", async () => {
    const config = join(folder, "not-json.json");
    writeFileSync(config, "{ nope");
    const notJson = runCli(["--config", config]);
    expect(await notJson.exited).toBe(2);
    expect(notJson.stderr()).toContain("is not JSON");
    const unknown = runCli(["--colour", "blue"]);
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain("Usage: marketapi-server");
    const help = runCli(["--help"]);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain("--state FILE");
  });
});
