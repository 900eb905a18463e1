// The account views of the sandbox's own document (specs/sandbox.openapi.yaml) over HTTP: balances
// with what open orders lock, the account's trades with their paging and windows, candles of every
// live interval in any time zone; each answer checked by @marketapi/validators/sandbox. With
// --state, a restart shows the same balances, trades and candles, and a durable server answers as
// an in-memory one. The cost of a klines read is counted, never timed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { responseValidator, validateResponse } from "@marketapi/validators/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Candle,
  type CandleReader,
  createExchange,
  cutterFor,
  decimal as dec,
  KLINE_INTERVALS,
  type KlineInterval,
  type KlineRow,
  klines,
  MemoryHistory,
  type Trade,
} from "../src/engine/index.js";
import { type RunningServer, startServer } from "../src/index.js";
import { type RawResponse, send, sendSigned } from "./support/http.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Monday 2024-01-15 10:30:00 UTC. */
const T0 = Date.UTC(2024, 0, 15, 10, 30);
const ALICE = { apiKey: "alice-key", apiSecret: "alice-secret" };
const CONFIG = {
  accounts: [{ id: "alice", ...ALICE, balances: { USDT: "100000", BTC: "2", ETH: "0" } }],
};

let clock = T0;
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 3, now: () => clock, config: CONFIG });
});
afterAll(() => server.close());

const get = (path: string, query: string, headers?: Record<string, string>) =>
  send(server.url, { path, query, ...(headers ? { headers } : {}) });
const signed = (method: string, path: string, query: string, who = ALICE, headers?: Record<string, string>) =>
  sendSigned(server.url, { ...who, method, path, query, timestamp: clock, ...(headers ? { headers } : {}) });

function ok(res: RawResponse, operationId: string): unknown {
  expect(res.status, res.text).toBe(200);
  expect(validateResponse(operationId, 200, res.json)).toEqual({ valid: true });
  return res.json;
}
function refused(res: RawResponse, status: number, code: number): void {
  expect(res.status, res.text).toBe(status);
  expect(res.json).toMatchObject({ code });
  expect(validateResponse("account_trade_list", status, res.json)).toEqual({ valid: true });
}

async function order(query: string): Promise<{ orderId: number }> {
  clock += 1000;
  const res = await signed("POST", "/api/v3/order", `symbol=BTCUSDT&${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json as { orderId: number };
}

describe("account", () => {
  it("balances: free, what open orders lock, omitZeroBalances; its weight and updateTime", async () => {
    const before = ok(await signed("GET", "/api/v3/account", ""), "account_information") as {
      balances: { asset: string; free: string; locked: string }[];
    };
    expect(before.balances).toEqual([
      { asset: "BTC", free: "2.00000000", locked: "0.00000000" },
      { asset: "ETH", free: "0.00000000", locked: "0.00000000" },
      { asset: "USDT", free: "100000.00000000", locked: "0.00000000" },
    ]);
    await order("side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.01&price=30000");
    const res = await signed("GET", "/api/v3/account", "omitZeroBalances=true");
    expect(res.headers["x-mbx-used-weight-1m"]).toBe(String(20 + 1 + 20));
    const after = ok(res, "account_information") as Record<string, unknown>;
    expect(after).toMatchObject({
      makerCommission: 10,
      takerCommission: 10,
      commissionRates: { maker: "0.00100000", taker: "0.00100000" },
      accountType: "SPOT",
      permissions: ["SPOT"],
      updateTime: clock,
      balances: [
        { asset: "BTC", free: "2.00000000", locked: "0.00000000" },
        { asset: "USDT", free: "99700.00000000", locked: "300.00000000" },
      ],
    });
    // Another account sees its own.
    const demo = ok(await signed("GET", "/api/v3/account", "", server.demo), "account_information");
    expect(demo).toMatchObject({
      balances: expect.arrayContaining([{ asset: "USDT", free: "1000000.00000000", locked: "0.00000000" }]),
    });
    expect((demo as { uid: number }).uid).not.toBe(after.uid);
    refused(await get("/api/v3/account", ""), 401, -2014);
  });
});

describe("myTrades", () => {
  let trades: { id: number; orderId: number; time: number }[];
  let orderIds: number[];
  beforeAll(async () => {
    orderIds = [];
    for (let i = 0; i < 3; i += 1) {
      clock += 10 * MINUTE;
      orderIds.push((await order("side=BUY&type=MARKET&quantity=0.3")).orderId);
    }
    trades = ok(
      await signed("GET", "/api/v3/myTrades", "symbol=BTCUSDT"),
      "account_trade_list",
    ) as typeof trades;
  });

  it("answers the account's trades, oldest first, each trade of each of its orders", () => {
    expect(trades.map((t) => t.orderId).filter((id, i, all) => all.indexOf(id) === i)).toEqual(orderIds);
    expect(trades.length).toBeGreaterThan(3);
    expect(trades.map((t) => t.id)).toEqual([...trades.map((t) => t.id)].sort((a, b) => a - b));
    expect(trades).toEqual(server.exchange.myTrades("alice", { symbol: "BTCUSDT" }));
  });

  it("pages by fromId and limit, newest first without a lower bound", async () => {
    const from = trades[2]?.id as number;
    expect(
      ok(
        await signed("GET", "/api/v3/myTrades", `symbol=BTCUSDT&fromId=${from}&limit=2`),
        "account_trade_list",
      ),
    ).toEqual(trades.slice(2, 4));
    expect(
      ok(await signed("GET", "/api/v3/myTrades", "symbol=BTCUSDT&limit=2"), "account_trade_list"),
    ).toEqual(trades.slice(-2));
  });

  it("windows: startTime, endTime, both; at most 24 hours", async () => {
    const second = trades.find((t) => t.orderId === orderIds[1]) as { time: number };
    const since = ok(
      await signed("GET", "/api/v3/myTrades", `symbol=BTCUSDT&startTime=${second.time}`),
      "account_trade_list",
    );
    expect(since).toEqual(trades.filter((t) => t.time >= second.time));
    const until = ok(
      await signed("GET", "/api/v3/myTrades", `symbol=BTCUSDT&endTime=${second.time - 1}`),
      "account_trade_list",
    );
    expect(until).toEqual(trades.filter((t) => t.time < second.time));
    const both = `symbol=BTCUSDT&startTime=${second.time}&endTime=${second.time}`;
    expect(ok(await signed("GET", "/api/v3/myTrades", both), "account_trade_list")).toEqual(
      trades.filter((t) => t.time === second.time),
    );
    refused(
      await signed("GET", "/api/v3/myTrades", `symbol=BTCUSDT&startTime=${T0 - 2 * DAY}&endTime=${T0}`),
      400,
      -1127,
    );
  });

  it("orderId: that order's trades (weight 5), with fromId too; other combinations -1128", async () => {
    const [, second] = orderIds as [number, number];
    const res = await signed("GET", "/api/v3/myTrades", `symbol=BTCUSDT&orderId=${second}`);
    const used = Number(res.headers["x-mbx-used-weight-1m"]);
    const own = trades.filter((t) => t.orderId === second);
    expect(ok(res, "account_trade_list")).toEqual(own);
    const again = await signed(
      "GET",
      "/api/v3/myTrades",
      `symbol=BTCUSDT&orderId=${second}&fromId=${own[1]?.id}`,
    );
    expect(ok(again, "account_trade_list")).toEqual(own.slice(1));
    expect(Number(again.headers["x-mbx-used-weight-1m"]) - used).toBe(5);
    // An order of another account, or none: no trades.
    const theirs = server.exchange.newOrder("demo", {
      symbol: "BTCUSDT",
      side: "BUY",
      type: "MARKET",
      quantity: "0.01",
    });
    for (const id of [theirs.orderId, 987_654_321]) {
      const none = await signed("GET", "/api/v3/myTrades", `symbol=BTCUSDT&orderId=${id}`);
      expect(ok(none, "account_trade_list")).toEqual([]);
    }
    for (const combination of [
      "fromId=1&startTime=1",
      "fromId=1&endTime=1",
      `orderId=${second}&startTime=1`,
      `orderId=${second}&endTime=1`,
    ]) {
      refused(await signed("GET", "/api/v3/myTrades", `symbol=BTCUSDT&${combination}`), 400, -1128);
    }
    refused(await signed("GET", "/api/v3/myTrades", "symbol=BTCUSDT&limit=1001"), 400, -1100);
    refused(await signed("GET", "/api/v3/myTrades", "symbol=NOPE"), 400, -1121);
  });

  it("times in microseconds, both ways", async () => {
    const micro = await signed("GET", "/api/v3/myTrades", `symbol=BTCUSDT&startTime=${T0 * 1000}`, ALICE, {
      "X-MBX-TIME-UNIT": "MICROSECOND",
    });
    expect(res200(micro).map((t) => t.time)).toEqual(trades.map((t) => t.time * 1000));
  });
});

function res200(res: RawResponse): { time: number }[] {
  expect(res.status, res.text).toBe(200);
  return res.json as { time: number }[];
}

describe("klines", () => {
  const checkKlines = responseValidator("kline_candlestick_data", 200);
  const rowsOf = async (query: string, path = "/api/v3/klines"): Promise<KlineRow[]> => {
    const res = await get(path, query);
    expect(res.status, res.text).toBe(200);
    expect(checkKlines(res.json)).toEqual({ valid: true });
    return res.json as KlineRow[];
  };

  it("every live interval: a continuous series up to the candle that holds the server's time", async () => {
    for (const interval of KLINE_INTERVALS) {
      const rows = await rowsOf(`symbol=BTCUSDT&interval=${interval}&limit=1000`);
      expect(rows.length, interval).toBeGreaterThan(0);
      for (let i = 1; i < rows.length; i += 1) {
        expect((rows[i] as KlineRow)[0], interval).toBe((rows[i - 1] as KlineRow)[6] + 1);
      }
      const last = rows.at(-1) as KlineRow;
      expect(last[0], interval).toBeLessThanOrEqual(clock);
      expect(last[6], interval).toBeGreaterThanOrEqual(clock);
    }
  });

  it("each minute's candle is its trades: count, open, high, low, close, volumes, taker buys", async () => {
    const trades = server.exchange.historicalTrades("BTCUSDT", { fromId: 0, limit: 1000 });
    const want = new Map<number, Candle>();
    for (const t of trades) {
      const open = t.time - (t.time % MINUTE);
      const c = want.get(open);
      const price = dec.parse(t.price);
      const [qty, quote] = [dec.parse(t.qty), dec.parse(t.quoteQty)];
      const takerBuy = !t.isBuyerMaker;
      if (!c) {
        want.set(open, {
          openTime: open,
          firstId: t.id,
          lastId: t.id,
          count: 1,
          open: price,
          high: price,
          low: price,
          close: price,
          volume: qty,
          quoteVolume: quote,
          takerBuyVolume: takerBuy ? qty : 0n,
          takerBuyQuoteVolume: takerBuy ? quote : 0n,
        });
      } else {
        c.count += 1;
        c.high = dec.max(c.high, price);
        c.low = dec.min(c.low, price);
        c.close = price;
        c.volume += qty;
        c.quoteVolume += quote;
        if (takerBuy) {
          c.takerBuyVolume += qty;
          c.takerBuyQuoteVolume += quote;
        }
      }
    }
    const first = trades[0]?.time as number;
    const rows = await rowsOf(`symbol=BTCUSDT&interval=1m&startTime=${first - (first % MINUTE)}&limit=1000`);
    const seen = rows.filter((r) => r[8] > 0);
    const f = (value: bigint) => dec.format(value, 8);
    expect(seen).toEqual(
      [...want.values()].map((c) => [
        c.openTime,
        f(c.open),
        f(c.high),
        f(c.low),
        f(c.close),
        f(c.volume),
        c.openTime + MINUTE - 1,
        f(c.quoteVolume),
        c.count,
        f(c.takerBuyVolume),
        f(c.takerBuyQuoteVolume),
        "0",
      ]),
    );
  });

  it("a candle without trades carries the previous close; startTime, endTime and limit", async () => {
    clock += 7 * MINUTE;
    const rows = await rowsOf("symbol=BTCUSDT&interval=1m&limit=5");
    expect(rows.map((r) => r[0])).toEqual([4, 3, 2, 1, 0].map((k) => clock - (clock % MINUTE) - k * MINUTE));
    const close = server.exchange.tickerPrice("BTCUSDT").price;
    for (const row of rows)
      expect(row.slice(1, 6).concat(row.slice(7, 11))).toEqual([
        close,
        close,
        close,
        close,
        "0.00000000",
        "0.00000000",
        0,
        "0.00000000",
        "0.00000000",
      ]);
    const start = rows[1]?.[0] as number;
    // startTime inside a candle: the first candle opening at or after it.
    expect(
      (await rowsOf(`symbol=BTCUSDT&interval=1m&startTime=${start - 1}&limit=2`)).map((r) => r[0]),
    ).toEqual([start, start + MINUTE]);
    expect(
      (await rowsOf(`symbol=BTCUSDT&interval=1m&endTime=${start + 1}&limit=2`)).map((r) => r[0]),
    ).toEqual([start - MINUTE, start]);
    expect(await rowsOf(`symbol=BTCUSDT&interval=1m&startTime=${clock + DAY}`)).toEqual([]);
    expect((await rowsOf("symbol=BTCUSDT&interval=1m")).length).toBeLessThanOrEqual(500);
  });

  it("timeZone cuts the intervals in that zone; startTime and endTime stay UTC", async () => {
    const opens = async (interval: string, zone: string) =>
      (await rowsOf(`symbol=BTCUSDT&interval=${interval}&timeZone=${encodeURIComponent(zone)}&limit=3`)).map(
        (r) => r[0],
      );
    for (const open of await opens("1d", "8")) expect(open % DAY).toBe(16 * HOUR);
    for (const open of await opens("1d", "-03:30")) expect(open % DAY).toBe(3 * HOUR + 30 * MINUTE);
    for (const open of await opens("1h", "05:45")) expect(open % HOUR).toBe(15 * MINUTE);
    for (const open of await opens("30m", "+05:45")) expect(open % (30 * MINUTE)).toBe(15 * MINUTE);
    for (const open of await opens("1w", "14")) expect(new Date(open + 14 * HOUR).getUTCDay()).toBe(1);
    for (const open of await opens("1M", "-12")) expect(new Date(open - 12 * HOUR).getUTCDate()).toBe(1);
    expect(await opens("1m", "8")).toEqual(await opens("1m", "0"));
    for (const zone of ["14:30", "-12:01", "15", "8:60", "UTC", "+-1"]) {
      const res = await get(
        "/api/v3/klines",
        `symbol=BTCUSDT&interval=1h&timeZone=${encodeURIComponent(zone)}`,
      );
      expect(res.status, zone).toBe(400);
      expect(res.json, zone).toMatchObject({ code: -1100 });
    }
  });

  it("uiKlines answers klines' candles; refusals; weight 2; times in microseconds", async () => {
    const query = "symbol=BTCUSDT&interval=15m&timeZone=5&limit=20";
    expect(await rowsOf(query, "/api/v3/uiKlines")).toEqual(await rowsOf(query));
    for (const [q, code] of [
      ["symbol=BTCUSDT&interval=2m", -1120],
      ["symbol=BTCUSDT&interval=1M&limit=1001", -1100],
      ["symbol=BTCUSDT", -1102],
      ["symbol=NOPE&interval=1m", -1121],
      ["symbol=BTCUSDT&interval=1m&window=5", -1104],
    ] as const) {
      const res = await get("/api/v3/klines", q);
      expect(res.status, q).toBe(400);
      expect(res.json, q).toMatchObject({ code });
    }
    const before = Number((await get("/api/v3/ping", "")).headers["x-mbx-used-weight-1m"]);
    const res = await get("/api/v3/klines", "symbol=BTCUSDT&interval=1h&limit=3", {
      "X-MBX-TIME-UNIT": "MICROSECOND",
    });
    expect(Number(res.headers["x-mbx-used-weight-1m"]) - before).toBe(2);
    const millis = await rowsOf("symbol=BTCUSDT&interval=1h&limit=3");
    expect((res.json as KlineRow[]).map((r) => [r[0], r[6]])).toEqual(
      millis.map((r) => [r[0] * 1000, r[6] * 1000 + 999]),
    );
    const fromMicros = await rowsOf(
      `symbol=BTCUSDT&interval=1h&startTime=${(millis[1]?.[0] as number) * 1000}`,
    );
    expect(fromMicros[0]).toEqual(millis[1]);
  });
});

describe("a klines read costs stored candles, never trades", () => {
  const SPAN = 6 * HOUR;
  /** A history of one trade every `every` ms over SPAN, and a reader that counts the rows it hands out. */
  function history(every: number): { reader: CandleReader; rows: { read: number } } {
    const memory = new MemoryHistory();
    const party = { accountId: "a", orderId: 1, commission: 0n, commissionAsset: "BTC" };
    const trades: Trade[] = [];
    for (let time = T0 - SPAN, id = 1; time < T0; time += every, id += 1) {
      const price = dec.parse(String(60000 + (id % 97)));
      const qty = dec.ONE / 100n;
      trades.push({
        symbol: "BTCUSDT",
        id,
        price,
        qty,
        quoteQty: price / 100n,
        time,
        isBuyerMaker: id % 2 === 0,
        buyer: party,
        seller: party,
      });
    }
    const changes = {
      orders: [],
      aggTrades: [],
      balances: [],
      fees: [],
      deposits: [],
      accounts: [],
      markets: [],
    };
    memory.record({ ...changes, trades }, T0);
    const rows = { read: 0 };
    const counted = <T extends Candle | undefined | Candle[]>(value: T): T => {
      rows.read += Array.isArray(value) ? value.length : value ? 1 : 0;
      return value;
    };
    return {
      rows,
      reader: {
        candles: (level, from, to) => counted(memory.candles("BTCUSDT", level, from, to)),
        candleBefore: (level, time) => counted(memory.candleBefore("BTCUSDT", level, time)),
        firstCandle: (level) => counted(memory.firstCandle("BTCUSDT", level)),
      },
    };
  }
  const formats = createExchange({ liquidity: false }).internalState().markets.get("BTCUSDT")?.formats;
  const sparse = history(10_000);
  const dense = history(1000);
  const denser = history(250);
  /** The longest each interval's candle can be. */
  const LENGTH: Partial<Record<KlineInterval, number>> = {
    "1s": 1000,
    "1m": MINUTE,
    "5m": 5 * MINUTE,
    "1h": HOUR,
    "1d": DAY,
    "1w": 7 * DAY,
    "1M": 31 * DAY,
  };

  it.each([
    ["1s", 0],
    ["1m", 0],
    ["5m", 0],
    ["1h", 0],
    ["1h", 345 * MINUTE],
    ["1d", 8 * HOUR],
    ["1w", 0],
    ["1M", -3 * HOUR],
  ] as [KlineInterval, number][])("%s at %i ms east of UTC", (interval, offsetMs) => {
    const query = { interval, offsetMs, limit: 1000, startTime: undefined, endTime: undefined };
    const read = (h: ReturnType<typeof history>) => {
      h.rows.read = 0;
      const answer = klines(h.reader, formats!, T0, query);
      return { candles: answer.length, rows: h.rows.read };
    };
    const [a, b, c] = [read(sparse), read(dense), read(denser)];
    expect(b.candles).toBe(a.candles);
    // Four times the trades, the same rows read: the read does not grow with the trades.
    expect(c).toEqual(b);
    // At most the stored candles of the level the interval is folded from, over the candles'
    // span (the history's, or the limit's), and the two probes (first candle, candle before).
    const { level } = cutterFor(interval, offsetMs);
    const span = Math.min(SPAN + (LENGTH[interval] as number), 1000 * (LENGTH[interval] as number));
    expect(c.rows).toBeLessThanOrEqual(Math.ceil(span / level) + 2);
  });
});

describe("with --state", () => {
  const folder = mkdtempSync(join(tmpdir(), "marketapi-account-views-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** The account views one reads through the exchange. */
  const views = (s: RunningServer) => ({
    account: s.exchange.accountInformation("alice"),
    myTrades: s.exchange.myTrades("alice", { symbol: "BTCUSDT" }),
    myTradesOfOrder: s.exchange.myTrades("alice", { symbol: "BTCUSDT", orderId: 400 }),
    candles: KLINE_INTERVALS.flatMap((interval) =>
      [0, 8 * HOUR, 345 * MINUTE].map((offsetMs) =>
        s.exchange.klines("BTCUSDT", {
          interval,
          offsetMs,
          limit: 100,
          startTime: undefined,
          endTime: undefined,
        }),
      ),
    ),
  });

  it("a restart shows the same balances, trades and candles, as an in-memory server shows them", async () => {
    let at = T0;
    const options = { port: 0, seed: 5, now: () => at, config: CONFIG };
    const statePath = join(folder, "state.db");
    const memory = await startServer(options);
    let durable = await startServer({ ...options, statePath });
    // Steps that roll each stored level over (a second, a minute, a quarter, an hour, a day), and
    // restarts between them: the latest candles are rebuilt from the rows and trades.
    const steps = [300, 300, 37_000, 20 * MINUTE, 300, 5 * HOUR, 700, DAY + 1234, 250, 2 * MINUTE];
    try {
      for (const [round, step] of steps.entries()) {
        at += step;
        for (const s of [memory, durable]) {
          const side = round % 2 ? "SELL" : "BUY";
          s.exchange.newOrder("alice", { symbol: "BTCUSDT", side, type: "MARKET", quantity: "0.05" });
          s.exchange.newOrder("alice", {
            symbol: "BTCUSDT",
            side: "BUY",
            type: "LIMIT",
            timeInForce: "GTC",
            quantity: "0.01",
            price: "30000",
          });
        }
        // Read before the commit: the durable reads see what is not committed yet too.
        expect(views(durable), `round ${round}`).toEqual(views(memory));
        if (round % 3 === 2) {
          const before = JSON.parse(JSON.stringify(views(durable)));
          await durable.close();
          durable = await startServer({ ...options, statePath });
          expect(JSON.parse(JSON.stringify(views(durable))), `after the restart in round ${round}`).toEqual(
            before,
          );
        }
      }
      await durable.saveState();
      expect(views(durable)).toEqual(views(memory));
      expect(durable.exchange.accountInformation("alice").updateTime).toBe(at);
    } finally {
      await memory.close();
      await durable.close();
    }
  });
});
