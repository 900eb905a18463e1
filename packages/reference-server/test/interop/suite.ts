// The interoperability suite: one real npm client, pointed at the reference server the way its
// own documentation allows (real-clients.md), driven through every method that maps to one of the
// operations of the spec, and through its account calls, which map to the sandbox's own document
// (account, myTrades, klines). Each client file describes its client with an `InteropClient` adapter; this module
// runs the same calls and the same expectations against every adapter, so that "works against the
// server" means the same thing for all six clients. Nothing leaves the loopback interface:
// `guardLoopback` makes any other host lookup fail loudly.
import dns from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, type StartServerOptions, startServer } from "../../src/index.js";
import { stillClock } from "../support/still-clock.js";

/**
 * The clients' own per-call timeout. Their defaults (10 to 30 s) are for real networks and would
 * race a loaded 2-core machine; this one is the suite's hang limit (vitest.shared.ts), so only the
 * test's limit decides.
 */
export const CALL_TIMEOUT_MS = 600_000;

export type TickerKind = "price" | "bookTicker" | "24hr";
export type OrderType =
  | "LIMIT"
  | "MARKET"
  | "STOP_LOSS"
  | "STOP_LOSS_LIMIT"
  | "TAKE_PROFIT"
  | "TAKE_PROFIT_LIMIT"
  | "LIMIT_MAKER";

export interface OrderSpec {
  symbol: string;
  side: "BUY" | "SELL";
  type: OrderType;
  quantity?: string;
  quoteOrderQty?: string;
  price?: string;
  stopPrice?: string;
}

export interface OrderSeen {
  orderId: string;
  clientOrderId: string;
  /** The API's status word (NEW, FILLED, CANCELED); clients that translate it are mapped back. */
  status: string;
}

export type OrderRef = { orderId: string } | { clientOrderId: string };

/** Where a client is pointed, and with which credentials. */
export interface Target {
  url: string;
  apiKey: string;
  apiSecret: string;
}

/** What every error scenario must raise, in the client's own terms. */
export type ErrorScenario =
  | "unknown order queried (-2013)"
  | "unknown order cancelled (-2011)"
  | "LIMIT_MAKER that would take (-2010)"
  | "unknown symbol (-1121)"
  | "stale timestamp (-1021)"
  | "wrong signature (-1022)"
  | "unknown API key (-2015)"
  | "request weight over the limit (429, -1003)"
  | "IP banned after repeated 429s (418, -1003)";

/**
 * One client as the suite drives it. A method the client does not offer is left out and listed in
 * `notOffered` with the reason; every call returns what the client returned, normalized.
 */
export interface InteropClient {
  /** The package and version, as pinned in package.json. */
  name: string;
  /** How the client is pointed at the server (its documented option). */
  pointedBy: string;
  create(target: Target): Client;
  /** In-scope calls the client has no method for, and calls the suite must not make, with why. */
  notOffered: Readonly<Record<string, string>>;
  orderTypes: readonly OrderType[];
  /** Checks that an error is what the client raises for the scenario against the live API. */
  expectError: Readonly<Record<ErrorScenario, (error: unknown) => void>>;
}

/** A balance as the client shows it: what the account may spend and what its open orders hold. */
export interface BalanceSeen {
  free: number;
  locked: number;
}

/** Balances by asset from the live API's list (`balances` of GET /api/v3/account), as numbers. */
export function balancesByAsset(list: readonly { asset: unknown; free: unknown; locked: unknown }[]) {
  return Object.fromEntries(
    list.map((b) => [String(b.asset), { free: Number(b.free), locked: Number(b.locked) }]),
  ) as Record<string, BalanceSeen>;
}

type Rows = readonly (readonly unknown[])[];
/** The open times of candles answered as the live API's rows. */
export const openTimesOf = (rows: unknown): number[] => (rows as Rows).map((row) => Number(row[0]));

export interface Client {
  ping?(): Promise<unknown>;
  time?(): Promise<number>;
  exchangeInfo?(symbols: readonly string[] | undefined): Promise<string[]>;
  depth?(symbol: string, limit: number): Promise<{ bids: number; asks: number; bestBid: number }>;
  trades?(symbol: string, limit: number): Promise<number[]>;
  historicalTrades?(symbol: string, limit: number, fromId: number): Promise<number[]>;
  aggTradesFromId?(symbol: string, fromId: number, limit: number): Promise<number[]>;
  /** The `T` (time) of each aggregate trade between the two times, inclusive. */
  aggTradesByTime?(symbol: string, startTime: number, endTime: number): Promise<number[]>;
  avgPrice?(symbol: string): Promise<number>;
  /** The symbols of the answer: one symbol (a string), several (an array), or all (undefined). */
  ticker?(kind: TickerKind, symbols: string | readonly string[] | undefined): Promise<string[]>;
  placeOrder?(order: OrderSpec): Promise<OrderSeen>;
  queryOrder?(symbol: string, ref: OrderRef): Promise<OrderSeen>;
  openOrders?(symbol: string): Promise<string[]>;
  allOrders?(symbol: string): Promise<string[]>;
  cancelOrder?(symbol: string, ref: OrderRef): Promise<OrderSeen>;
  cancelAll?(symbol: string): Promise<number>;
  // ---- the account views of the sandbox's document ----
  /** The account's balances by asset (GET /api/v3/account). */
  balances?(): Promise<Record<string, BalanceSeen>>;
  /** The ids of the account's trades on the symbol (GET /api/v3/myTrades). */
  myTrades?(symbol: string): Promise<number[]>;
  /** The open times of the newest candles (GET /api/v3/klines). */
  klines?(symbol: string, interval: "1m" | "1h", limit: number): Promise<number[]>;
}

const SYMBOL = "BTCUSDT";
const ALL_SYMBOLS = ["BTCUSDT", "ETHUSDT", "ETHBTC"];
/** Far below the seeded market (about 60000): rests on the book, never trades. */
const RESTING_BUY = "30000";
const ABOVE_MARKET = "90000";

const lookups: string[] = [];

/** Fails every host lookup other than the loopback names: the suite must never reach a network. */
export function guardLoopback(): void {
  const original = dns.lookup;
  const guarded = ((hostname: string, ...rest: unknown[]) => {
    if (hostname !== "localhost" && hostname !== "127.0.0.1" && hostname !== "::1") {
      lookups.push(hostname);
      const callback = rest.at(-1) as (error: Error) => void;
      const error = Object.assign(new Error(`interop suite: no network beyond loopback (${hostname})`), {
        code: "ENOTFOUND",
      });
      process.nextTick(() => callback(error));
      return {};
    }
    return (original as (...args: unknown[]) => unknown)(hostname, ...rest);
  }) as typeof dns.lookup;
  dns.lookup = guarded;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded; it was expected to fail");
}

function order(type: OrderType, side: "BUY" | "SELL" = "BUY"): OrderSpec {
  const spec: OrderSpec = { symbol: SYMBOL, side, type, quantity: "0.01" };
  switch (type) {
    case "LIMIT":
    case "LIMIT_MAKER":
      return { ...spec, price: RESTING_BUY };
    case "MARKET":
      return spec;
    // Stops on the side of the market where they wait (SELL stop below, SELL take-profit above).
    case "STOP_LOSS":
      return { ...spec, side: "SELL", stopPrice: RESTING_BUY };
    case "STOP_LOSS_LIMIT":
      return { ...spec, side: "SELL", stopPrice: RESTING_BUY, price: RESTING_BUY };
    case "TAKE_PROFIT":
      return { ...spec, side: "SELL", stopPrice: ABOVE_MARKET };
    case "TAKE_PROFIT_LIMIT":
      return { ...spec, side: "SELL", stopPrice: ABOVE_MARKET, price: ABOVE_MARKET };
  }
}

const IN_SCOPE = [
  "ping",
  "time",
  "exchangeInfo",
  "depth",
  "trades",
  "historicalTrades",
  "aggTradesFromId",
  "aggTradesByTime",
  "avgPrice",
  "ticker",
  "placeOrder",
  "queryOrder",
  "openOrders",
  "allOrders",
  "cancelOrder",
  "cancelAll",
  "balances",
  "myTrades",
  "klines",
] as const;

/** The whole suite for one client. */
export function describeInterop(subject: InteropClient): void {
  describe(`${subject.name} (pointed by ${subject.pointedBy})`, () => {
    let server: RunningServer;
    let client: Client;
    const extra: RunningServer[] = [];
    const serverWith = async (options: StartServerOptions): Promise<Target> => {
      const started = await startServer({ port: 0, ...options });
      extra.push(started);
      return { url: started.url, ...started.demo };
    };

    beforeAll(async () => {
      guardLoopback();
      server = await startServer({ port: 0, seed: 3 });
      client = subject.create({ url: server.url, ...server.demo });
    });
    afterAll(async () => {
      await Promise.all([server?.close(), ...extra.map((s) => s.close())]);
      expect(lookups, "host lookups beyond loopback").toEqual([]);
    });

    const call = <K extends (typeof IN_SCOPE)[number]>(name: K): NonNullable<Client[K]> => {
      const method = client[name];
      if (method === undefined) throw new Error(`${subject.name} has no ${name}`);
      return (method as (...args: unknown[]) => unknown).bind(client) as NonNullable<Client[K]>;
    };
    const offered = (name: string) => !(name in subject.notOffered);
    const itOffered = (name: string, title: string, body: () => Promise<void>) =>
      offered(name) ? it(title, body) : undefined;

    it("offers every in-scope call, or says why not", () => {
      const probe = subject.create({ url: "http://127.0.0.1:9", apiKey: "k", apiSecret: "s" });
      for (const name of IN_SCOPE) {
        const has = probe[name] !== undefined;
        expect({ name, has }, subject.notOffered[name] ?? "").toEqual({ name, has: offered(name) });
      }
    });

    describe("market data", () => {
      itOffered("ping", "ping", async () => {
        await call("ping")();
      });
      itOffered("time", "server time", async () => {
        const before = Date.now();
        const time = await call("time")();
        expect(time).toBeGreaterThanOrEqual(before - 1000);
        expect(time).toBeLessThanOrEqual(Date.now() + 1000);
      });
      itOffered("exchangeInfo", "exchangeInfo: all, one and several symbols", async () => {
        const exchangeInfo = call("exchangeInfo");
        expect(await exchangeInfo(undefined)).toEqual(ALL_SYMBOLS);
        if (offered("exchangeInfo one")) expect(await exchangeInfo([SYMBOL])).toEqual([SYMBOL]);
        if (offered("exchangeInfo several")) {
          expect(await exchangeInfo(["ETHBTC", "BTCUSDT"])).toEqual(["ETHBTC", "BTCUSDT"]);
        }
      });
      itOffered("depth", "depth", async () => {
        const book = await call("depth")(SYMBOL, 5);
        const want = server.exchange.depth(SYMBOL, 5);
        expect(book).toEqual({ bids: 5, asks: 5, bestBid: Number(want.bids[0]?.[0]) });
      });
      itOffered("trades", "recent trades (no API key needed)", async () => {
        const ids = await call("trades")(SYMBOL, 7);
        const want = server.exchange.trades(SYMBOL, 7).map((t) => t.id);
        expect(ids).toEqual(want);
      });
      itOffered("historicalTrades", "historical trades from an id", async () => {
        expect(await call("historicalTrades")(SYMBOL, 4, 10)).toEqual([10, 11, 12, 13]);
      });
      itOffered("aggTradesFromId", "aggregate trades by id", async () => {
        expect(await call("aggTradesFromId")(SYMBOL, 5, 3)).toEqual([5, 6, 7]);
      });
      itOffered("aggTradesByTime", "aggregate trades by time (epoch milliseconds)", async () => {
        const all = server.exchange.aggTrades(SYMBOL, { limit: 1000 });
        const start = all[Math.floor(all.length / 2)]?.T ?? 0;
        const end = start + 60_000;
        const times = await call("aggTradesByTime")(SYMBOL, start, end);
        expect(times.length).toBeGreaterThan(0);
        for (const time of times) expect(time).toBeGreaterThanOrEqual(start);
        for (const time of times) expect(time).toBeLessThanOrEqual(end);
        expect(times[0]).toBe(start);
      });
      itOffered("avgPrice", "average price", async () => {
        const price = await call("avgPrice")(SYMBOL);
        expect(price).toBeCloseTo(Number(server.exchange.avgPrice(SYMBOL).price), 6);
      });
      for (const kind of ["price", "bookTicker", "24hr"] as const) {
        itOffered("ticker", `${kind} ticker: one, all and several symbols`, async () => {
          const ticker = call("ticker");
          if (offered(`${kind} one`)) expect(await ticker(kind, SYMBOL)).toEqual([SYMBOL]);
          if (offered(`${kind} all`))
            expect((await ticker(kind, undefined)).sort()).toEqual([...ALL_SYMBOLS].sort());
          // Only the symbols asked for, as the live API answers `symbols`.
          if (offered(`${kind} several`)) {
            expect((await ticker(kind, ["ETHBTC", "BTCUSDT"])).sort()).toEqual(["BTCUSDT", "ETHBTC"]);
          }
        });
      }
    });

    describe("orders", () => {
      for (const type of subject.orderTypes) {
        it(`places a ${type} order and finds it by id and by client order id`, async () => {
          const placed = await call("placeOrder")(order(type));
          const want = type === "MARKET" ? "FILLED" : "NEW";
          expect(placed.status).toBe(want);
          expect(
            server.exchange.queryOrder("demo", { symbol: SYMBOL, orderId: Number(placed.orderId) }),
          ).toMatchObject({
            type,
            status: want,
          });
          if (offered("queryOrder")) {
            const byId = await call("queryOrder")(SYMBOL, { orderId: placed.orderId });
            expect(byId).toMatchObject({ orderId: placed.orderId, status: want });
            const byClientId = await call("queryOrder")(SYMBOL, { clientOrderId: placed.clientOrderId });
            expect(byClientId).toMatchObject({ orderId: placed.orderId, status: want });
          }
        });
      }
      if (subject.orderTypes.includes("MARKET") && offered("quoteOrderQty")) {
        it("places a MARKET order by quote amount (quoteOrderQty)", async () => {
          const placed = await call("placeOrder")({
            symbol: SYMBOL,
            side: "BUY",
            type: "MARKET",
            quoteOrderQty: "100",
          });
          expect(placed.status).toBe("FILLED");
        });
      }
      it("lists open and all orders, cancels by id and by client id, then cancels all", async () => {
        const first = await call("placeOrder")(order("LIMIT"));
        const second = await call("placeOrder")(order("LIMIT"));
        const third = await call("placeOrder")(order("LIMIT"));
        if (offered("openOrders")) {
          expect(await call("openOrders")(SYMBOL)).toEqual(
            expect.arrayContaining([first.orderId, second.orderId]),
          );
        }
        if (offered("allOrders")) {
          expect(await call("allOrders")(SYMBOL)).toEqual(
            expect.arrayContaining([first.orderId, third.orderId]),
          );
        }
        if (offered("cancelOrder")) {
          expect(await call("cancelOrder")(SYMBOL, { orderId: first.orderId })).toMatchObject({
            status: "CANCELED",
          });
          if (offered("cancelOrder by client id")) {
            const cancelled = await call("cancelOrder")(SYMBOL, { clientOrderId: second.clientOrderId });
            expect(cancelled).toMatchObject({ status: "CANCELED" });
          }
        }
        const open = server.exchange.openOrders("demo", SYMBOL).length;
        expect(open).toBeGreaterThan(0);
        expect(await call("cancelAll")(SYMBOL)).toBe(open);
        expect(server.exchange.openOrders("demo", SYMBOL)).toEqual([]);
      });
    });

    describe("errors map to the client's own exception types, as against the live API", () => {
      const scenario = (name: ErrorScenario, run: () => Promise<unknown>) =>
        it(name, async () => subject.expectError[name](await rejection(run())));

      scenario("unknown order queried (-2013)", () => call("queryOrder")(SYMBOL, { orderId: "987654321" }));
      scenario("unknown order cancelled (-2011)", () =>
        call("cancelOrder")(SYMBOL, { orderId: "987654321" }),
      );
      scenario("LIMIT_MAKER that would take (-2010)", () =>
        call("placeOrder")({ ...order("LIMIT_MAKER"), price: ABOVE_MARKET }),
      );
      scenario("unknown symbol (-1121)", () => call("ticker")("24hr", "NOPEUSDT"));
      scenario("stale timestamp (-1021)", async () => {
        // The server's clock runs two minutes ahead: every timestamp the client sends is stale.
        const ahead = await serverWith({ now: () => Date.now() + 120_000 });
        return subject.create(ahead).openOrders?.(SYMBOL);
      });
      scenario("wrong signature (-1022)", () =>
        subject.create({ url: server.url, apiKey: server.demo.apiKey, apiSecret: "not-the-secret" })
          .openOrders!(SYMBOL),
      );
      scenario("unknown API key (-2015)", () =>
        subject.create({ url: server.url, apiKey: "nobody-s-key", apiSecret: "s" }).openOrders!(SYMBOL),
      );
      const limited = () =>
        serverWith({
          now: stillClock,
          config: { rateLimits: { requestWeightPerMinute: 10, banAfter429s: 1, banSeconds: 120 } },
        });
      scenario("request weight over the limit (429, -1003)", async () => {
        const over = subject.create(await limited());
        await over.depth!(SYMBOL, 5);
        await over.depth!(SYMBOL, 5);
        return over.depth!(SYMBOL, 5);
      });
      scenario("IP banned after repeated 429s (418, -1003)", async () => {
        const over = subject.create(await limited());
        await over.depth!(SYMBOL, 5);
        await over.depth!(SYMBOL, 5);
        await rejection(over.depth!(SYMBOL, 5)); // 429, the one the configuration allows
        return over.depth!(SYMBOL, 5); // going on after it: banned
      });
    });

    describe("account views (the sandbox's document): the client's own account calls", () => {
      itOffered("balances", "balances: free, and what open orders lock", async () => {
        await call("placeOrder")(order("LIMIT"));
        const seen = await call("balances")();
        const want = server.exchange.accountInformation("demo").balances;
        expect(Object.keys(seen).sort()).toEqual(want.map((b) => b.asset).sort());
        for (const b of want) {
          expect(seen[b.asset]?.free, b.asset).toBeCloseTo(Number(b.free), 8);
          expect(seen[b.asset]?.locked, b.asset).toBeCloseTo(Number(b.locked), 8);
        }
        expect(seen.USDT?.locked).toBeGreaterThan(0);
      });
      itOffered("myTrades", "the account's own trades", async () => {
        await call("placeOrder")(order("MARKET"));
        const ids = await call("myTrades")(SYMBOL);
        const want = server.exchange.myTrades("demo", { symbol: SYMBOL }).map((t) => t.id);
        expect(want.length).toBeGreaterThan(0);
        expect(ids).toEqual(want);
      });
      for (const interval of ["1m", "1h"] as const) {
        itOffered("klines", `candles (${interval}), the newest ones`, async () => {
          const want = () =>
            server.exchange
              .klines(SYMBOL, { interval, offsetMs: 0, limit: 5, startTime: undefined, endTime: undefined })
              .map((row) => row[0]);
          // A new candle may open between the two reads: the client's answer is one of the two.
          const before = want();
          const seen = await call("klines")(SYMBOL, interval, 5);
          expect([before, want()]).toContainEqual(seen);
          expect(seen.length).toBeGreaterThan(0);
        });
      }
    });
  });
}
