import { describe, expect, it } from "vitest";
import {
  ConfigError,
  DEFAULT_CONNECTION_LIMITS,
  DEFAULT_RATE_LIMITS,
  parseConfig,
  startServer,
} from "../src/index.js";
import { send, sendSigned } from "./support/http.js";

function faultsOf(action: () => unknown): readonly string[] {
  try {
    action();
  } catch (error) {
    if (error instanceof ConfigError) return error.faults;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("parseConfig", () => {
  it("completes an empty configuration with the defaults", () => {
    expect(parseConfig({})).toEqual({
      symbols: undefined,
      accounts: [],
      rateLimits: DEFAULT_RATE_LIMITS,
      maxOpenOrdersPerAccount: undefined,
      maxBodyBytes: 65536,
      network: DEFAULT_CONNECTION_LIMITS,
      historyRetentionMs: undefined,
      stateSync: undefined,
    });
  });

  it("expands a symbol sketch on the template of BTCUSDT", () => {
    const [sol] =
      parseConfig({
        symbols: [
          {
            symbol: "SOLUSDT",
            baseAsset: "SOL",
            quoteAsset: "USDT",
            referencePrice: "150",
            stepSize: "0.001",
          },
        ],
      }).symbols ?? [];
    expect(sol).toMatchObject({
      symbol: "SOLUSDT",
      baseAsset: "SOL",
      quoteAsset: "USDT",
      referencePrice: "150",
    });
    expect(sol?.filters).toContainEqual({
      filterType: "LOT_SIZE",
      minQty: "0.001",
      maxQty: "9000.00000000",
      stepSize: "0.001",
    });
  });

  it("names every fault by its JSON Pointer", () => {
    expect(
      faultsOf(() =>
        parseConfig({
          symbols: ["NOPE", "BTCUSDT", "BTCUSDT"],
          accounts: [
            { id: "demo", apiKey: "k1", apiSecret: "s" },
            { apiKey: "k1", apiSecret: "s", balances: { usdt: "1" } },
          ],
          maxBodyBytes: -1,
        }),
      ),
    ).toEqual([
      '/symbols/0: unknown built-in symbol "NOPE"; built in: BTCUSDT, ETHUSDT, ETHBTC (or give an object)',
      "/symbols/1: symbol BTCUSDT is listed twice",
      '/accounts/0/id: "demo" is reserved (demo, user, market-maker, sim-maker-1, sim-maker-2, sim-maker-3, sim-taker-1, sim-taker-2)',
      "/accounts/1/balances/usdt: is not an asset name such as BTC",
      "/maxBodyBytes: must be a positive integer",
    ]);
  });
});

describe("startServer options", () => {
  it("rejects a malformed apiKey/apiSecret and a key used twice", async () => {
    await expect(startServer({ apiKey: "has space", apiSecret: "x" })).rejects.toThrow(/apiKey: must be/);
    await expect(startServer({ apiKey: "only-key" })).rejects.toThrow(/apiSecret: must be/);
    await expect(
      startServer({
        apiKey: "same",
        apiSecret: "x",
        config: { accounts: [{ apiKey: "same", apiSecret: "y" }] },
      }),
    ).rejects.toThrow(/"same" is used twice/);
  });

  it("serves configured symbols and gives configured balances", async () => {
    const server = await startServer({
      empty: true,
      config: {
        symbols: [{ symbol: "SOLUSDT", baseAsset: "SOL", quoteAsset: "USDT", referencePrice: "150" }],
        accounts: [{ id: "alice", apiKey: "alice-key", apiSecret: "alice-secret", balances: { USDT: "10" } }],
        maxOpenOrdersPerAccount: 1,
      },
    });
    try {
      const info = (await send(server.url, { path: "/api/v3/exchangeInfo" })).json as {
        symbols: { symbol: string }[];
        exchangeFilters: unknown[];
      };
      expect(info.symbols.map((s) => s.symbol)).toEqual(["SOLUSDT"]);
      expect(info.exchangeFilters).toEqual([{ filterType: "EXCHANGE_MAX_NUM_ORDERS", maxNumOrders: 1 }]);
      expect(server.exchange.balances("alice")).toEqual([
        { asset: "USDT", free: "10.00000000", locked: "0.00000000" },
      ]);
      const alice = { apiKey: "alice-key", apiSecret: "alice-secret", method: "POST", path: "/api/v3/order" };
      const order = "symbol=SOLUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.05&price=100";
      expect((await sendSigned(server.url, { ...alice, query: order })).status).toBe(200);
      expect((await sendSigned(server.url, { ...alice, query: order })).json).toMatchObject({ code: -1013 });
      // The cap is per account: the demo account (generous balance in SOL and USDT) still may place one.
      const demo = { ...server.demo, method: "POST", path: "/api/v3/order" };
      expect((await sendSigned(server.url, { ...demo, query: order })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
