import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";
import { hmac, send, sendSigned } from "./support/http.js";

const ALICE = { id: "alice", apiKey: "alice-key", apiSecret: "alice-secret" };
const BOB = { id: "bob", apiKey: "bob-key", apiSecret: "bob-secret" };

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ config: { accounts: [ALICE, BOB] } });
});
afterAll(() => server.close());

const restingBuy = "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=50000";

function openOrders(
  credentials: { apiKey: string; apiSecret: string },
  extra: Partial<Parameters<typeof sendSigned>[1]> = {},
) {
  return sendSigned(server.url, {
    ...credentials,
    method: "GET",
    path: "/api/v3/openOrders",
    query: "symbol=BTCUSDT",
    ...extra,
  });
}

describe("API key (market_data, trade, user_data)", () => {
  it("answers -2014 (401) without a key on a signed operation", async () => {
    const query = `symbol=BTCUSDT&timestamp=${Date.now()}`;
    const res = await send(server.url, {
      path: "/api/v3/openOrders",
      query: `${query}&signature=${hmac(ALICE.apiSecret, query)}`,
    });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ code: -2014, msg: "API-key format invalid." });
  });

  it("answers -2015 (401) for an unknown key", async () => {
    const res = await openOrders({ apiKey: "nobody", apiSecret: ALICE.apiSecret });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ code: -2015, msg: "Invalid API-key, IP, or permissions for action." });
  });

  it("accepts the key on market_data operations without requiring it, and ignores it on public ones", async () => {
    for (const path of ["/api/v3/trades", "/api/v3/historicalTrades"]) {
      const trades = (headers?: Record<string, string>) =>
        send(server.url, { path, query: "symbol=BTCUSDT&limit=1", headers });
      for (const key of [undefined, "", "unknown-key", ALICE.apiKey]) {
        const res = await trades(key === undefined ? undefined : { "X-MBX-APIKEY": key });
        expect({ path, key, status: res.status }).toEqual({ path, key, status: 200 });
      }
    }
    // Public operations accept an absent, empty or unknown key (node-binance-api sends an empty one).
    for (const key of [undefined, "", "unknown-key"]) {
      const headers = key === undefined ? undefined : { "X-MBX-APIKEY": key };
      expect(
        (await send(server.url, { path: "/api/v3/depth", query: "symbol=BTCUSDT&limit=5", headers })).status,
      ).toBe(200);
    }
  });

  it("accepts the demo key", async () => {
    const res = await openOrders(server.demo);
    expect(res.status).toBe(200);
  });
});

describe("signature", () => {
  it("rejects a wrong signature with -1022", async () => {
    const query = `symbol=BTCUSDT&timestamp=${Date.now()}`;
    const res = await send(server.url, {
      path: "/api/v3/openOrders",
      query: `${query}&signature=${hmac("wrong-secret", query)}`,
      headers: { "X-MBX-APIKEY": ALICE.apiKey },
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ code: -1022, msg: "Signature for this request is not valid." });
  });

  it("rejects a signature that is not 64 hex digits, and a tampered query", async () => {
    const query = `symbol=BTCUSDT&timestamp=${Date.now()}`;
    for (const signature of ["abc", "zz".repeat(32), `${hmac(ALICE.apiSecret, query)}00`]) {
      const res = await send(server.url, {
        path: "/api/v3/openOrders",
        query: `${query}&signature=${signature}`,
        headers: { "X-MBX-APIKEY": ALICE.apiKey },
      });
      expect(res.json).toMatchObject({ code: -1022 });
    }
    const tampered = await send(server.url, {
      path: "/api/v3/openOrders",
      query: `symbol=ETHUSDT&timestamp=${Date.now()}&signature=${hmac(ALICE.apiSecret, query)}`,
      headers: { "X-MBX-APIKEY": ALICE.apiKey },
    });
    expect(tampered.json).toMatchObject({ code: -1022 });
  });

  it("compares hex case-insensitively", async () => {
    const query = `symbol=BTCUSDT&timestamp=${Date.now()}`;
    const res = await send(server.url, {
      path: "/api/v3/openOrders",
      query: `${query}&signature=${hmac(ALICE.apiSecret, query).toUpperCase()}`,
      headers: { "X-MBX-APIKEY": ALICE.apiKey },
    });
    expect(res.status).toBe(200);
  });

  it("requires signature and timestamp (-1102)", async () => {
    const headers = { "X-MBX-APIKEY": ALICE.apiKey };
    const unsigned = await send(server.url, {
      path: "/api/v3/openOrders",
      query: `timestamp=${Date.now()}`,
      headers,
    });
    expect(unsigned.json).toEqual({
      code: -1102,
      msg: "Mandatory parameter 'signature' was not sent, was empty/null, or malformed.",
    });
    const query = "symbol=BTCUSDT";
    const noTimestamp = await send(server.url, {
      path: "/api/v3/openOrders",
      query: `${query}&signature=${hmac(ALICE.apiSecret, query)}`,
      headers,
    });
    expect(noTimestamp.json).toMatchObject({ code: -1102, msg: expect.stringContaining("'timestamp'") });
  });

  it("verifies the spec's mixed query + body vector (no separator between the parts)", async () => {
    const query = "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC";
    const body = `quantity=0.001&price=50000&recvWindow=5000&timestamp=${Date.now()}`;
    const res = await send(server.url, {
      method: "POST",
      path: "/api/v3/order",
      query,
      body: `${body}&signature=${hmac(ALICE.apiSecret, query + body)}`,
      headers: { "X-MBX-APIKEY": ALICE.apiKey, "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ symbol: "BTCUSDT", status: "NEW" });
  });
});

describe("timestamp and recvWindow", () => {
  it("rejects a stale timestamp (-1021, outside recvWindow)", async () => {
    const res = await openOrders(ALICE, { timestamp: Date.now() - 6000 });
    expect(res.json).toEqual({
      code: -1021,
      msg: "Timestamp for this request is outside of the recvWindow.",
    });
    const widened = await openOrders(ALICE, { timestamp: Date.now() - 6000, recvWindow: 10000 });
    expect(widened.status).toBe(200);
  });

  it("rejects a timestamp 1000 ms or more ahead of the server (-1021)", async () => {
    const res = await openOrders(ALICE, { timestamp: Date.now() + 5000 });
    expect(res.json).toEqual({
      code: -1021,
      msg: "Timestamp for this request was 1000ms ahead of the server's time.",
    });
    expect((await openOrders(ALICE, { timestamp: Date.now() + 500 })).status).toBe(200);
  });

  it("rejects recvWindow above 60000 (-1102, live text) and accepts it on every signed operation", async () => {
    const res = await openOrders(ALICE, { recvWindow: 60001 });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      code: -1102,
      msg: "'recvWindow' contains unexpected value. Cannot be greater than 60000.",
    });
    expect((await openOrders(ALICE, { recvWindow: 60000 })).status).toBe(200);
    const cancelAll = await sendSigned(server.url, {
      ...ALICE,
      method: "DELETE",
      path: "/api/v3/openOrders",
      query: "symbol=ETHBTC",
      recvWindow: 1000,
    });
    expect(cancelAll.json).toMatchObject({ code: -2011 });
  });

  it("rejects a timestamp that is not an integer (-1100)", async () => {
    const query = "symbol=BTCUSDT&timestamp=12.5";
    const res = await send(server.url, {
      path: "/api/v3/openOrders",
      query: `${query}&signature=${hmac(ALICE.apiSecret, query)}`,
      headers: { "X-MBX-APIKEY": ALICE.apiKey },
    });
    expect(res.json).toMatchObject({ code: -1100, msg: expect.stringContaining("'timestamp'") });
  });
});

describe("accounts are isolated", () => {
  const call = (who: typeof ALICE, method: string, path: string, query: string) =>
    sendSigned(server.url, { ...who, method, path, query });

  it("B can neither see, query nor cancel A's order", async () => {
    const placed = await call(ALICE, "POST", "/api/v3/order", `${restingBuy}&newClientOrderId=alice-1`);
    expect(placed.status).toBe(200);
    const { orderId } = placed.json as { orderId: number };

    const byId = await call(BOB, "GET", "/api/v3/order", `symbol=BTCUSDT&orderId=${orderId}`);
    expect(byId.json).toEqual({ code: -2013, msg: "Order does not exist." });
    const byClientId = await call(BOB, "GET", "/api/v3/order", "symbol=BTCUSDT&origClientOrderId=alice-1");
    expect(byClientId.json).toMatchObject({ code: -2013 });
    const cancel = await call(BOB, "DELETE", "/api/v3/order", `symbol=BTCUSDT&orderId=${orderId}`);
    expect(cancel.json).toEqual({ code: -2011, msg: "Unknown order sent." });
    const cancelAll = await call(BOB, "DELETE", "/api/v3/openOrders", "symbol=BTCUSDT");
    expect(cancelAll.json).toMatchObject({ code: -2011 });
    expect((await call(BOB, "GET", "/api/v3/openOrders", "symbol=BTCUSDT")).json).toEqual([]);
    expect((await call(BOB, "GET", "/api/v3/allOrders", "symbol=BTCUSDT")).json).toEqual([]);

    const own = await call(ALICE, "GET", "/api/v3/order", `symbol=BTCUSDT&orderId=${orderId}`);
    expect(own.json).toMatchObject({ orderId, status: "NEW", clientOrderId: "alice-1" });
  });
});
