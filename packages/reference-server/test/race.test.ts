// A cancel racing a fill, over two connections to a real server on 127.0.0.1: exactly one of the
// two may succeed, and the ledger must hold afterwards, in memory and with a state database
// (also once the database is loaded again).
import { mkdtempSync, rmSync } from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";
import { sendSigned } from "./support/http.js";
import { givenTotals, ledgerFaults } from "./support/ledger.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-race-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const PAIRS = 240;
/** One lane per symbol, so that a lane's buy can only meet its own lane's resting sell. */
const LANES = [
  { symbol: "BTCUSDT", qty: "0.01", price: (k: number) => String(60_000 + k) },
  { symbol: "ETHUSDT", qty: "0.5", price: (k: number) => String(3_000 + k) },
  { symbol: "ETHBTC", qty: "1", price: (k: number) => (0.05 + k * 0.00001).toFixed(5) },
];
const SYMBOLS = LANES.map((l) => l.symbol);
const BALANCES = { USDT: "10000000", BTC: "1000", ETH: "10000" };
const ACCOUNTS = [
  { id: "maker", apiKey: "maker-key", apiSecret: "maker-secret", balances: BALANCES },
  { id: "taker", apiKey: "taker-key", apiSecret: "taker-secret", balances: BALANCES },
];
const [MAKER, TAKER] = ACCOUNTS as [(typeof ACCOUNTS)[0], (typeof ACCOUNTS)[0]];
const CONFIG = { symbols: SYMBOLS, accounts: ACCOUNTS };

interface PairOutcome {
  orderId: number;
  cancelled: boolean;
  filled: boolean;
  detail: string;
}

/** One lane: its own three connections (maker's orders, maker's cancels, taker's orders). */
async function lane(url: string, pairs: number, spec: (typeof LANES)[number]): Promise<PairOutcome[]> {
  const { symbol, qty } = spec;
  const agents = [0, 1, 2].map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
  const [makerAgent, cancelAgent, takerAgent] = agents as [Agent, Agent, Agent];
  const outcomes: PairOutcome[] = [];
  try {
    for (let i = 0; i < pairs; i += 1) {
      const price = spec.price(i % 10);
      const resting = await sendSigned(
        url,
        {
          ...MAKER,
          method: "POST",
          path: "/api/v3/order",
          query: `symbol=${symbol}&side=SELL&type=LIMIT&timeInForce=GTC&quantity=${qty}&price=${price}`,
        },
        makerAgent,
      );
      expect(resting.status, resting.text).toBe(200);
      const { orderId } = resting.json as { orderId: number };
      const buy = () =>
        sendSigned(
          url,
          {
            ...TAKER,
            method: "POST",
            path: "/api/v3/order",
            query: `symbol=${symbol}&side=BUY&type=LIMIT&timeInForce=IOC&quantity=${qty}&price=${price}`,
          },
          takerAgent,
        );
      const cancel = () =>
        sendSigned(
          url,
          { ...MAKER, method: "DELETE", path: "/api/v3/order", query: `symbol=${symbol}&orderId=${orderId}` },
          cancelAgent,
        );
      // Either goes first, at once or a turn of the event loop later (when the other one's batch
      // is not committed yet).
      const [first, second] = i % 2 === 0 ? [buy, cancel] : [cancel, buy];
      const one = first();
      if (i % 4 >= 2) await new Promise((resolve) => setImmediate(resolve));
      const other = second();
      const [bought, cancelled] =
        i % 2 === 0 ? await Promise.all([one, other]) : await Promise.all([other, one]);
      const buyBody = bought.json as { executedQty?: string };
      outcomes.push({
        orderId: orderId,
        cancelled: cancelled.status === 200,
        filled: bought.status === 200 && Number(buyBody.executedQty) > 0,
        detail: `buy ${bought.status} ${bought.text} / cancel ${cancelled.status} ${cancelled.text}`,
      });
    }
    return outcomes;
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

async function racePairs(server: RunningServer): Promise<PairOutcome[]> {
  const pairs = Math.ceil(PAIRS / LANES.length);
  const lanes = LANES.map((spec) => lane(server.url, pairs, spec));
  return (await Promise.all(lanes)).flat();
}

function wrongOutcomes(outcomes: readonly PairOutcome[]): string[] {
  return outcomes
    .filter((o) => o.cancelled === o.filled)
    .map((o) => `order ${o.orderId}: ${o.cancelled ? "both" : "neither"} (${o.detail})`);
}

/** Both kinds of outcome happened, so the pairs did race. */
function expectBothOutcomes(outcomes: readonly PairOutcome[]): void {
  expect(outcomes.filter((o) => o.cancelled).length).toBeGreaterThan(0);
  expect(outcomes.filter((o) => o.filled).length).toBeGreaterThan(0);
}

describe(`a cancel racing a fill (${PAIRS} pairs, ${LANES.length} symbols at once, two connections each)`, () => {
  const given = givenTotals(ACCOUNTS);

  it("has exactly one outcome per pair and keeps the ledger, in memory", async () => {
    const server = await startServer({ config: CONFIG, empty: true });
    try {
      const outcomes = await racePairs(server);
      expect(wrongOutcomes(outcomes)).toEqual([]);
      expect(ledgerFaults(server.exchange, SYMBOLS, ACCOUNTS, given)).toEqual([]);
      expectBothOutcomes(outcomes);
    } finally {
      await server.close();
    }
  });

  it("has exactly one outcome per pair and keeps the ledger, with a state database that loads again", async () => {
    const statePath = join(folder, "race.db");
    const server = await startServer({ config: CONFIG, empty: true, statePath });
    let balances: unknown;
    try {
      const outcomes = await racePairs(server);
      expect(wrongOutcomes(outcomes)).toEqual([]);
      expect(ledgerFaults(server.exchange, SYMBOLS, ACCOUNTS, given)).toEqual([]);
      expectBothOutcomes(outcomes);
      balances = ACCOUNTS.map((a) => server.exchange.balances(a.id));
    } finally {
      await server.close();
    }
    const again = await startServer({ config: CONFIG, empty: true, statePath });
    try {
      expect(ACCOUNTS.map((a) => again.exchange.balances(a.id))).toEqual(balances);
      expect(ledgerFaults(again.exchange, SYMBOLS, ACCOUNTS, given)).toEqual([]);
    } finally {
      await again.close();
    }
  });
});
