// The README's table of live-API extras, row by row: every row has a check here that sends what
// the row describes to a real server on 127.0.0.1 and expects what the row says, and every check
// has its row. A row added to the README without a check, or a check without a row, fails.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";
import { type RawResponse, send, sendSigned } from "./support/http.js";
import { stillClock } from "./support/still-clock.js";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The first-column ids of the table under "## Live-API extras". */
function tableIds(): string[] {
  const section = README.split(/^## /m).find((part) => part.startsWith("Live-API extras")) ?? "";
  return [...section.matchAll(/^\| `([a-z0-9-]+)`/gm)].map((match) => match[1] as string);
}

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 5, recvWindowDecimals: true });
});
afterAll(() => server.close());

const get = (path: string, query = "", headers?: Record<string, string>) =>
  send(server.url, { path, query, ...(headers ? { headers } : {}) });
const signed = (
  method: string,
  path: string,
  query: string,
  extra: { recvWindow?: number; timestamp?: number } = {},
) => sendSigned(server.url, { ...server.demo, method, path, query, ...extra });
function expectError(res: RawResponse, status: number, code: number, msg?: string | RegExp): void {
  expect(res.status, res.text).toBe(status);
  expect(res.json).toMatchObject({ code });
  if (msg !== undefined) expect((res.json as { msg: string }).msg).toMatch(msg);
}

const symbolsOf = (res: RawResponse) => (res.json as { symbol: string }[]).map((t) => t.symbol);
const enc = (value: unknown) => encodeURIComponent(JSON.stringify(value));

const checks: Record<string, () => Promise<void>> = {
  "ticker-symbols": async () => {
    for (const path of ["/api/v3/ticker/price", "/api/v3/ticker/bookTicker", "/api/v3/ticker/24hr"]) {
      const res = await get(path, `symbols=${enc(["ETHBTC", "BTCUSDT"])}`);
      expect(res.status).toBe(200);
      expect(symbolsOf(res)).toEqual(["ETHBTC", "BTCUSDT"]);
      expect(res.headers["x-mbx-used-weight-1m"]).toBeDefined();
      expectError(await get(path, `symbols=${enc(["NOPE"])}`), 400, -1121, /^Invalid symbol\.$/);
      expectError(await get(path, `symbols=${enc(["ETHBTC", "ETHBTC"])}`), 400, -1151);
      expectError(await get(path, "symbols=ETHBTC,BTCUSDT"), 400, -1100, /legal range is/);
      expectError(await get(path, `symbol=ETHBTC&symbols=${enc(["ETHBTC"])}`), 400, -1128);
    }
  },
  "ticker-type": async () => {
    const mini = await get("/api/v3/ticker/24hr", "symbol=BTCUSDT&type=MINI");
    expect(Object.keys(mini.json as object).sort()).toEqual(
      ["symbol", "openPrice", "highPrice", "lowPrice", "lastPrice", "volume", "quoteVolume"]
        .concat(["openTime", "closeTime", "firstId", "lastId", "count"])
        .sort(),
    );
    const full = await get("/api/v3/ticker/24hr", "symbol=BTCUSDT&type=FULL");
    expect(full.json).toHaveProperty("weightedAvgPrice");
    expectError(await get("/api/v3/ticker/24hr", "type=TINY"), 400, -1139, /^Invalid ticker type\.$/);
  },
  "depth-limit-cap": async () => {
    const res = await get("/api/v3/depth", "symbol=BTCUSDT&limit=6000");
    expect(res.status).toBe(200);
    const book = res.json as { bids: unknown[] };
    expect(book.bids.length).toBe(server.exchange.depth("BTCUSDT", 5000).bids.length);
    expect(res.headers["x-mbx-used-weight-1m"]).toBeDefined();
  },
  "recvwindow-decimals": async () => {
    const query = (window: string) => `symbol=BTCUSDT&recvWindow=${window}`;
    expect((await signed("GET", "/api/v3/openOrders", query("6000.346"))).status).toBe(200);
    expectError(
      await signed("GET", "/api/v3/openOrders", query("6000.3461")),
      400,
      -1111,
      /^Parameter 'recvWindow' has too much precision\.$/,
    );
    expectError(
      await signed("GET", "/api/v3/openOrders", query("60000.5")),
      400,
      -1102,
      /^'recvWindow' contains unexpected value\. Cannot be greater than 60000\.$/,
    );
    // Not decimal text at all: the live API's -1100 quotes its decimal pattern.
    for (const window of ["6000.3.4", "6000.", "1e3"]) {
      expectError(
        await signed("GET", "/api/v3/openOrders", query(window)),
        400,
        -1100,
        /^Illegal characters found in parameter 'recvWindow'; legal range is '\^\(\[0-9\]\{1,20\}\)\(\\\.\[0-9\]\{1,20\}\)\?\$'\.$/,
      );
    }
    const order = "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.01&price=30000";
    expect((await signed("POST", "/api/v3/order", `${order}&recvWindow=5000.5`)).status).toBe(200);
  },
  "recvwindow-everywhere": async () => {
    const placed = await signed(
      "POST",
      "/api/v3/order",
      "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.01&price=30000",
      {
        recvWindow: 10000,
      },
    );
    const { orderId } = placed.json as { orderId: number };
    for (const [method, path, query] of [
      ["GET", "/api/v3/order", `symbol=BTCUSDT&orderId=${orderId}`],
      ["GET", "/api/v3/openOrders", "symbol=BTCUSDT"],
      ["GET", "/api/v3/allOrders", "symbol=BTCUSDT"],
      ["DELETE", "/api/v3/order", `symbol=BTCUSDT&orderId=${orderId}`],
      ["DELETE", "/api/v3/openOrders", "symbol=BTCUSDT"],
    ] as const) {
      const res = await signed(method, path, query, { recvWindow: 10000 });
      expect({ path, method, status: res.status }).toEqual({ path, method, status: 200 });
    }
  },
  "legacy-weight-header": async () => {
    const ok = await get("/api/v3/ping");
    expect(ok.headers["x-mbx-used-weight"]).toBe(ok.headers["x-mbx-used-weight-1m"]);
    const failed = await get("/api/v3/depth", "symbol=NOPE");
    expect(failed.headers["x-mbx-used-weight"]).toBe(failed.headers["x-mbx-used-weight-1m"]);
  },
  "ban-418": async () => {
    const limited = await startServer({
      port: 0,
      now: stillClock,
      config: { rateLimits: { requestWeightPerMinute: 2, banAfter429s: 2, banSeconds: 60 } },
    });
    try {
      const ping = () => send(limited.url, { path: "/api/v3/ping" });
      expect((await ping()).status).toBe(200);
      expect((await ping()).status).toBe(200);
      expectError(
        await ping(),
        429,
        -1003,
        /Please use WebSocket Streams for live updates to avoid polling the API\.$/,
      );
      expectError(await ping(), 429, -1003);
      const banned = await ping();
      expectError(
        banned,
        418,
        -1003,
        /^Way too much request weight used; IP banned until \d+\. Please use WebSocket Streams/,
      );
      const retry = Number(banned.headers["retry-after"]);
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(60);
      expectError(await ping(), 418, -1003);
    } finally {
      await limited.close();
    }
  },
  "order-extras": async () => {
    const order = "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.01&price=30000";
    const placed = await signed(
      "POST",
      "/api/v3/order",
      `${order}&strategyId=7&strategyType=1000000&selfTradePreventionMode=NONE`,
    );
    expect(placed.json).toMatchObject({ strategyId: 7, strategyType: 1000000 });
    expectError(await signed("POST", "/api/v3/order", `${order}&strategyType=5`), 400, -1134);
    expectError(
      await signed("POST", "/api/v3/order", `${order}&selfTradePreventionMode=EXPIRE_TAKER`),
      400,
      -2010,
    );
    const { orderId } = placed.json as { orderId: number };
    const cancel = `symbol=BTCUSDT&orderId=${orderId}`;
    expectError(await signed("DELETE", "/api/v3/order", `${cancel}&cancelRestrictions=NEVER`), 400, -1145);
    expectError(
      await signed("DELETE", "/api/v3/order", `${cancel}&cancelRestrictions=ONLY_PARTIALLY_FILLED`),
      400,
      -2011,
    );
    const cancelled = await signed("DELETE", "/api/v3/order", `${cancel}&cancelRestrictions=ONLY_NEW`);
    expect(cancelled.json).toMatchObject({ status: "CANCELED" });
  },
  "unread-parameters": async () => {
    expectError(
      await get("/api/v3/depth", "symbol=BTCUSDT&depth=5"),
      400,
      -1104,
      /^Not all sent parameters were read; read '1' parameter\(s\) but was sent '2'\.$/,
    );
    // Counted as the live API counts: timestamp and signature included.
    expectError(
      await signed("GET", "/api/v3/openOrders", "symbol=BTCUSDT&created=1"),
      400,
      -1104,
      /^Not all sent parameters were read; read '3' parameter\(s\) but was sent '4'\.$/,
    );
  },
  "unimplemented-live": async () => {
    for (const [path, query, name] of [
      ["/api/v3/exchangeInfo", "permissions=SPOT", "permissions"],
      ["/api/v3/exchangeInfo", "showPermissionSets=false", "showPermissionSets"],
      ["/api/v3/depth", "symbol=BTCUSDT&symbolStatus=TRADING", "symbolStatus"],
      ["/api/v3/ticker/price", "symbolStatus=TRADING", "symbolStatus"],
    ] as const) {
      expectError(
        await get(path, query),
        400,
        -1104,
        new RegExp(`'${name}' is read by the live API but not implemented`),
      );
    }
    const peg =
      "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.01&price=30000&pegPriceType=PRIMARY_PEG";
    expectError(
      await signed("POST", "/api/v3/order", peg),
      400,
      -1104,
      /'pegPriceType' is read by the live API/,
    );
  },
};

describe("the README's table of live-API extras", () => {
  it("has exactly one check per row", () => {
    expect(tableIds().sort()).toEqual(Object.keys(checks).sort());
  });
  it.each(tableIds())("%s behaves as its row says", async (id) => {
    const check = checks[id];
    if (!check) throw new Error(`no check for the row ${id}`);
    await check();
  });
});

describe("recvWindow decimals are opt-in", () => {
  it("a server started without --recv-window-decimals refuses recvWindow=1.5 as the spec's integer", async () => {
    const plain = await startServer({ port: 0, seed: 5 });
    try {
      const res = await sendSigned(plain.url, {
        ...plain.demo,
        method: "GET",
        path: "/api/v3/openOrders",
        query: "symbol=BTCUSDT&recvWindow=6000.5",
      });
      expectError(res, 400, -1100, /legal range is '\^\[0-9\]\{1,20\}\$'/);
      const whole = await sendSigned(plain.url, {
        ...plain.demo,
        method: "GET",
        path: "/api/v3/openOrders",
        query: "symbol=BTCUSDT&recvWindow=6000",
      });
      expect(whole.status).toBe(200);
    } finally {
      await plain.close();
    }
  });
});
