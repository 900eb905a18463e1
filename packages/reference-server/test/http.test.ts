import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readParams } from "../src/http/params.js";
import { splitTarget } from "../src/http/pipeline.js";
import { type RunningServer, startServer } from "../src/index.js";
import { isErrorBody, send, sendSigned } from "./support/http.js";
import { STILL_TIME, stillClock } from "./support/still-clock.js";

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ config: { maxBodyBytes: 1024 } });
});
afterAll(() => server.close());

describe("readParams", () => {
  it("decodes percent-encoding and '+', and lets the query win over the body", () => {
    const params = readParams("a=1&b=%5B%22X%22%5D", "a=2&c=x+y", 64, "signature");
    expect(Object.fromEntries(params.values)).toEqual({ a: "1", b: '["X"]', c: "x y" });
  });

  it("signs the raw bytes of both parts without the signature pair and without a separator", () => {
    expect(readParams("a=1&b=2&signature=ff", "", 64, "signature").signedPayload).toBe("a=1&b=2");
    expect(readParams("a=1", "b=2&signature=ff", 64, "signature").signedPayload).toBe("a=1b=2");
    expect(readParams("a=%5B1%5D&&b=2", "", 64, "signature").signedPayload).toBe("a=%5B1%5D&&b=2");
    expect(readParams("&a=1&signature=ff", "", 64, "signature").signedPayload).toBe("&a=1");
  });

  it("treats empty values as not sent", () => {
    expect([...readParams("symbol=&limit=5&flag", "", 64, "signature").values]).toEqual([["limit", "5"]]);
  });

  it("rejects malformed escapes (-1100), duplicates (-1101) and too many parameters (-1101)", () => {
    expect(() => readParams("a=%zz", "", 64, "signature")).toThrow(expect.objectContaining({ code: -1100 }));
    expect(() => readParams("%E0%A4%A=1", "", 64, "signature")).toThrow(
      expect.objectContaining({ code: -1100 }),
    );
    expect(() => readParams("a=1&a=2", "", 64, "signature")).toThrow(
      expect.objectContaining({ code: -1101 }),
    );
    const many = Array.from({ length: 70 }, (_, i) => `p${i}=1`).join("&");
    expect(() => readParams(many, "", 64, "signature")).toThrow(expect.objectContaining({ code: -1101 }));
  });
});

describe("readParams: names sent empty count and repeat like any other", () => {
  const counted: { query: string; body: string; sentCount: number }[] = [
    { query: "a=&b=1", body: "", sentCount: 2 },
    { query: "a&b=&c=1", body: "", sentCount: 3 },
    { query: "", body: "a=&b=1&signature=ff", sentCount: 3 },
    { query: "a=", body: "a=1", sentCount: 1 },
    { query: "a=&x=1", body: "b=&x=2", sentCount: 3 },
  ];
  it.each(counted)("$query | $body: $sentCount sent", ({ query, body, sentCount }) => {
    expect(readParams(query, body, 64, "signature").sentCount).toBe(sentCount);
  });

  it.each(["a=&a=1", "a=1&a=", "a=&a=", "a&a", "a=1&b=&a=2"])("%s is a duplicate (-1101)", (query) => {
    expect(() => readParams(query, "", 64, "signature")).toThrow(expect.objectContaining({ code: -1101 }));
  });
});

describe("splitTarget", () => {
  it("splits origin-form and absolute-form targets", () => {
    expect(splitTarget("/api/v3/depth?symbol=X")).toEqual({ path: "/api/v3/depth", query: "symbol=X" });
    expect(splitTarget("http://h:1/api/v3/ping")).toEqual({ path: "/api/v3/ping", query: "" });
    expect(splitTarget("/p?a=1#frag")).toEqual({ path: "/p", query: "a=1" });
  });
});

describe("routing", () => {
  it("answers 404 with {code,msg} for an unknown path", async () => {
    const res = await send(server.url, { path: "/api/v3/nothing" });
    expect(res.status).toBe(404);
    expect(isErrorBody(res.json)).toBe(true);
    expect(res.headers["x-mbx-used-weight-1m"]).toBeDefined();
  });

  it("answers 405 with Allow for a known path and another method", async () => {
    const res = await send(server.url, { method: "PUT", path: "/api/v3/order" });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("DELETE, GET, POST");
    expect(isErrorBody(res.json)).toBe(true);
    expect((await send(server.url, { method: "POST", path: "/api/v3/depth" })).headers.allow).toBe("GET");
  });
});

describe("parameters", () => {
  it("maps validation faults to the API's codes", async () => {
    const cases: [string, string, number][] = [
      ["/api/v3/depth", "limit=5", -1102],
      ["/api/v3/depth", "symbol=btcusdt", -1100],
      ["/api/v3/depth", "symbol=BTCUSDT&limit=abc", -1100],
      ["/api/v3/depth", "symbol=BTCUSDT&limit=0", -1100],
      ["/api/v3/depth", "symbol=NOPE", -1121],
      ["/api/v3/exchangeInfo", "symbol=BTCUSDT&symbols=%5B%22BTCUSDT%22%5D", -1128],
      ["/api/v3/exchangeInfo", "symbols=BTCUSDT,ETHUSDT", -1100],
      ["/api/v3/exchangeInfo", "symbols=%5B%22BTCUSDT%22,%22BTCUSDT%22%5D", -1151],
      ["/api/v3/exchangeInfo", "symbols=%5B%22NOPE%22%5D", -1121],
      ["/api/v3/aggTrades", "symbol=BTCUSDT&startTime=yesterday", -1100],
    ];
    for (const [path, query, code] of cases) {
      const res = await send(server.url, { path, query });
      expect({ path, query, status: res.status, body: res.json }).toMatchObject({
        status: 400,
        body: { code },
      });
    }
  });

  it("refuses parameters it does not read as the live API does (-1104), never ignoring them", async () => {
    for (const [path, query, read, sent] of [
      ["/api/v3/depth", "symbol=BTCUSDT&limit=5&foo=bar", 2, 3],
      ["/api/v3/ping", "timestamp=1", 0, 1],
      ["/api/v3/ticker/price", "symbol=BTCUSDT&type=FULL", 1, 2],
    ] as const) {
      const res = await send(server.url, { path, query });
      expect({ path, query, status: res.status, body: res.json }).toEqual({
        path,
        query,
        status: 400,
        body: {
          code: -1104,
          msg: `Not all sent parameters were read; read '${read}' parameter(s) but was sent '${sent}'.`,
        },
      });
    }
    const peg = await send(server.url, {
      path: "/api/v3/depth",
      query: "symbol=BTCUSDT&symbolStatus=TRADING",
    });
    expect(peg.json).toMatchObject({
      code: -1104,
      msg: expect.stringContaining("'symbolStatus' is read by the live API"),
    });
  });

  it("reads the live API's ticker extras: type=FULL on the 24-hour ticker", async () => {
    const res = await send(server.url, { path: "/api/v3/ticker/24hr", query: "symbol=BTCUSDT&type=FULL" });
    expect(res.status).toBe(200);
  });

  it("accepts symbols URL-encoded, with raw brackets, or with only the quotes encoded", async () => {
    for (const symbols of [
      "%5B%22BTCUSDT%22%2C%22ETHUSDT%22%5D",
      '["BTCUSDT","ETHUSDT"]',
      "[%22BTCUSDT%22,%22ETHUSDT%22]",
    ]) {
      const res = await send(server.url, { path: "/api/v3/exchangeInfo", query: `symbols=${symbols}` });
      expect(res.status).toBe(200);
      const names = (res.json as { symbols: { symbol: string }[] }).symbols.map((s) => s.symbol);
      expect(names).toEqual(["BTCUSDT", "ETHUSDT"]);
    }
  });

  it("maps the order-type rules: forbidden (-1106/-1114), missing (-1102), both quantities (-1128), enums", async () => {
    const order = (query: string) =>
      sendSigned(server.url, { ...server.demo, method: "POST", path: "/api/v3/order", query });
    const cases: [string, number][] = [
      ["symbol=BTCUSDT&side=BUY&type=MARKET&quantity=0.001&price=1", -1106],
      ["symbol=BTCUSDT&side=BUY&type=MARKET&quantity=0.001&timeInForce=GTC", -1114],
      ["symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=0.001&price=50000", -1102],
      ["symbol=BTCUSDT&side=BUY&type=MARKET", -1102],
      ["symbol=BTCUSDT&side=BUY&type=MARKET&quantity=0.001&quoteOrderQty=10", -1128],
      ["symbol=BTCUSDT&side=UP&type=MARKET&quantity=0.001", -1117],
      ["symbol=BTCUSDT&side=BUY&type=DOWN&quantity=0.001", -1116],
      ["symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=0.001&price=50000&timeInForce=NOW", -1115],
      ["symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=1e-3&price=50000&timeInForce=GTC", -1100],
      ["symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=0.001&price=50000.001&timeInForce=GTC", -1013],
      [
        "symbol=BTCUSDT&side=BUY&type=LIMIT&quantity=0.001&price=50000&timeInForce=GTC&newOrderRespType=X",
        -1100,
      ],
    ];
    for (const [query, code] of cases) {
      const res = await order(query);
      expect({ query, body: res.json }).toMatchObject({ body: { code } });
      expect(res.headers["x-mbx-order-count-10s"]).toBeUndefined();
    }
    const missing = await order("symbol=BTCUSDT&side=BUY&type=MARKET");
    expect((missing.json as { msg: string }).msg).toBe(
      "Param 'quantity' or 'quoteOrderQty' must be sent, but both were empty/null!",
    );
  });
});

describe("bodies", () => {
  const form = { "Content-Type": "application/x-www-form-urlencoded" };

  it("accepts content-type application/json with an empty body and no content-type at all", async () => {
    const variants: Record<string, string>[] = [
      { "Content-Type": "application/json", "Content-Length": "0" },
      {},
    ];
    for (const headers of variants) {
      const res = await sendSigned(server.url, {
        ...server.demo,
        method: "POST",
        path: "/api/v3/order",
        query: "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=40000",
        headers,
      });
      expect(res.status).toBe(200);
      expect(res.headers["x-mbx-order-count-10s"]).toMatch(/^[0-9]+$/);
      expect(res.headers["x-mbx-order-count-1d"]).toMatch(/^[0-9]+$/);
    }
  });

  it("rejects a non-empty JSON body with a {code,msg} 400", async () => {
    const res = await send(server.url, {
      method: "POST",
      path: "/api/v3/order",
      body: '{"symbol":"BTCUSDT"}',
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(isErrorBody(res.json)).toBe(true);
  });

  it("rejects a body over the limit and keeps serving", async () => {
    const res = await send(server.url, {
      method: "POST",
      path: "/api/v3/order",
      body: `a=${"x".repeat(5000)}`,
      headers: form,
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: -1101 });
    expect((await send(server.url, { path: "/api/v3/ping" })).status).toBe(200);
  });

  it("answers malformed HTTP and an oversized request line with a JSON error", async () => {
    const res = await send(server.url, { path: "/api/v3/depth", query: `symbol=${"A".repeat(20_000)}` });
    expect(res.status).toBe(414);
    expect(isErrorBody(res.json)).toBe(true);
  });
});

describe("rate limits", () => {
  it("counts weight per IP from x-weight (depth by limit) and sends 429 with Retry-After over the limit", async () => {
    const limited = await startServer({
      config: { rateLimits: { requestWeightPerMinute: 40 } },
      empty: true,
      now: stillClock,
    });
    try {
      const ping = await send(limited.url, { path: "/api/v3/ping" });
      expect(ping.headers["x-mbx-used-weight-1m"]).toBe("1");
      const depth = await send(limited.url, { path: "/api/v3/depth", query: "symbol=BTCUSDT&limit=500" });
      expect(depth.headers["x-mbx-used-weight-1m"]).toBe("26");
      await send(limited.url, { path: "/api/v3/exchangeInfo" });
      const over = await send(limited.url, { path: "/api/v3/exchangeInfo" });
      expect(over.status).toBe(429);
      expect(over.json).toMatchObject({ code: -1003 });
      expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
      const info = (await send(server.url, { path: "/api/v3/exchangeInfo" })).json as {
        rateLimits: unknown[];
      };
      expect(info.rateLimits).toContainEqual({
        rateLimitType: "REQUEST_WEIGHT",
        interval: "MINUTE",
        intervalNum: 1,
        limit: 1_000_000,
      });
    } finally {
      await limited.close();
    }
  });

  it("limits orders per account per 10 seconds with -1015", async () => {
    const limited = await startServer({ config: { rateLimits: { ordersPer10s: 2 } }, now: stillClock });
    try {
      const place = () =>
        sendSigned(limited.url, {
          ...limited.demo,
          method: "POST",
          path: "/api/v3/order",
          query: "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=40000",
          timestamp: STILL_TIME,
        });
      expect((await place()).headers["x-mbx-order-count-10s"]).toBe("1");
      expect((await place()).headers["x-mbx-order-count-10s"]).toBe("2");
      const third = await place();
      expect(third.status).toBe(429);
      expect(third.json).toMatchObject({ code: -1015 });
      expect(third.headers["retry-after"]).toBeDefined();
    } finally {
      await limited.close();
    }
  });
});
