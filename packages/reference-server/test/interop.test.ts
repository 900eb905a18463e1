// Interoperability with what real third-party clients send (real-clients.md): the official
// @binance/connector pointed at the server, and raw requests shaped like ccxt, node-binance-api and
// binance-api-node send them.
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";
import { hmac, send } from "./support/http.js";

interface AxiosLikeResponse<T> {
  data: T;
  headers: Record<string, string>;
}
type Call<T = unknown> = Promise<AxiosLikeResponse<T>>;
interface ConnectorSpot {
  depth(symbol: string, options?: { limit?: number }): Call<{ bids: string[][]; asks: string[][] }>;
  trades(symbol: string, options?: { limit?: number }): Call<unknown[]>;
  tickerPrice(symbol?: string): Call<{ symbol: string; price: string }>;
  bookTicker(symbol?: string): Call<{ symbol: string; bidPrice: string }>;
  ticker24hr(symbol?: string, symbols?: string[], type?: string | null): Call<{ symbol: string }>;
  exchangeInfo(options?: { symbols?: string[] }): Call<{ symbols: { symbol: string }[] }>;
  newOrder(
    symbol: string,
    side: string,
    type: string,
    options?: Record<string, unknown>,
  ): Call<{ orderId: number }>;
  getOrder(symbol: string, options: Record<string, unknown>): Call<{ status: string; orderId: number }>;
  openOrders(options?: Record<string, unknown>): Call<{ orderId: number }[]>;
  cancelOrder(symbol: string, options: Record<string, unknown>): Call<{ status: string }>;
}

const require = createRequire(import.meta.url);
const { Spot } = require("@binance/connector") as {
  Spot: new (key: string, secret: string, options: { baseURL: string; logger?: unknown }) => ConnectorSpot;
};

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ seed: 3 });
});
afterAll(() => server.close());

describe("@binance/connector 3.6.1 (all parameters in the query, JSON content type with an empty body)", () => {
  const connector = () => new Spot(server.demo.apiKey, server.demo.apiSecret, { baseURL: server.url });

  it("reads depth, trades and the tickers", async () => {
    const spot = connector();
    const depth = await spot.depth("BTCUSDT", { limit: 5 });
    expect(depth.data.bids).toHaveLength(5);
    expect(depth.headers["x-mbx-used-weight-1m"]).toMatch(/^[0-9]+$/);
    expect((await spot.trades("BTCUSDT", { limit: 2 })).data.length).toBeGreaterThan(0);
    expect((await spot.tickerPrice("BTCUSDT")).data).toMatchObject({ symbol: "BTCUSDT" });
    expect((await spot.bookTicker("ETHUSDT")).data).toMatchObject({ symbol: "ETHUSDT" });
    // The connector's default call adds `type=FULL`, a live-API parameter the spec leaves out: read
    // as the live API reads it (README: live-API extras).
    expect((await spot.ticker24hr("ETHBTC")).data).toMatchObject({
      symbol: "ETHBTC",
      count: expect.any(Number),
    });
    const info = await spot.exchangeInfo({ symbols: ["BTCUSDT", "ETHUSDT"] });
    expect(info.data.symbols.map((s) => s.symbol)).toEqual(["BTCUSDT", "ETHUSDT"]);
  });

  it("places, queries, lists and cancels an order", async () => {
    const spot = connector();
    const placed = await spot.newOrder("BTCUSDT", "BUY", "LIMIT", {
      price: "45000.00",
      quantity: 0.002,
      timeInForce: "GTC",
      newClientOrderId: "connector-1",
    });
    expect(placed.headers["x-mbx-order-count-10s"]).toBe("1");
    const { orderId } = placed.data;
    expect((await spot.getOrder("BTCUSDT", { orderId })).data).toMatchObject({ orderId, status: "NEW" });
    expect((await spot.openOrders({ symbol: "BTCUSDT" })).data.map((o) => o.orderId)).toContain(orderId);
    const cancelled = await spot.cancelOrder("BTCUSDT", { origClientOrderId: "connector-1" });
    expect(cancelled.data.status).toBe("CANCELED");
  });

  it("surfaces the API's error body", async () => {
    const spot = connector();
    const failure = await spot.getOrder("BTCUSDT", { orderId: 123456789 }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ response: { status: 400, data: { code: -2013 } } });
  });
});

describe("raw requests as other clients send them", () => {
  it("ccxt: a signed POST with every parameter, signature last, in a form body", async () => {
    const body =
      `timestamp=${Date.now()}&symbol=BTCUSDT&side=BUY&newClientOrderId=x-TKT5PX2Fb645ed6e4a4a4360899db5` +
      "&newOrderRespType=FULL&type=LIMIT&quantity=0.01&price=1000&timeInForce=GTC&recvWindow=10000";
    const res = await send(server.url, {
      method: "POST",
      path: "/api/v3/order",
      body: `${body}&signature=${hmac(server.demo.apiSecret, body)}`,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-mbx-apikey": server.demo.apiKey,
        "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/62.0.3202.94 Safari/537.36",
      },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      clientOrderId: "x-TKT5PX2Fb645ed6e4a4a4360899db5",
      status: "NEW",
      price: "1000.00000000",
      fills: [],
    });
    const query = `timestamp=${Date.now()}&symbol=BTCUSDT&origClientOrderId=x-TKT5PX2Fb645ed6e4a4a4360899db5&recvWindow=10000`;
    const cancel = await send(server.url, {
      method: "DELETE",
      path: "/api/v3/order",
      query: `${query}&signature=${hmac(server.demo.apiSecret, query)}`,
      headers: { "x-mbx-apikey": server.demo.apiKey },
    });
    expect(cancel.json).toMatchObject({ status: "CANCELED" });
  });

  it("node-binance-api: empty API key and a form content type on public GETs; `symbol=` means all", async () => {
    const headers = { "X-MBX-APIKEY": "", "Content-type": "application/x-www-form-urlencoded" };
    const depth = await send(server.url, { path: "/api/v3/depth", query: "symbol=BTCUSDT&limit=5", headers });
    expect(depth.status).toBe(200);
    const all = await send(server.url, { path: "/api/v3/ticker/24hr", query: "symbol=", headers });
    expect(all.status).toBe(200);
    expect(all.json).toHaveLength(3);
  });

  it("binance-api-node: a comma-joined symbols list is rejected like the live API does", async () => {
    const res = await send(server.url, { path: "/api/v3/exchangeInfo", query: "symbols=BTCUSDT%2CETHUSDT" });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: -1100 });
  });

  it("binance (tiagosiebler): a form content type with all parameters in the query and an empty body", async () => {
    const query = `symbol=ETHUSDT&side=SELL&type=MARKET&quantity=0.01&recvWindow=5000&timestamp=${Date.now()}`;
    const res = await send(server.url, {
      method: "POST",
      path: "/api/v3/order",
      query: `${query}&signature=${hmac(server.demo.apiSecret, query)}`,
      body: "",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-mbx-apikey": server.demo.apiKey,
        "content-length": "0",
      },
    });
    expect(res.json).toMatchObject({ status: "FILLED", side: "SELL" });
  });
});
