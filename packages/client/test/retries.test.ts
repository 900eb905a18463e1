// Retries, timeouts, holds and the lookup of lost orders, against a stand-in exchange on 127.0.0.1
// that answers 429 with Retry-After, 418, 503, drops connections before or after accepting an
// order, answers 503 after accepting one, or never answers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type ApiDefinition,
  authentication,
  createApiClient,
  createSpotClient,
  LostRequestError,
  OutcomeUnknownError,
  operationTable,
  RequestHeldError,
  RequestTimeoutError,
  type RetryEvent,
  SpotApiError,
  type SpotClientOptions,
} from "../src/index.js";
import { type FaultyExchange, startFaultyExchange } from "./support/faulty-exchange.js";

let exchange: FaultyExchange;
beforeAll(async () => {
  exchange = await startFaultyExchange();
});
afterAll(() => exchange.close());
beforeEach(() => exchange.reset());

const ORDER = "POST /api/v3/order";
const LOOKUP = "GET /api/v3/order";
const order = { symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: "0.001" } as const;

function clientWith(extra: Partial<SpotClientOptions> = {}) {
  const events: RetryEvent[] = [];
  const client = createSpotClient({
    baseUrl: exchange.baseUrl,
    apiKey: "key",
    apiSecret: "secret",
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    onRetry: (event) => events.push(event),
    ...extra,
  });
  return { client, events };
}

const sent = (route: string) => exchange.arrivals.filter((a) => `${a.method} ${a.path}` === route);

describe("safe requests", () => {
  it("sends a GET again after a 503 and a dropped connection, and says why", async () => {
    exchange.script("GET /api/v3/ping", { kind: "status", status: 503 }, { kind: "drop", accept: false });
    const { client, events } = clientWith();
    const result = await client.ping();
    expect(result.response.status).toBe(200);
    expect(sent("GET /api/v3/ping")).toHaveLength(3);
    expect(events.map((e) => [e.reason, e.sent])).toEqual([
      ["5xx", 1],
      ["connection", 2],
    ]);
  });

  it("returns the last answer when every attempt failed", async () => {
    exchange.script(
      "GET /api/v3/ping",
      ...Array.from({ length: 3 }, () => ({ kind: "status", status: 503 }) as const),
    );
    const { client } = clientWith();
    expect((await client.ping()).response.status).toBe(503);
    expect(sent("GET /api/v3/ping")).toHaveLength(3);
  });

  it("times each send out, sends again, and throws a RequestTimeoutError when no send was answered", async () => {
    exchange.script("GET /api/v3/ping", { kind: "hang" }, { kind: "hang" });
    const { client, events } = clientWith({ timeoutMs: 50, retry: { attempts: 1, baseDelayMs: 1 } }); // time limit under test
    await expect(client.ping()).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(sent("GET /api/v3/ping")).toHaveLength(2);
    expect(events.map((e) => e.reason)).toEqual(["timeout"]);
  });

  it("takes a per-call timeout", async () => {
    exchange.script("GET /api/v3/ping", { kind: "hang" });
    const { client } = clientWith({ retry: false });
    await expect(client.ping(undefined, { timeoutMs: 30 })).rejects.toThrow("ping: no answer within 30 ms"); // time limit under test
  });

  it("gives fetch no signal while answers come in time; the timeout still ends the call", async () => {
    // fetch spends as much on a request's signal as the client on the rest of a call (Stalls).
    const given: (AbortSignal | undefined)[] = [];
    const fetch = (_input: string | Request, init?: RequestInit) => {
      const signal = init?.signal ?? undefined;
      given.push(signal);
      if (given.length === 1) return Promise.resolve(new Response("{}"));
      return new Promise<Response>((_resolve, reject) =>
        signal?.addEventListener("abort", () => reject(signal.reason)),
      );
    };
    const client = createSpotClient({ baseUrl: exchange.baseUrl, fetch, retry: false });
    expect((await client.ping()).response.status).toBe(200);
    await expect(client.ping(undefined, { timeoutMs: 30 })).rejects.toBeInstanceOf(RequestTimeoutError); // time limit under test
    expect(given).toEqual([undefined, undefined]);
  });

  it("after a timeout, gives fetch a shared signal that aborts the send, at most 64 sends to a signal", async () => {
    // fetch adds a listener to a request's signal that stays until the request is collected, and
    // each new listener walks the ones there: few sends to a signal keep that walk short.
    const signals: (AbortSignal | undefined)[] = [];
    const answers: (() => void)[] = [];
    let followAbort = true;
    const fetch = (_input: string | Request, init?: RequestInit) => {
      const signal = init?.signal ?? undefined;
      signals.push(signal);
      return new Promise<Response>((resolve, reject) => {
        answers.push(() => resolve(new Response("{}")));
        if (followAbort) signal?.addEventListener("abort", () => reject(signal.reason));
      });
    };
    const client = createSpotClient({ baseUrl: exchange.baseUrl, fetch, retry: false });
    await expect(client.ping(undefined, { timeoutMs: 30 })).rejects.toBeInstanceOf(RequestTimeoutError); // time limit under test
    expect(signals).toEqual([undefined]);
    signals.length = 0;
    answers.length = 0;
    const stalled = client.ping(undefined, { timeoutMs: 30 }); // time limit under test
    await expect(stalled).rejects.toBeInstanceOf(RequestTimeoutError);
    // The stalled send itself was stopped, not only the call's promise.
    expect(signals[0]?.aborted).toBe(true);
    followAbort = false;
    signals.length = 0;
    answers.length = 0;
    const calls = Array.from({ length: 1200 }, () => client.ping());
    await expect.poll(() => signals.length).toBe(1200);
    for (const answer of answers) answer();
    await Promise.all(calls);
    const perSignal = new Map<AbortSignal | undefined, number>();
    for (const signal of signals) perSignal.set(signal, (perSignal.get(signal) ?? 0) + 1);
    expect(perSignal.has(undefined)).toBe(false);
    expect(Math.max(...perSignal.values())).toBeLessThanOrEqual(64);
    expect(perSignal.size).toBeLessThan(40);
    expect(signals.some((signal) => signal!.aborted)).toBe(false);
  });

  it("follows both the caller's signal and the timeout", async () => {
    exchange.script("GET /api/v3/ping", { kind: "hang" }, { kind: "hang" });
    const { client } = clientWith({ retry: false });
    await expect(
      client.ping(undefined, { timeoutMs: 30, signal: new AbortController().signal }), // time limit under test
    ).rejects.toBeInstanceOf(RequestTimeoutError);
    let given: AbortSignal | undefined;
    const fetch = (_input: string | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        given = init?.signal ?? undefined;
        given?.addEventListener("abort", () => reject(given!.reason));
      });
    const held = createSpotClient({ baseUrl: exchange.baseUrl, fetch, retry: false });
    const controller = new AbortController();
    const call = held.ping(undefined, { signal: controller.signal });
    await expect.poll(() => given).toBeDefined();
    controller.abort(new Error("stopped by the caller"));
    // The send itself is stopped at once, not only the call's promise.
    expect(given!.aborted).toBe(true);
    await expect(call).rejects.toThrow("stopped by the caller");
  });

  it("never sends again with retry: false", async () => {
    exchange.script("GET /api/v3/ping", { kind: "status", status: 503 });
    const { client } = clientWith({ retry: false });
    expect((await client.ping()).response.status).toBe(503);
    expect(sent("GET /api/v3/ping")).toHaveLength(1);
  });
});

describe("the exchange's pauses", () => {
  it("waits a 429's Retry-After before sending again, and holds the client's other requests until then", async () => {
    exchange.script("GET /api/v3/ping", { kind: "status", status: 429, headers: { "Retry-After": "1" } });
    const { client, events } = clientWith();
    const first = client.ping();
    await expect.poll(() => events.length).toBe(1);
    const other = await client.order_book({ symbol: "BTCUSDT" });
    expect((await first).response.status).toBe(200);
    expect(other.response.status).toBe(200);
    expect(events[0]).toMatchObject({ reason: "429", waitMs: 1000 });
    // Nothing went out during the pause: the second request arrived a second or more after the 429.
    const [refused, resent] = sent("GET /api/v3/ping");
    expect(resent!.at - refused!.at).toBeGreaterThanOrEqual(1000);
    expect(sent("GET /api/v3/depth")[0]!.at - refused!.at).toBeGreaterThanOrEqual(1000);
  });

  it("holds every request during a 418 ban, and refuses to wait past maxWaitMs, saying until when, without sending", async () => {
    exchange.script("GET /api/v3/ping", { kind: "status", status: 418, headers: { "Retry-After": "60" } });
    const { client } = clientWith({ retry: { maxWaitMs: 1000 } });
    const banned = await client.ping();
    expect(banned.response.status).toBe(418);
    const held = await client.order_book({ symbol: "BTCUSDT" }).catch((e: unknown) => e);
    expect(held).toBeInstanceOf(RequestHeldError);
    expect((held as Error).message).toMatch(
      /^order_book not sent: it would wait until .*Z \(IP banned \(418\)\), over retry.maxWaitMs \(1000 ms\)$/,
    );
    expect(sent("GET /api/v3/depth")).toHaveLength(0);
  });

  it("sends after a short ban ends", async () => {
    exchange.script("GET /api/v3/ping", { kind: "status", status: 418, headers: { "Retry-After": "1" } });
    const { client, events } = clientWith();
    expect((await client.ping()).response.status).toBe(200);
    expect(events.map((e) => [e.reason, e.waitMs])).toEqual([["418", 1000]]);
  });

  it("throws SpotApiError on the final 429 with throwOnError", async () => {
    exchange.script("GET /api/v3/ping", { kind: "status", status: 429, headers: { "Retry-After": "3600" } });
    const { client } = clientWith({ throwOnError: true });
    await expect(client.ping()).rejects.toBeInstanceOf(SpotApiError);
    expect(sent("GET /api/v3/ping")).toHaveLength(1);
  });
});

describe("orders whose outcome is unknown", () => {
  it("sets a client order id the caller did not, and keeps the caller's", async () => {
    const { client } = clientWith();
    await client.new_order(order);
    await client.new_order({ ...order, newClientOrderId: "mine-1" });
    expect(exchange.orders.map((o) => o.clientOrderId)).toEqual([
      expect.stringMatching(/^[0-9a-f]{32}$/),
      "mine-1",
    ]);
  });

  it.each([
    { given: "the connection dropped after the order was accepted", fault: { kind: "drop", accept: true } },
    { given: "a 503 came after the order was accepted", fault: { kind: "unavailable-after-accept" } },
  ] as const)("$given: looks it up and returns it, never sending it again", async ({ fault }) => {
    exchange.script(ORDER, fault);
    const { client, events } = clientWith();
    const placed = await client.new_order(order);
    expect(placed.data).toBeUndefined();
    expect(placed.lookedUp).toMatchObject({ orderId: exchange.orders[0]!.orderId, status: "NEW" });
    expect(exchange.orders).toHaveLength(1);
    expect(sent(ORDER)).toHaveLength(1);
    expect(sent(LOOKUP)[0]!.query.get("origClientOrderId")).toBe(exchange.orders[0]!.clientOrderId);
    expect(events).toEqual([]);
  });

  it("sends again only once the lookup proves it absent after its receive window", async () => {
    exchange.script(ORDER, { kind: "drop", accept: false });
    const { client, events } = clientWith({ recvWindow: 200 });
    const placed = await client.new_order(order);
    expect(placed.data).toMatchObject({ orderId: exchange.orders[0]!.orderId });
    expect(exchange.orders).toHaveLength(1);
    const attempts = sent(ORDER);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.query.get("newClientOrderId")).toBe(attempts[0]!.query.get("newClientOrderId"));
    const lookups = sent(LOOKUP);
    expect(lookups).toHaveLength(2);
    // The second lookup came after the first send's timestamp + recvWindow: the server could no longer accept it.
    expect(lookups[1]!.at).toBeGreaterThan(Number(attempts[0]!.query.get("timestamp")) + 200);
    expect(events.map((e) => e.reason)).toEqual(["lookup", "lookup"]);
  });

  it("says the order was not carried out when no attempt is left", async () => {
    exchange.script(ORDER, { kind: "drop", accept: false });
    const { client } = clientWith({ recvWindow: 100, retry: { attempts: 0 } });
    const error = await client.new_order({ ...order, newClientOrderId: "lost-1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LostRequestError);
    expect((error as LostRequestError).key).toEqual({ name: "newClientOrderId", value: "lost-1" });
    expect(exchange.orders).toHaveLength(0);
  });

  it("throws OutcomeUnknownError, naming the client order id, when the lookup fails too", async () => {
    exchange.script(ORDER, { kind: "drop", accept: true });
    exchange.script(LOOKUP, ...Array.from({ length: 3 }, () => ({ kind: "drop", accept: false }) as const));
    const { client } = clientWith();
    const error = await client
      .new_order({ ...order, newClientOrderId: "unknown-1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as Error).message).toBe(
      "new_order (newClientOrderId=unknown-1) may or may not have been carried out: its lookup failed; not sent again",
    );
    expect(sent(ORDER)).toHaveLength(1);
  });

  it("never sends an order again, nor looks it up, with lookups off", async () => {
    exchange.script(ORDER, { kind: "drop", accept: true });
    const { client } = clientWith({ retry: { lookups: false } });
    await expect(client.new_order(order)).rejects.toThrow(
      /may or may not have been carried out: no answer, and retry.lookups is off/,
    );
    expect(sent(ORDER)).toHaveLength(1);
    expect(sent(LOOKUP)).toHaveLength(0);
  });

  it("sends an order refused with 429 again: it was not carried out", async () => {
    exchange.script(ORDER, { kind: "status", status: 429, headers: { "Retry-After": "0" } });
    const { client } = clientWith();
    expect((await client.new_order(order)).data).toMatchObject({ status: "NEW" });
    expect(exchange.orders).toHaveLength(1);
    expect(sent(ORDER)).toHaveLength(2);
  });
});

describe("a spec without the extensions", () => {
  // The spot API's table without its facts: what a foreign spec's generated client gets.
  const api = {
    operationTable,
    authentication,
    createOperationMethods: (call: (id: string, params: unknown, options: unknown) => unknown) => ({
      ping: (params: unknown, options: unknown) => call("ping", params, options),
      new_order: (params: unknown, options: unknown) => call("new_order", params, options),
    }),
  } as unknown as ApiDefinition;
  type Loose = Record<string, (params?: unknown, options?: unknown) => Promise<{ response: Response }>>;

  it("still sends a GET again after a 503 with Retry-After, and times out", async () => {
    exchange.script(
      "GET /api/v3/ping",
      { kind: "status", status: 503, headers: { "Retry-After": "0" } },
      { kind: "hang" },
    );
    // Long enough for an answer on a loaded machine; only the hung send runs into it.
    const client = createApiClient(api, { baseUrl: exchange.baseUrl, timeoutMs: 2_000 }) as unknown as Loose; // time limit under test
    expect((await client.ping!()).response.status).toBe(200);
    expect(sent("GET /api/v3/ping")).toHaveLength(3);
  });

  it("never sends a POST again when its answer was lost", async () => {
    exchange.script(ORDER, { kind: "drop", accept: true });
    const client = createApiClient(api, {
      baseUrl: exchange.baseUrl,
      apiKey: "k",
      apiSecret: "s",
    }) as unknown as Loose;
    await expect(client.new_order!(order)).rejects.toThrow(
      /no answer, and the spec states no x-outcome-lookup/,
    );
    expect(sent(ORDER)).toHaveLength(1);
    expect(exchange.orders[0]!.clientOrderId).toMatch(/^server-/);
  });
});

describe("the server's clock (syncClock)", () => {
  it("signs with the server's time, measured before the first signed request", async () => {
    exchange.clockOffsetMs = 3_600_000;
    exchange.checkTimestamps = true;
    const unsynced = clientWith();
    const refused = await unsynced.client.new_order(order);
    expect(refused.error?.code).toBe(-1021);
    const { client } = clientWith({ syncClock: true });
    expect((await client.new_order(order)).data).toMatchObject({ status: "NEW" });
    expect((await client.query_order({ symbol: "BTCUSDT", origClientOrderId: "x" })).error?.code).toBe(-2013);
    // One measurement (three readings) for both signed calls.
    expect(sent("GET /api/v3/time")).toHaveLength(3);
  });

  it("measures again after a -1021 and sends once more", async () => {
    exchange.checkTimestamps = true;
    const { client, events } = clientWith({ syncClock: true });
    await client.new_order(order);
    exchange.clockOffsetMs = -7_200_000;
    expect((await client.new_order(order)).data).toMatchObject({ status: "NEW" });
    expect(events.map((e) => e.reason)).toEqual(["clock"]);
    expect(sent("GET /api/v3/time")).toHaveLength(6);
    expect(exchange.orders).toHaveLength(2);
  });
});
