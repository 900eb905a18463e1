// The durable server answers as the in-memory one: the same random requests (orders, cancels,
// cancel-alls and reads), pipelined on three connections at once so that many are in flight
// while batches commit, give the same answers and the same final balances with and without
// --state; and the durable server's database loads again with the same state.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Exchange, type RunningServer, startServer } from "../src/index.js";
import { hmac } from "./support/http.js";
import { givenTotals, ledgerFaults } from "./support/ledger.js";
import { type PipelinedAnswer, type PipelinedRequest, pipeline } from "./support/pipelined.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-differential-state-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const REQUESTS_PER_LANE = 400;
const WAVES = 3;
const CLOCK = 1_800_000_000_000;
/** One connection per symbol, trading between two accounts of its own: lanes cannot affect each other. */
const LANES = [
  { symbol: "BTCUSDT", qty: ["0.001", "0.002", "0.005"], price: (k: number) => String(60_000 + k) },
  { symbol: "ETHUSDT", qty: ["0.1", "0.2", "0.5"], price: (k: number) => String(3_000 + k) },
  { symbol: "ETHBTC", qty: ["1", "2", "3"], price: (k: number) => (0.05 + k * 0.00001).toFixed(5) },
];
type Lane = (typeof LANES)[number];
const BALANCES = { USDT: "10000000", BTC: "1000", ETH: "10000" };
const ACCOUNTS = LANES.flatMap(({ symbol }) =>
  ["a", "b"].map((side) => ({
    id: `${symbol}-${side}`,
    apiKey: `${symbol}-${side}-key`,
    apiSecret: `${symbol}-${side}-secret`,
    balances: BALANCES,
  })),
);
// Each lane writes its 400 requests at once and reads every answer: deeper pipelining than a
// connection may have waiting by default (64, which drops a client that never reads), so the
// comparison of the two stores is not cut short by the guard against such clients.
const CONFIG = {
  symbols: LANES.map((l) => l.symbol),
  accounts: ACCOUNTS,
  network: { maxWaitingRequests: 1000 },
};

/** A small deterministic generator, so both servers get the very same requests. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function signed(
  account: (typeof ACCOUNTS)[number],
  method: string,
  path: string,
  params: string,
): PipelinedRequest {
  const query = `${params}&timestamp=${CLOCK}`;
  return {
    method,
    target: `${path}?${query}&signature=${hmac(account.apiSecret, query)}`,
    headers: { "X-MBX-APIKEY": account.apiKey },
  };
}

/** The requests of one lane's wave: orders, cancels by client order id, cancel-alls and reads. */
function laneRequests(lane: Lane, wave: number): PipelinedRequest[] {
  const random = generator(1000 * wave + lane.symbol.length * 7 + lane.qty.length);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
  const { symbol } = lane;
  const requests: PipelinedRequest[] = [];
  for (let k = 0; k < REQUESTS_PER_LANE; k += 1) {
    const account = pick(ACCOUNTS.filter((a) => a.id.startsWith(`${symbol}-`)));
    const id = `w${wave}-${k}`;
    const roll = random();
    const side = random() < 0.5 ? "BUY" : "SELL";
    const price = lane.price(Math.floor(random() * 9) - 4);
    const quantity = pick(lane.qty);
    const earlier = `w${wave}-${Math.floor(random() * Math.max(k, 1))}`;
    const order = (extra: string) =>
      signed(
        account,
        "POST",
        "/api/v3/order",
        `symbol=${symbol}&side=${side}&quantity=${quantity}&newClientOrderId=${id}&${extra}`,
      );
    if (roll < 0.55) requests.push(order(`type=LIMIT&timeInForce=GTC&price=${price}`));
    else if (roll < 0.65) requests.push(order(`type=LIMIT&timeInForce=IOC&price=${price}`));
    else if (roll < 0.7) requests.push(order("type=MARKET"));
    else if (roll < 0.8)
      requests.push(
        signed(
          account,
          "DELETE",
          "/api/v3/order",
          `symbol=${symbol}&origClientOrderId=${earlier}&newClientOrderId=c${id}`,
        ),
      );
    else if (roll < 0.82) requests.push(signed(account, "DELETE", "/api/v3/openOrders", `symbol=${symbol}`));
    else if (roll < 0.86)
      requests.push(signed(account, "GET", "/api/v3/order", `symbol=${symbol}&origClientOrderId=${earlier}`));
    else if (roll < 0.9) requests.push(signed(account, "GET", "/api/v3/openOrders", `symbol=${symbol}`));
    else if (roll < 0.93)
      requests.push(signed(account, "GET", "/api/v3/allOrders", `symbol=${symbol}&limit=20`));
    else if (roll < 0.96)
      requests.push(signed(account, "GET", "/api/v3/myTrades", `symbol=${symbol}&limit=20`));
    else requests.push(signed(account, "GET", "/api/v3/account", "omitZeroBalances=true"));
  }
  return requests;
}

/** Status and body, without the client order ids a cancel-all draws at random. */
function normalised(answer: PipelinedAnswer): unknown {
  const body = JSON.parse(answer.body) as unknown;
  if (!Array.isArray(body)) return { status: answer.status, body };
  const reports = body.map((item) =>
    typeof item === "object" && item !== null && "origClientOrderId" in item
      ? { ...item, clientOrderId: "*" }
      : item,
  );
  return { status: answer.status, body: reports };
}

async function run(server: RunningServer): Promise<unknown[][]> {
  const answers: unknown[][] = [];
  for (let wave = 0; wave < WAVES; wave += 1) {
    const lanes = await Promise.all(LANES.map((lane) => pipeline(server.url, laneRequests(lane, wave))));
    answers.push(...lanes.map((lane) => lane.map(normalised)));
  }
  return answers;
}

function finalState(exchange: Exchange): unknown {
  return {
    balances: ACCOUNTS.map((a) => exchange.balances(a.id)),
    fees: exchange.feesCollected(),
    orders: ACCOUNTS.flatMap((a) =>
      LANES.map((l) => exchange.allOrders(a.id, { symbol: l.symbol, limit: 1000 })),
    ),
    depth: LANES.map((l) => exchange.depth(l.symbol, 100)),
  };
}

describe("the durable server against the in-memory one", () => {
  it(`gives the same answers and balances for ${LANES.length} x ${WAVES} x ${REQUESTS_PER_LANE} pipelined requests`, async () => {
    const options = { config: CONFIG, empty: true, now: () => CLOCK, seed: 3 };
    const statePath = join(folder, "durable.db");
    const memory = await startServer(options);
    const durable = await startServer({ ...options, statePath });
    const given = givenTotals(ACCOUNTS);
    const symbols = LANES.map((l) => l.symbol);
    let durableState: unknown;
    try {
      const [fromMemory, fromDurable] = [await run(memory), await run(durable)];
      const differences = fromMemory.flatMap((lane, i) =>
        lane.flatMap((answer, k) => {
          const other = fromDurable[i]?.[k];
          return JSON.stringify(other) === JSON.stringify(answer)
            ? []
            : [{ lane: i, request: k, answer, other }];
        }),
      );
      expect(differences.slice(0, 3)).toEqual([]);
      const statuses = fromMemory.flat().map((a) => (a as { status: number }).status);
      // The sequence did trade, cancel and refuse: the comparison is not of empty answers.
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(1000);
      expect(statuses.filter((s) => s === 400).length).toBeGreaterThan(10);
      expect(finalState(durable.exchange)).toEqual(finalState(memory.exchange));
      expect(ledgerFaults(memory.exchange, symbols, ACCOUNTS, given)).toEqual([]);
      expect(ledgerFaults(durable.exchange, symbols, ACCOUNTS, given)).toEqual([]);
      durableState = finalState(durable.exchange);
    } finally {
      await memory.close();
      await durable.close();
    }
    const again = await startServer({ ...options, statePath });
    try {
      expect(finalState(again.exchange)).toEqual(durableState);
      expect(ledgerFaults(again.exchange, symbols, ACCOUNTS, given)).toEqual([]);
    } finally {
      await again.close();
    }
  });
});
