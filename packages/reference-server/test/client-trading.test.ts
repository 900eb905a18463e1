// @marketapi/client as a trading program uses it, against the reference server: orders whose
// answer is lost on the way back (a proxy on 127.0.0.1 drops the connection, or answers 503, after
// the server accepted them) are looked up, never placed twice; the paging iterators read every
// trade and every order of 30 days, item for item as the engine holds them; a shared pacer keeps
// a burst under the server's limits.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createSpotClient } from "@marketapi/client";
import { createPacer } from "@marketapi/pacer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

/** What the proxy does with the answer of the next POST: pass it on, drop the connection, or answer 503 instead. */
type Fault = "pass" | "drop" | "unavailable";

/** Forwards every request to the server; a scripted one loses its answer after the server answered it. */
async function startLossyProxy(upstream: string) {
  const faults: Fault[] = [];
  const target = new URL(upstream);
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const fault = incoming.method === "POST" ? faults.shift() : "pass";
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          if (fault === "drop") return incoming.socket.destroy();
          if (fault === "unavailable") {
            outgoing.writeHead(503, { "Content-Type": "application/json" });
            return outgoing.end(JSON.stringify({ code: -1000, msg: "An unknown error occurred." }));
          }
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          outgoing.end(Buffer.concat(chunks));
        });
      },
    );
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const DAY = 86_400_000;
let clock = Date.UTC(2026, 0, 1);
let server: RunningServer;
let proxy: Awaited<ReturnType<typeof startLossyProxy>>;

beforeAll(async () => {
  server = await startServer({ seed: 7, now: () => clock });
  proxy = await startLossyProxy(server.url);
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

const credentials = () => ({
  apiKey: server.demo.apiKey,
  apiSecret: server.demo.apiSecret,
  now: () => clock,
});

describe("orders whose answer is lost", () => {
  it("are looked up by client order id and returned, never placed twice", async () => {
    const client = createSpotClient({ baseUrl: proxy.url, ...credentials() });
    proxy.faults.push("drop", "pass", "unavailable", "pass", "drop", "unavailable");
    const outcomes: string[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const placed = await client.new_order({
        symbol: "BTCUSDT",
        side: "BUY",
        type: "LIMIT",
        timeInForce: "GTC",
        quantity: "0.01",
        price: "10000.00",
      });
      if (placed.error) throw new Error(`${placed.error.code} ${placed.error.msg}`);
      const order = placed.lookedUp ?? placed.data;
      outcomes.push(`${placed.lookedUp ? "looked up" : "answered"} ${order.status}`);
      ids.push(order.clientOrderId);
    }
    expect(outcomes).toEqual([
      "looked up NEW",
      "answered NEW",
      "looked up NEW",
      "answered NEW",
      "looked up NEW",
      "looked up NEW",
    ]);
    const placedIds = server.exchange
      .allOrders("demo", { symbol: "BTCUSDT", limit: 1000 })
      .map((o) => o.clientOrderId)
      .filter((id) => ids.includes(id));
    expect(placedIds.sort()).toEqual([...new Set(ids)].sort());
    expect(placedIds).toHaveLength(6);
    server.exchange.cancelAllOrders("demo", "BTCUSDT");
  });
});

describe("paging iterators", () => {
  it("read every trade from the first, page after page, as the engine holds them", async () => {
    const client = createSpotClient({ baseUrl: server.url, ...credentials() });
    // The seeded history, and as many trades again as it takes to fill several pages.
    for (let i = 0; i < 150; i++)
      server.exchange.newOrder("demo", {
        symbol: "BTCUSDT",
        side: i % 2 ? "SELL" : "BUY",
        type: "MARKET",
        quantity: "0.001",
      });
    const all = server.exchange.historicalTrades("BTCUSDT", { fromId: 0, limit: 1_000_000 });
    expect(all.length).toBeGreaterThan(120);
    const seen = [];
    for await (const trade of client.historical_trades.iterate({ symbol: "BTCUSDT", fromId: 0, limit: 50 }))
      seen.push(trade);
    expect(seen).toEqual(all);
  });

  it("read 30 days of orders in windows of at most 24 hours (x-time-window)", async () => {
    const client = createSpotClient({ baseUrl: server.url, ...credentials() });
    const start = clock;
    const placed: number[] = [];
    for (let hour = 0; hour < 30 * 24; hour += 7) {
      clock = start + hour * 3_600_000;
      placed.push(
        server.exchange.newOrder("demo", {
          symbol: "ETHUSDT",
          side: "BUY",
          type: "LIMIT",
          timeInForce: "GTC",
          quantity: "1",
          price: "100.00",
        }).orderId,
      );
    }
    clock = start + 30 * DAY;
    // The engine's whole list, without the HTTP layer's 24-hour rule.
    const all = server.exchange
      .allOrders("demo", { symbol: "ETHUSDT", limit: 1_000_000 })
      .filter((o) => o.time >= start && o.time <= start + 30 * DAY);
    const seen = [];
    for await (const order of client.all_orders.iterate({
      symbol: "ETHUSDT",
      startTime: start,
      endTime: start + 30 * DAY,
      limit: 20,
    }))
      seen.push(order);
    expect(seen).toEqual(all);
    expect(seen.map((o) => o.orderId)).toEqual(placed);
    server.exchange.cancelAllOrders("demo", "ETHUSDT");
  });
});

describe("a shared pacer", () => {
  it("keeps a burst of two clients under the server's weight limit: no 429", async () => {
    // Server and pacer share a clock that runs 60 times faster: a weight window is a second long.
    const origin = Date.now();
    const fast = () => origin + (Date.now() - origin) * 60;
    const limited = await startServer({
      seed: 3,
      now: fast,
      config: {
        accounts: [],
        rateLimits: {
          requestWeightPerMinute: 300,
          ordersPer10s: 100_000,
          ordersPerDay: 1_000_000,
          banAfter429s: 10,
          banSeconds: 120,
        },
      },
    });
    try {
      const pacer = createPacer({
        clock: {
          now: fast,
          setTimer(callback, ms) {
            const timer = setTimeout(callback, ms / 60);
            return () => clearTimeout(timer);
          },
        },
      });
      const one = createSpotClient({ baseUrl: limited.url, pacer });
      const two = createSpotClient({ baseUrl: limited.url, pacer });
      pacer.setLimits((await one.exchange_info({ symbol: "BTCUSDT" })).data!.rateLimits);
      // 20 + 24 × 25 = 620 weight: more than two windows' 300 each, so some calls wait for later windows.
      const calls = Array.from({ length: 24 }, (_, i) =>
        (i % 2 ? one : two).recent_trades_list({ symbol: "BTCUSDT" }),
      );
      const statuses = (await Promise.all(calls)).map((r) => r.response.status);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(pacer.snapshot().granted).toBe(25);
    } finally {
      await limited.close();
    }
  });

  it("without it, the same burst earns 429s", async () => {
    const limited = await startServer({
      seed: 3,
      config: {
        accounts: [],
        rateLimits: {
          requestWeightPerMinute: 300,
          ordersPer10s: 100_000,
          ordersPerDay: 1_000_000,
          banAfter429s: 10,
          banSeconds: 120,
        },
      },
    });
    try {
      const client = createSpotClient({ baseUrl: limited.url, retry: false });
      // 25 × 25 = 625: over the limit however the burst falls across a minute's end.
      const calls = Array.from({ length: 25 }, () => client.recent_trades_list({ symbol: "BTCUSDT" }));
      const statuses = (await Promise.all(calls)).map((r) => r.response.status);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});
