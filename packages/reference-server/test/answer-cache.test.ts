// The answer cache of public market-data GETs (src/http/answer-cache.ts) against the pipeline
// without it: two servers on 127.0.0.1 over exchanges built alike get the same requests in the
// same order, and every answer must be the same bytes (status line, headers in order, body; the
// Date header aside) with the same weight counted, 429 and 418 included. The cache must be used
// (hits counted) and must not outlive a change of the book or of the trades.
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.js";
import { createExchange, type Exchange } from "../src/engine/index.js";
import { AnswerCache } from "../src/http/answer-cache.js";
import { describeApi } from "../src/http/api.js";
import { KeyRing } from "../src/http/auth.js";
import { AnswerBudget } from "../src/http/backpressure.js";
import { createPipeline } from "../src/http/pipeline.js";
import { RateLimiter } from "../src/http/rate-limits.js";
import { ShutdownGate } from "../src/http/shutdown.js";
import { errorsOnlyLogger } from "../src/logger.js";

const NOW = 1_750_000_000_000;
const DEPTH = "/api/v3/depth?symbol=BTCUSDT&limit=100";
const DEPTH_5 = "/api/v3/depth?limit=5&symbol=BTCUSDT";
const PRICE = "/api/v3/ticker/price?symbol=BTCUSDT";
const BOOK = "/api/v3/ticker/bookTicker?symbol=BTCUSDT";
const PRICES = '/api/v3/ticker/price?symbols=["BTCUSDT","ETHUSDT"]';

interface Side {
  exchange: Exchange;
  server: Server;
  socket: Socket;
  port: number;
  cache?: AnswerCache;
}

/** A server as startServer composes it (gate, budget, pipeline), with or without the cache. */
async function side(withCache: boolean, rateLimits: Record<string, number>): Promise<Side> {
  const config = parseConfig({ rateLimits }, "config");
  const exchange = createExchange({ seed: 7, now: () => NOW });
  exchange.addAccount("trader", { BTC: "100", USDT: "10000000", ETH: "100" });
  const cache = withCache ? new AnswerCache() : undefined;
  const listener = createPipeline({
    api: describeApi(),
    exchange,
    keys: new KeyRing(),
    rateLimiter: new RateLimiter(config.rateLimits),
    limits: { maxBodyBytes: 65536, maxParams: 64 },
    now: () => NOW,
    logger: errorsOnlyLogger,
    answerCache: cache ?? false,
  });
  const server = createServer(new ShutdownGate().guard(new AnswerBudget(config.network).guard(listener)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const socket = connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  return { exchange, server, socket, port, ...(cache ? { cache } : {}) };
}

/** One request on the side's keep-alive socket; the answer's raw bytes, with its Date header blanked. */
function ask(s: Side, target: string, headers = ""): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (received.length < end + 4 + length) return;
      s.socket.off("data", onData);
      resolve(text.replace(/\r\nDate: [^\r]*/, "\r\nDate: -"));
    };
    s.socket.on("data", onData);
    s.socket.once("error", reject);
    s.socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`);
  });
}

function header(answer: string, name: string): string | undefined {
  return new RegExp(`\\r\\n${name}: ([^\\r]*)`, "i").exec(answer)?.[1];
}

/** Both sides answer the request; the answers must be byte for byte the same. */
async function both(cached: Side, plain: Side, target: string, headers = ""): Promise<string> {
  const [a, b] = await Promise.all([ask(cached, target, headers), ask(plain, target, headers)]);
  expect(a, target).toBe(b);
  return a;
}

/** The same order on both exchanges (they were built alike, so they stay alike). */
function place(sides: Side[], side: "BUY" | "SELL", price: string): void {
  for (const s of sides) {
    s.exchange.newOrder("trader", {
      symbol: "BTCUSDT",
      side,
      type: "LIMIT",
      timeInForce: "GTC",
      quantity: "0.01",
      price,
    });
  }
}

describe("answer cache of market-data GETs", () => {
  let cached: Side;
  let plain: Side;
  const generous = { requestWeightPerMinute: 1e9, ordersPer10s: 1e9, ordersPerDay: 1e9 };

  beforeAll(async () => {
    cached = await side(true, generous);
    plain = await side(false, generous);
  });
  afterAll(() => {
    for (const s of [cached, plain]) {
      s.socket.destroy();
      s.server.close();
    }
  });

  it("answers repeated requests from the cache with the same bytes, headers and weight", async () => {
    const first = await both(cached, plain, DEPTH);
    expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // The body as the engine has it, whether written as text or as its encoded bytes.
    const body = JSON.stringify(cached.exchange.depth("BTCUSDT", 100));
    expect(first.split("\r\n\r\n")[1]).toBe(body);
    expect(header(first, "Content-Length")).toBe(String(body.length));
    expect(cached.cache?.hits).toBe(0);
    for (let i = 0; i < 3; i += 1) await both(cached, plain, DEPTH);
    expect(cached.cache?.hits).toBe(3);
    await both(cached, plain, PRICE);
    await both(cached, plain, PRICE);
    await both(cached, plain, DEPTH_5);
    await both(cached, plain, DEPTH_5);
    await both(cached, plain, BOOK);
    await both(cached, plain, BOOK);
    expect(cached.cache?.hits).toBe(6);
    // 4 × depth limit=100 (5), 2 × ticker (2), 2 × depth limit=5 (5), 2 × book ticker (2): the
    // same total on both.
    expect(header(await both(cached, plain, PRICE), "X-MBX-USED-WEIGHT-1M")).toBe(
      String(20 + 4 + 10 + 4 + 2),
    );
    expect(cached.cache?.hits).toBe(7);
  });

  it("builds the answer again once the book or the trades changed", async () => {
    const before = await both(cached, plain, DEPTH);
    const hits = cached.cache?.hits ?? 0;
    const ticker = await both(cached, plain, PRICE);
    expect(cached.cache?.hits).toBe(hits + 1);

    const book = JSON.parse(before.split("\r\n\r\n")[1] ?? "{}");
    const below = (Number(book.bids[0][0]) - 5).toFixed(2);
    place([cached, plain], "BUY", below); // rests below the best bid: the book changes, no trade
    const after = await both(cached, plain, DEPTH);
    expect(cached.cache?.hits).toBe(hits + 1);
    expect(after.split("\r\n\r\n")[1]).not.toBe(before.split("\r\n\r\n")[1]);
    await both(cached, plain, PRICE); // no trade: still the kept ticker
    expect(cached.cache?.hits).toBe(hits + 2);

    const bookTicker = await both(cached, plain, BOOK);
    await both(cached, plain, BOOK);
    place([cached, plain], "BUY", book.bids[0][0]); // joins the best bid: its quantity grows
    const joined = await both(cached, plain, BOOK);
    expect(joined.split("\r\n\r\n")[1]).not.toBe(bookTicker.split("\r\n\r\n")[1]);
    expect(cached.cache?.hits).toBe(hits + 3);

    const ask = JSON.parse((await both(cached, plain, DEPTH)).split("\r\n\r\n")[1] ?? "{}").asks[0][0];
    place([cached, plain], "BUY", ask); // crosses: a trade
    const traded = await both(cached, plain, PRICE);
    expect(traded.split("\r\n\r\n")[1]).not.toBe(ticker.split("\r\n\r\n")[1]);
    expect(JSON.parse(traded.split("\r\n\r\n")[1] ?? "{}").price).toBe(ask);
  });

  it("builds the answer again once the exchange's live state was swapped", async () => {
    await both(cached, plain, DEPTH);
    const hits = cached.cache?.hits ?? 0;
    // What the state database does after a failed commit: the committed state is served instead.
    for (const s of [cached, plain]) s.exchange.replaceState(s.exchange.internalState());
    await both(cached, plain, DEPTH);
    await both(cached, plain, PRICE);
    expect(cached.cache?.hits).toBe(hits);
    await both(cached, plain, DEPTH);
    expect(cached.cache?.hits).toBe(hits + 1);
  });

  it("leaves to the pipeline what the target alone does not decide", async () => {
    await both(cached, plain, DEPTH);
    const hits = cached.cache?.hits ?? 0;
    // The time unit changes the answer's time fields, or is refused: never from the cache.
    await both(cached, plain, DEPTH, "X-MBX-TIME-UNIT: MICROSECOND\r\n");
    const refused = await both(cached, plain, DEPTH, "X-MBX-TIME-UNIT: SECONDS\r\n");
    expect(refused).toMatch(/^HTTP\/1\.1 400 /);
    expect(refused).toContain('"code":-1194');
    // Several symbols (a list, built per request) and refused requests are never kept.
    await both(cached, plain, PRICES);
    await both(cached, plain, PRICES);
    await both(cached, plain, "/api/v3/depth?symbol=NOPE");
    await both(cached, plain, "/api/v3/depth?symbol=NOPE");
    expect(cached.cache?.hits).toBe(hits);
    // An unsigned operation's API key changes nothing: the kept answer is used.
    await both(cached, plain, DEPTH, "X-MBX-APIKEY: someone\r\n");
    expect(cached.cache?.hits).toBe(hits + 1);
  });
});

describe("answer cache under rate limits", () => {
  let cached: Side;
  let plain: Side;

  beforeAll(async () => {
    // 4 depth requests fit (weight 5 each); then 429, and the next over-limit request is banned.
    const tight = { requestWeightPerMinute: 20, ordersPer10s: 10, ordersPerDay: 100, banAfter429s: 2 };
    cached = await side(true, tight);
    plain = await side(false, tight);
  });
  afterAll(() => {
    for (const s of [cached, plain]) {
      s.socket.destroy();
      s.server.close();
    }
  });

  it("counts the same weight and answers the same 429 and 418 from a kept answer", async () => {
    const statuses: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const answer = await both(cached, plain, DEPTH);
      statuses.push(`${answer.slice(9, 12)} ${header(answer, "X-MBX-USED-WEIGHT-1M")}`);
      if (answer.startsWith("HTTP/1.1 418")) break;
    }
    expect(statuses).toEqual(["200 5", "200 10", "200 15", "200 20", "429 20", "429 20", "418 20"]);
    expect(cached.cache?.hits).toBe(6);
  });
});
