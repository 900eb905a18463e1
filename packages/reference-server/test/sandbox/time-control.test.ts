// Time control: the sandbox clock is the server's time everywhere: /api/v3/time, the signed
// requests' timestamp window, the rate-limit windows, bans and the statistics windows all move when
// the clock is advanced, with no real time waited.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/index.js";
import { send, sendSigned } from "../support/http.js";

const HOUR = 3_600_000;
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({
    port: 0,
    clock: { rate: 0 },
    config: {
      rateLimits: { requestWeightPerMinute: 40, ordersPer10s: 2, banAfter429s: 2, banSeconds: 120 },
    },
  });
});
afterAll(() => server.close());

const sandbox = () => {
  if (!server.sandbox) throw new Error("no sandbox");
  return server.sandbox;
};
const serverTime = async () =>
  ((await send(server.url, { path: "/api/v3/time" })).json as { serverTime: number }).serverTime;
/** A fresh minute of weight: the windows are the sandbox's, so an advance rolls them. */
const nextMinute = () => sandbox().advance({ ms: 60_000 });

function order(timestamp: number, price = "50000.00") {
  return sendSigned(server.url, {
    ...server.demo,
    method: "POST",
    path: "/api/v3/order",
    form: `symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=${price}`,
    timestamp,
  });
}

describe("the sandbox clock is the server's time", () => {
  it("/api/v3/time answers the sandbox time: paused, it stands; advanced a day, it is a day later", async () => {
    const before = await serverTime();
    expect(await serverTime()).toBe(before);
    await sandbox().advance({ ms: 24 * HOUR });
    expect(await serverTime()).toBe(before + 24 * HOUR);
  });

  it("signed requests are judged by the sandbox time: the machine's clock is a day behind, the synced one signs right", async () => {
    await nextMinute();
    const stale = await order(Date.now());
    expect(stale.status).toBe(400);
    expect((stale.json as { code: number }).code).toBe(-1021);
    const synced = await order(await serverTime());
    expect(synced.status, synced.text).toBe(200);
  });

  it("order-rate windows: 2 orders per 10 s, the third refused until the clock passes the window", async () => {
    await nextMinute();
    const counts = [];
    for (let i = 0; i < 3; i += 1) counts.push((await order(await serverTime())).status);
    expect(counts).toEqual([200, 200, 429]);
    await sandbox().advance({ ms: 10_000 });
    expect((await order(await serverTime())).status).toBe(200);
  });

  it("request-weight windows and bans run on the sandbox clock", async () => {
    await nextMinute();
    const statuses: number[] = [];
    // exchangeInfo weighs 20: two fit in a minute of 40, then 429s, then a ban (418).
    for (let i = 0; i < 6; i += 1)
      statuses.push((await send(server.url, { path: "/api/v3/exchangeInfo" })).status);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses).toContain(429);
    expect(statuses.at(-1)).toBe(418);
    const banned = await send(server.url, { path: "/api/v3/ping" });
    expect(banned.status).toBe(418);
    const until = Number(/banned until (\d+)/.exec((banned.json as { msg: string }).msg)?.[1]);
    // The ban's end is 120 s of sandbox time away: a minute later it still holds; at its end it is over.
    expect(until).toBe(sandbox().status().time + 120_000);
    await sandbox().advance({ ms: 60_000 });
    expect((await send(server.url, { path: "/api/v3/ping" })).status).toBe(418);
    await sandbox().advance({ to: until });
    expect((await send(server.url, { path: "/api/v3/ping" })).status).toBe(200);
  });

  it("statistics windows: a day advanced with no trading leaves the 24-hour ticker empty", async () => {
    await nextMinute();
    await sandbox().advance({ ms: 25 * HOUR });
    const ticker = (await send(server.url, { path: "/api/v3/ticker/24hr", query: "symbol=BTCUSDT" }))
      .json as {
      count: number;
      closeTime: number;
    };
    expect(ticker.count).toBe(0);
  });
});
