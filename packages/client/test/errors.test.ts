// Failures: missing credentials (nothing is sent), API errors as results or as SpotApiError,
// the response-validation hook, and the rate-limit headers of every answer.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createSpotClient,
  MissingCredentialsError,
  ResponseValidationError,
  rateLimitsOf,
  SpotApiError,
  SpotClientError,
} from "../src/index.js";
import { type SpotServer, startSpotServer } from "./support/spot-server.js";

let server: SpotServer;
beforeAll(async () => {
  server = await startSpotServer("secret");
});
afterEach(() => {
  server.answer = undefined;
});
afterAll(() => server.close());

const mandatory = {
  code: -1102,
  msg: "Mandatory parameter 'price' was not sent, was empty/null, or malformed.",
};

describe("missing credentials", () => {
  it.each([
    [
      "new_order",
      {},
      ["apiKey", "apiSecret"],
      "new_order (authentication class trade) needs apiKey and apiSecret: pass them in the client's options",
    ],
    [
      "open_orders",
      { apiKey: "k" },
      ["apiSecret"],
      "open_orders (authentication class user_data) needs apiSecret",
    ],
    [
      "cancel_order",
      { apiSecret: "s" },
      ["apiKey"],
      "cancel_order (authentication class trade) needs apiKey",
    ],
  ] as const)("%s with %j throws before sending", async (id, credentials, missing, message) => {
    const before = server.received.length;
    const client = createSpotClient({ baseUrl: server.baseUrl, ...credentials });
    const call = (client as unknown as Record<string, (p: unknown) => Promise<unknown>>)[id]!;
    const error = (await call({ symbol: "BTCUSDT", side: "BUY", type: "MARKET", orderId: 1 }).catch(
      (e: unknown) => e,
    )) as MissingCredentialsError;
    expect(error).toBeInstanceOf(MissingCredentialsError);
    expect(error).toBeInstanceOf(SpotClientError);
    expect(error.message).toContain(message);
    expect(error).toMatchObject({ operationId: id, missing });
    expect(server.received.length).toBe(before);
  });

  it("applies to path-based calls too", async () => {
    const client = createSpotClient({ baseUrl: server.baseUrl, apiKey: "k" });
    await expect(
      client.GET("/api/v3/allOrders", { params: { query: { symbol: "BTCUSDT" } } }),
    ).rejects.toThrow("all_orders (authentication class user_data) needs apiSecret");
  });

  it("is not needed by operations of class none", async () => {
    const { error } = await createSpotClient({ baseUrl: server.baseUrl }).ping();
    expect(error).toBeUndefined();
  });
});

describe("API errors", () => {
  it("are returned as the typed { code, msg } error by default", async () => {
    server.answer = () => ({ status: 400, body: mandatory });
    const client = createSpotClient({ baseUrl: server.baseUrl, apiKey: "k", apiSecret: "s" });
    const { data, error, response } = await client.new_order({
      symbol: "BTCUSDT",
      side: "BUY",
      type: "LIMIT",
    });
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(error).toEqual(mandatory);
  });

  it("throw a SpotApiError with throwOnError", async () => {
    server.answer = () => ({ status: 400, body: mandatory });
    const client = createSpotClient({
      baseUrl: server.baseUrl,
      apiKey: "k",
      apiSecret: "s",
      throwOnError: true,
    });
    const error = await client
      .new_order({ symbol: "BTCUSDT", side: "BUY", type: "LIMIT", quantity: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpotApiError);
    expect(error).toMatchObject({ status: 400, code: -1102, msg: mandatory.msg, method: "POST" });
    expect((error as SpotApiError).message).toBe(
      `400 Bad Request: POST ${server.baseUrl}/api/v3/order: -1102 ${mandatory.msg}`,
    );
    expect((error as SpotApiError).url).toMatch(
      new RegExp(
        `^${server.baseUrl}/api/v3/order\\?symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=1&newClientOrderId=[0-9a-f]{32}&timestamp=\\d+&signature=`,
      ),
    );
  });

  it("describe a body that is not an API error", async () => {
    server.answer = () => ({ status: 502, text: "<html>upstream down</html>\n" });
    const client = createSpotClient({ baseUrl: server.baseUrl, throwOnError: true });
    const error = (await client.ping().catch((e: unknown) => e)) as SpotApiError;
    expect(error.code).toBeUndefined();
    expect(error.message).toBe(
      `502 Bad Gateway: GET ${server.baseUrl}/api/v3/ping: <html>upstream down</html>`,
    );
  });

  it("carry the rate-limit headers (Retry-After on 429)", async () => {
    server.answer = () => ({
      status: 429,
      body: { code: -1003, msg: "Too much request weight used." },
      headers: { "Retry-After": "30", "X-MBX-USED-WEIGHT-1M": "6001" },
    });
    // No resends: two of them would each wait the 30 s of Retry-After first.
    const client = createSpotClient({ baseUrl: server.baseUrl, throwOnError: true, retry: { attempts: 0 } });
    const error = (await client.server_time().catch((e: unknown) => e)) as SpotApiError;
    expect(error.rateLimits).toEqual({ usedWeight: { "1M": 6001 }, orderCount: {}, retryAfter: 30 });
  });

  it("leave successful answers alone with throwOnError", async () => {
    const client = createSpotClient({ baseUrl: server.baseUrl, throwOnError: true });
    const { data } = await client.server_time();
    expect(data.serverTime).toBe(1499827319559);
  });
});

describe("answers", () => {
  // Read as openapi-fetch reads them: an empty body, however it is framed, is no data.
  const cases = [
    { given: { status: 200, text: '{"a":1}' }, want: { data: { a: 1 } } },
    { given: { status: 200, text: "" }, want: { data: undefined } },
    { given: { status: 200, text: "", headers: { "Content-Length": "0" } }, want: { data: undefined } },
    { given: { status: 204, text: "" }, want: { data: undefined } },
    { given: { status: 400, text: "", headers: { "Content-Length": "0" } }, want: { error: undefined } },
    { given: { status: 400, text: "not JSON" }, want: { error: "not JSON" } },
  ];
  for (const { given, want } of cases) {
    it(`${given.status} ${JSON.stringify(given.text)}${given.headers ? " with Content-Length 0" : ""}`, async () => {
      server.answer = () => given;
      const result = await createSpotClient({ baseUrl: server.baseUrl, retry: false }).ping();
      const { response, ...read } = result as typeof result & { response: Response };
      expect(read).toEqual(want);
      expect(response.status).toBe(given.status);
    });
  }
});

describe("rateLimitsOf", () => {
  it("reads the weight and order counters of any result", async () => {
    server.answer = () => ({
      status: 200,
      body: {},
      headers: { "X-MBX-USED-WEIGHT-1M": "31", "X-MBX-ORDER-COUNT-10S": "1", "X-MBX-ORDER-COUNT-1D": "12" },
    });
    const client = createSpotClient({ baseUrl: server.baseUrl });
    const result = await client.GET("/api/v3/ping");
    expect(rateLimitsOf(result)).toEqual({ usedWeight: { "1M": 31 }, orderCount: { "10S": 1, "1D": 12 } });
    expect(rateLimitsOf(result.response)).toEqual(rateLimitsOf(result));
  });

  it("ignores headers that are not counters", () => {
    const response = new Response(null, {
      headers: { "X-MBX-USED-WEIGHT": "3", "X-MBX-USED-WEIGHT-1M": "abc", "Retry-After": "Wed, 21 Oct 2015" },
    });
    expect(rateLimitsOf(response)).toEqual({ usedWeight: {}, orderCount: {} });
  });
});

describe("validateResponse", () => {
  it("sees every answer with its operationId and status", async () => {
    const seen: unknown[] = [];
    const client = createSpotClient({
      baseUrl: server.baseUrl,
      validateResponse: (operationId, status, body, options) => {
        seen.push([operationId, status, body, options]);
        return { valid: true };
      },
    });
    await client.current_average_price({ symbol: "BNBBTC" });
    expect(seen).toEqual([
      [
        "current_average_price",
        200,
        { mins: 5, price: "9.35751834", closeTime: 1694061154503 },
        { request: { symbol: "BNBBTC" } },
      ],
    ]);
  });

  it("turns a rejected answer into a ResponseValidationError", async () => {
    server.answer = () => ({ status: 200, body: { serverTime: "now" } });
    const client = createSpotClient({
      baseUrl: server.baseUrl,
      validateResponse: async () => ({
        valid: false,
        errors: [{ instancePath: "/serverTime", message: "/serverTime must be integer" }],
      }),
    });
    const error = (await client.server_time().catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toBe(
      "server_time: the 200 answer does not match the spec: /serverTime must be integer",
    );
    expect(error).toMatchObject({ operationId: "server_time", status: 200, body: { serverTime: "now" } });
  });
});

describe("options", () => {
  it("refuses a recvWindow outside 1..60000", () => {
    expect(() => createSpotClient({ baseUrl: "http://x", recvWindow: 60001 })).toThrow(RangeError);
  });

  it("sends the client's headers and the per-call headers", async () => {
    const client = createSpotClient({ baseUrl: server.baseUrl, headers: { "User-Agent": "marketapi-test" } });
    await client.ping(undefined, { headers: { "X-Trace": "42" } });
    expect(server.received.at(-1)?.headers).toMatchObject({
      "user-agent": "marketapi-test",
      "x-trace": "42",
    });
  });

  it("sends through the given fetch, as fetch(url, init), init holding only what differs from fetch's defaults", async () => {
    const calls: unknown[] = [];
    const client = createSpotClient({
      baseUrl: server.baseUrl,
      apiKey: "k",
      apiSecret: "s",
      fetch: (input, init) => {
        calls.push([input, init]);
        return fetch(input, init);
      },
    });
    await client.recent_trades_list({ symbol: "BTCUSDT" });
    await client.ping();
    // fetch's own options pass through; the method stays the operation's.
    await client.ping(undefined, { cache: "no-store", method: "POST" } as never);
    await client.new_order({ symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: "1" });
    expect(calls).toEqual([
      [`${server.baseUrl}/api/v3/trades?symbol=BTCUSDT`, { headers: { "x-mbx-apikey": "k" } }],
      // Each member of init costs fetch work: a GET without headers gets none.
      [`${server.baseUrl}/api/v3/ping`, {}],
      [`${server.baseUrl}/api/v3/ping`, { cache: "no-store" }],
      [
        expect.stringMatching(/\/api\/v3\/order\?symbol=BTCUSDT&.*&signature=[0-9a-f]{64}$/),
        { method: "POST", headers: { "x-mbx-apikey": "k" } },
      ],
    ]);
  });

  it("gives the given fetch init.headers as a plain object, merged as openapi-fetch merges them", async () => {
    const seen: unknown[] = [];
    const client = createSpotClient({
      baseUrl: server.baseUrl,
      apiKey: "k",
      headers: { "X-Trace": "1", "X-List": "a", "X-Gone": "x" },
      fetch: (input, init) => {
        seen.push(init?.headers);
        return fetch(input, init);
      },
    });
    // Names compare in lower case; a later value wins, a list appends, null removes.
    const headers = { "x-trace": "2", "X-LIST": ["b", "c"], "X-Gone": null };
    await client.recent_trades_list({ symbol: "BTCUSDT" }, { headers });
    await client.recent_trades_list({ symbol: "BTCUSDT" });
    expect(seen).toEqual([
      { "x-trace": "2", "x-list": "a, b, c", "x-mbx-apikey": "k" },
      { "x-trace": "1", "x-list": "a", "x-gone": "x", "x-mbx-apikey": "k" },
    ]);
    expect(Object.getPrototypeOf(seen[0])).toBe(Object.prototype);
  });

  it("gives middleware real Requests, carrying the credentials and the signature", async () => {
    const seen: string[] = [];
    const client = createSpotClient({
      baseUrl: server.baseUrl,
      apiKey: "k",
      apiSecret: "secret",
      now: () => 1,
    });
    client.use({
      onRequest: ({ request }) => {
        expect(request).toBeInstanceOf(Request);
        seen.push(`${request.method} ${request.url} ${request.headers.get("X-MBX-APIKEY")}`);
      },
    });
    await client.open_orders({ symbol: "BTCUSDT" });
    expect(seen).toEqual([
      expect.stringMatching(
        new RegExp(
          `^GET ${server.baseUrl}/api/v3/openOrders\\?symbol=BTCUSDT&timestamp=1&signature=[0-9a-f]{64} k$`,
        ),
      ),
    ]);
    expect(server.received.at(-1)?.signature?.valid).toBe(true);
  });

  it("gives per-call middleware a real Request", async () => {
    let method = "";
    const client = createSpotClient({ baseUrl: server.baseUrl });
    const { data } = await client.GET("/api/v3/time", {
      middleware: [
        {
          onRequest: ({ request }) => {
            method = request instanceof Request ? request.method : "not a Request";
          },
        },
      ],
    });
    expect(method).toBe("GET");
    expect(data?.serverTime).toBe(1499827319559);
  });

  it("passes an abort signal through", async () => {
    const client = createSpotClient({ baseUrl: server.baseUrl });
    await expect(client.ping(undefined, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
  });
});
