// `--live-limits` (startServer's `liveLimits`): the live API's limits by one option. Request weight
// 6000 a minute per IP, orders 50 per 10 s and 160,000 a day per account, raw requests 61,000 per
// 5 minutes per IP; 429 with Retry-After past a limit, 418 once an IP goes on past its 429s. Every
// window is cut from the server's clock (an injected one here, as the sandbox clock drives it), so
// the test moves time instead of waiting for it, and counts instead of timing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIVE_RATE_LIMITS, RateLimiter } from "../src/http/rate-limits.js";
import { type RunningServer, startServer } from "../src/index.js";
import { type RawResponse, send, sendSigned } from "./support/http.js";

/** 10:00:00.000 UTC on a Monday: a minute, a 10-second window and a 5-minute window all begin. */
const T0 = Date.UTC(2024, 0, 15, 10, 0);
let clock = T0;
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, liveLimits: true, now: () => clock });
});
afterAll(() => server.close());

const depth5000 = () => send(server.url, { path: "/api/v3/depth", query: "symbol=BTCUSDT&limit=5000" });

function refused(res: RawResponse, status: number, code: number): void {
  expect(res.status, res.text).toBe(status);
  expect(res.json).toMatchObject({ code });
}

describe("--live-limits", () => {
  it("exchangeInfo states the live API's limits", async () => {
    const info = (await send(server.url, { path: "/api/v3/exchangeInfo" })).json as { rateLimits: unknown[] };
    expect(info.rateLimits).toEqual([
      { rateLimitType: "REQUEST_WEIGHT", interval: "MINUTE", intervalNum: 1, limit: 6000 },
      { rateLimitType: "ORDERS", interval: "SECOND", intervalNum: 10, limit: 50 },
      { rateLimitType: "ORDERS", interval: "DAY", intervalNum: 1, limit: 160_000 },
      { rateLimitType: "RAW_REQUESTS", interval: "MINUTE", intervalNum: 5, limit: 61_000 },
    ]);
  });

  it("6000 request weight a minute: 429 with Retry-After to the minute's end, then 418 for going on", async () => {
    clock = T0 + 60_000;
    // exchangeInfo above spent 20 in the previous minute, which is over: depth at 5000 weighs 250.
    for (let i = 1; i <= 24; i += 1) {
      const res = await depth5000();
      expect(res.status).toBe(200);
      expect(res.headers["x-mbx-used-weight-1m"]).toBe(String(250 * i));
    }
    clock += 15_000;
    const over = await depth5000();
    refused(over, 429, -1003);
    expect(over.headers["retry-after"]).toBe("45");
    // The live API bans an IP that keeps sending past its 429s; here after 10 of them.
    for (let i = 0; i < 9; i += 1) refused(await depth5000(), 429, -1003);
    const banned = await depth5000();
    refused(banned, 418, -1003);
    expect(banned.headers["retry-after"]).toBe("120");
    expect((banned.json as { msg: string }).msg).toContain(`IP banned until ${clock + 120_000}`);
    clock += 119_000;
    refused(await send(server.url, { path: "/api/v3/ping" }), 418, -1003);
    clock += 1000;
    expect((await send(server.url, { path: "/api/v3/ping" })).status).toBe(200);
  });

  it("50 orders per 10 seconds per account: -1015 with Retry-After; the next window takes orders again", async () => {
    clock = T0 + 10 * 60_000;
    const place = () =>
      sendSigned(server.url, {
        ...server.demo,
        method: "POST",
        path: "/api/v3/order",
        query: "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=30000",
        timestamp: clock,
      });
    for (let i = 1; i <= 50; i += 1) expect((await place()).headers["x-mbx-order-count-10s"]).toBe(String(i));
    clock += 3000;
    const over = await place();
    refused(over, 429, -1015);
    expect(over.headers["retry-after"]).toBe("7");
    clock += 7000;
    const next = await place();
    expect(next.status).toBe(200);
    expect(next.headers["x-mbx-order-count-10s"]).toBe("1");
    expect(next.headers["x-mbx-order-count-1d"]).toBe("51");
  });

  it("raw requests per 5 minutes, whatever their weight (here 3, over the live limits)", async () => {
    let at = T0;
    const few = await startServer({
      port: 0,
      liveLimits: true,
      config: { rateLimits: { rawRequestsPer5m: 3 } },
      now: () => at,
    });
    try {
      const ping = () => send(few.url, { path: "/api/v3/ping" });
      for (let i = 0; i < 3; i += 1) expect((await ping()).status).toBe(200);
      at += 60_000;
      const over = await ping();
      refused(over, 429, -1003);
      expect((over.json as { msg: string }).msg).toBe(
        "Too many requests; current limit is 3 requests per 5 MINUTE.",
      );
      expect(over.headers["retry-after"]).toBe("240");
      at += 240_000;
      expect((await ping()).status).toBe(200);
    } finally {
      await few.close();
    }
  });
});

describe("the rate limiter with the live limits", () => {
  it("160,000 orders a day per account, counted in the UTC day", () => {
    const limiter = new RateLimiter(LIVE_RATE_LIMITS);
    const day = Date.UTC(2024, 0, 15);
    // 10 seconds apart per 50 orders, so that only the day's limit can refuse.
    for (let i = 0; i < 160_000; i += 1) {
      const now = day + Math.floor(i / 50) * 10_000;
      limiter.checkOrderRate("a", now);
      limiter.countOrder("a", now);
    }
    const late = day + 86_000_000;
    expect(() => limiter.checkOrderRate("a", late)).toThrow(/160000 orders per 1 DAY/);
    expect(() => limiter.checkOrderRate("b", late)).not.toThrow();
    expect(() => limiter.checkOrderRate("a", day + 86_400_000)).not.toThrow();
  });

  it("61,000 raw requests per 5 minutes per IP", () => {
    const limiter = new RateLimiter(LIVE_RATE_LIMITS);
    const start = Date.UTC(2024, 0, 15, 10, 0);
    // Weight 0 requests, spread over the five minutes so that the weight limit never refuses them.
    for (let i = 0; i < 61_000; i += 1) limiter.spendWeight("ip", 0, start + Math.floor(i / 250) * 1000);
    expect(() => limiter.spendWeight("ip", 0, start + 299_000)).toThrow(/61000 requests per 5 MINUTE/);
    expect(() => limiter.spendWeight("other", 0, start + 299_000)).not.toThrow();
    expect(() => limiter.spendWeight("ip", 0, start + 300_000)).not.toThrow();
  });

  it("reset() forgets counts and bans", () => {
    const limiter = new RateLimiter({ ...LIVE_RATE_LIMITS, banAfter429s: 0 });
    expect(() => limiter.spendWeight("ip", 7000, T0)).toThrow();
    expect(() => limiter.spendWeight("ip", 1, T0)).toThrow(/banned/);
    limiter.reset();
    expect(limiter.spendWeight("ip", 1, T0)).toBe(1);
  });
});
