// The client as a trading program uses it, side by side in one run (README, "Figures"):
//
// 1. Pacing: a burst of mixed calls against a stand-in that enforces 1,200 weight a minute and 50
//    orders per 10 s (bench/support/limited-exchange.ts), with the pacer and without it. Both run on
//    a clock 3 times faster than the wall's, shared by the stand-in and the pacer, so that a
//    quarter of an hour of limits takes five minutes. The time taken runs from the burst's start to
//    the last request the stand-in accepted; the least time the limits allow is computed from the
//    stand-in's fixed windows.
// 2. Lost answers: orders against a stand-in that drops the connection after accepting one in ten,
//    answers 503 after accepting one in ten, or drops one in ten before accepting it
//    (test/support/faulty-exchange.ts): duplicates, and orders whose final state the caller knows.
// 3. Paging: iterators over 100,000 trades (fromId) and over 30 days of orders (24-hour windows) and
//    aggregate trades, against a stand-in holding them (bench/support/paging-exchange.ts): equal to
//    the full lists item for item; the requests sent and their weight.
//
// Run: npm run bench:trading (in packages/client). BENCH_CALLS and BENCH_ORDERS change the sizes.
import { loadavg } from "node:os";
import { createPacer, type PacerClock, requestWeight } from "@marketapi/pacer";
import { createSpotClient, type OperationFacts, operationFacts } from "../src/index.js";
import { startFaultyExchange } from "../test/support/faulty-exchange.js";
import { startLimitedExchange } from "./support/limited-exchange.js";
import { startPagingExchange } from "./support/paging-exchange.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const ORDERS = Number(process.env.BENCH_ORDERS ?? 1000);
const SPEED = 3;
const LIMITS = { weightPerMinute: 1200, ordersPer10s: 50 };

/** A clock that runs SPEED times faster than the wall's, from now on. */
function fastClock(): PacerClock {
  const origin = Date.now();
  return {
    now: () => origin + (Date.now() - origin) * SPEED,
    setTimer(callback, ms) {
      const timer = setTimeout(callback, ms / SPEED);
      return () => clearTimeout(timer);
    },
  };
}

type Call = "depth" | "deep depth" | "price" | "average" | "order";
/** The burst: what each call is, in a fixed mix (every tenth-ish call an order). */
const MIX: Call[] = [
  "depth",
  "price",
  "order",
  "depth",
  "average",
  "price",
  "depth",
  "deep depth",
  "price",
  "depth",
];

function burst(client: ReturnType<typeof createSpotClient>) {
  return Array.from({ length: CALLS }, (_, i) => {
    const call = MIX[i % MIX.length]!;
    if (call === "depth") return client.order_book({ symbol: "BTCUSDT", limit: 5 });
    if (call === "deep depth") return client.order_book({ symbol: "BTCUSDT", limit: 500 });
    if (call === "price") return client.symbol_price_ticker({ symbol: "BTCUSDT" });
    if (call === "average") return client.current_average_price({ symbol: "BTCUSDT" });
    return client.new_order({
      symbol: "BTCUSDT",
      side: "BUY",
      type: "MARKET",
      quantity: "0.001",
      newClientOrderId: `b${i}`,
    });
  });
}

/** What the burst weighs and places, by the spec's weights. */
function burstCost(): { weight: number; orders: number } {
  let weight = 0;
  let orders = 0;
  const facts: OperationFacts = operationFacts;
  for (let i = 0; i < CALLS; i++) {
    const call = MIX[i % MIX.length]!;
    if (call === "order") orders++;
    const id = {
      depth: "order_book",
      "deep depth": "order_book",
      price: "symbol_price_ticker",
      average: "current_average_price",
      order: "new_order",
    }[call];
    weight += requestWeight(facts[id]?.weight ?? 1, {
      limit: call === "deep depth" ? 500 : 5,
      symbol: "BTCUSDT",
    });
  }
  return { weight, orders };
}

/**
 * The least time (on the stand-in's clock) from the first request to the last that fixed windows
 * allow: the last request goes at the start of the window in which the cumulative budget first
 * covers the burst, for each limit; the larger of the two.
 */
function leastTime(start: number, cost: { weight: number; orders: number }): number {
  const last = (total: number, limit: number, window: number) => {
    const windows = Math.ceil(total / limit) - 1;
    return windows === 0 ? start : (Math.floor(start / window) + windows) * window;
  };
  return (
    Math.max(
      last(cost.weight, LIMITS.weightPerMinute, 60_000),
      last(cost.orders, LIMITS.ordersPer10s, 10_000),
    ) - start
  );
}

async function pacing() {
  const cost = burstCost();
  const rows: string[][] = [];
  for (const paced of [true, false]) {
    const clock = fastClock();
    const exchange = await startLimitedExchange(LIMITS, clock.now);
    const pacer = paced
      ? createPacer({
          clock,
          limits: [
            {
              rateLimitType: "REQUEST_WEIGHT",
              interval: "MINUTE",
              intervalNum: 1,
              limit: LIMITS.weightPerMinute,
            },
            { rateLimitType: "ORDERS", interval: "SECOND", intervalNum: 10, limit: LIMITS.ordersPer10s },
          ],
        })
      : undefined;
    const client = createSpotClient({
      baseUrl: exchange.baseUrl,
      apiKey: "bench",
      apiSecret: "bench",
      // No resends, so that every 429 shows; pauses waited out (on the stand-in's clock: a minute is 20 s).
      retry: { attempts: 0, lookups: false, maxWaitMs: 3_600_000 },
      timeoutMs: 0,
      ...(pacer ? { pacer } : {}),
    });
    const start = clock.now();
    const results = await Promise.allSettled(burst(client));
    // From the burst's start to the last request the stand-in accepted: what the limits bound.
    const elapsed = exchange.lastAt - start;
    const least = leastTime(start, cost);
    const status = (s: number) => exchange.answered.get(s) ?? 0;
    const failed = results.filter((r) => r.status === "rejected").length;
    rows.push([
      paced ? "with the pacer" : "without it",
      String(CALLS),
      `${cost.weight} / ${cost.orders}`,
      String(status(200)),
      String(status(429)),
      String(status(418)),
      String(failed),
      paced ? `${(elapsed / 1000).toFixed(0)} s` : "–",
      paced ? `${(least / 1000).toFixed(0)} s` : "–",
      paced ? `${(elapsed / least).toFixed(3)}×` : "–",
    ]);
    await exchange.close();
  }
  return table(
    [
      "burst",
      "calls",
      "weight / orders",
      "200",
      "429",
      "418",
      "not sent",
      "time taken",
      "least the limits allow",
      "ratio",
    ],
    rows,
  );
}

async function lostAnswers() {
  const rows: string[][] = [];
  const kinds = [
    { name: "connection dropped after accepting", fault: { kind: "drop", accept: true } },
    { name: "503 after accepting", fault: { kind: "unavailable-after-accept" } },
    { name: "connection dropped before accepting", fault: { kind: "drop", accept: false } },
  ] as const;
  for (const { name, fault } of kinds) {
    const exchange = await startFaultyExchange();
    for (let i = 0; i < ORDERS; i++)
      exchange.script("POST /api/v3/order", i % 10 === 9 ? fault : { kind: "answer" });
    const client = createSpotClient({
      baseUrl: exchange.baseUrl,
      apiKey: "k",
      apiSecret: "s",
      recvWindow: 300,
    });
    const outcomes = { answered: 0, lookedUp: 0, error: 0, thrown: 0 };
    // Ten orders at a time, as a bot with several strategies would send them.
    for (let i = 0; i < ORDERS; i += 10) {
      const batch = Array.from({ length: Math.min(10, ORDERS - i) }, () =>
        client.new_order({ symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: "0.001" }),
      );
      for (const result of await Promise.allSettled(batch)) {
        if (result.status === "rejected") outcomes.thrown++;
        else if (result.value.lookedUp) outcomes.lookedUp++;
        else if (result.value.error) outcomes.error++;
        else outcomes.answered++;
      }
    }
    const ids = exchange.orders.map((o) => o.clientOrderId);
    const duplicates = ids.length - new Set(ids).size;
    const sent = exchange.arrivals.filter((a) => a.method === "POST").length;
    rows.push([
      name,
      String(ORDERS),
      String(sent),
      String(exchange.orders.length),
      String(duplicates),
      String(outcomes.answered),
      String(outcomes.lookedUp),
      String(outcomes.error + outcomes.thrown),
    ]);
    await exchange.close();
  }
  return table(
    [
      "fault, one order in ten",
      "orders",
      "sends",
      "placed",
      "duplicates",
      "answered",
      "looked up",
      "state unknown",
    ],
    rows,
  );
}

async function paging() {
  const from = Date.UTC(2026, 10, 1);
  const days = 30;
  const exchange = await startPagingExchange({ trades: 100_000, orders: 20_000, from, days });
  const client = createSpotClient({ baseUrl: exchange.baseUrl, apiKey: "k", apiSecret: "s" });
  const facts: OperationFacts = operationFacts;
  const rows: string[][] = [];
  const run = async (
    label: string,
    id: string,
    iterate: () => AsyncIterable<unknown>,
    want: unknown[],
    path: string,
  ) => {
    const before = exchange.requests.get(path) ?? 0;
    const seen: unknown[] = [];
    for await (const item of iterate()) seen.push(item);
    const requests = (exchange.requests.get(path) ?? 0) - before;
    const equal =
      seen.length === want.length &&
      seen.every((item, i) => JSON.stringify(item) === JSON.stringify(want[i]));
    const weight = requests * requestWeight(facts[id]?.weight ?? 1, {});
    rows.push([
      label,
      String(want.length),
      String(seen.length),
      equal ? "yes" : "NO",
      String(requests),
      String(weight),
    ]);
  };
  await run(
    "historical_trades from fromId 0",
    "historical_trades",
    () => client.historical_trades.iterate({ symbol: "BTCUSDT", fromId: 0 }),
    exchange.trades,
    "/api/v3/historicalTrades",
  );
  const end = from + days * 86_400_000;
  await run(
    "aggTrades over 30 days",
    "aggTrades",
    () => client.aggTrades.iterate({ symbol: "BTCUSDT", startTime: from, endTime: end }),
    exchange.aggTrades.filter((t) => t.T <= end),
    "/api/v3/aggTrades",
  );
  await run(
    "all_orders over 30 days (24 h windows)",
    "all_orders",
    () => client.all_orders.iterate({ symbol: "BTCUSDT", startTime: from, endTime: end }),
    exchange.orders.filter((o) => o.time <= end),
    "/api/v3/allOrders",
  );
  await exchange.close();
  return table(["iterator", "items held", "items read", "equal, item for item", "requests", "weight"], rows);
}

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map((_, i) => (i === 0 ? "---" : "---:"))), ...rows.map(line)].join("\n");
}

const load = loadavg()[0]!.toFixed(2);
console.log(`Node ${process.versions.node}, load average ${load} at the start\n`);
console.log(`### Pacing (${CALLS} calls; clock ×${SPEED})\n\n${await pacing()}\n`);
console.log(`### Lost answers\n\n${await lostAnswers()}\n`);
console.log(`### Paging\n\n${await paging()}\n`);
