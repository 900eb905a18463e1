// kill -9 (SIGTERM every fourth cycle) in the middle of bursts of signed orders, cancels (8%) and
// cancel-alls: after every cycle the database loads again with the ledger intact; at the end every
// order the server acknowledged is there with at least the fills it reported, every acknowledged
// cancel stands, and balances are conserved.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decimal as dec, GENEROUS_BALANCE, startServer } from "../src/index.js";
import { baseUrlOf, runCli } from "./support/cli.js";
import { sendSigned } from "./support/http.js";
import { givenTotals, ledgerFaults } from "./support/ledger.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-crash-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const CYCLES = 10;
const LOOPS_PER_ACCOUNT = 4;
/** Acknowledged orders a cycle waits for before the kill: at least this, at most four times it. */
const MIN_ORDERS_PER_CYCLE = 25;
const ACCOUNTS = [
  {
    id: "alice",
    apiKey: "alice-key",
    apiSecret: "alice-secret",
    balances: { USDT: "50000000", BTC: "1000" },
  },
  { id: "bob", apiKey: "bob-key", apiSecret: "bob-secret", balances: { USDT: "50000000", BTC: "1000" } },
];

interface Acked {
  account: string;
  orderId: number;
  status: string;
  executedQty: string;
  tradeIds: number[];
}

interface CancelReport {
  orderId: number;
  status: string;
  executedQty: string;
}

/** What a burst saw acknowledged: orders placed, and orders cancelled (one by one or all at once). */
interface BurstResult {
  orders: Acked[];
  cancels: (CancelReport & { account: string })[];
}

const CANCEL_SHARE = 0.08;
const CANCEL_ALL_SHARE = 0.01;
const EVERYONE = [{ id: "demo", balances: { BTC: GENEROUS_BALANCE, USDT: GENEROUS_BALANCE } }, ...ACCOUNTS];

/** A random order that often crosses the other account's resting orders (both sides near 60000). */
function randomOrder(n: number): string {
  const side = Math.random() < 0.5 ? "BUY" : "SELL";
  const price = 59_990 + Math.floor(Math.random() * 21);
  const qty = (0.001 * (1 + Math.floor(Math.random() * 5))).toFixed(3);
  if (n % 7 === 0) return `symbol=BTCUSDT&side=${side}&type=MARKET&quantity=${qty}`;
  const tif = n % 5 === 0 ? "IOC" : "GTC";
  return `symbol=BTCUSDT&side=${side}&type=LIMIT&timeInForce=${tif}&quantity=${qty}&price=${price}`;
}

type Account = (typeof ACCOUNTS)[number];

/** The next request of a burst: mostly orders, some cancels of its own resting orders, a few cancel-alls. */
function nextRequest(n: number, resting: number[]): { method: string; path: string; query: string } {
  const roll = Math.random();
  if (roll < CANCEL_SHARE && resting.length > 0) {
    const [orderId] = resting.splice(Math.floor(Math.random() * resting.length), 1);
    return { method: "DELETE", path: "/api/v3/order", query: `symbol=BTCUSDT&orderId=${orderId}` };
  }
  if (roll < CANCEL_SHARE + CANCEL_ALL_SHARE)
    return { method: "DELETE", path: "/api/v3/openOrders", query: "symbol=BTCUSDT" };
  return { method: "POST", path: "/api/v3/order", query: randomOrder(n) };
}

/** The kill's moment: once the bursts together saw `target` orders acknowledged, and a sign for them to stop. */
interface KillSwitch {
  dead: boolean;
  ordersAcked: number;
  readonly target: number;
  readonly reached: () => void;
}

/** A kill switch that fires after `target` acknowledged orders: a count, not a time, so load changes nothing. */
function killSwitchAt(target: number): { stop: KillSwitch; reached: Promise<void> } {
  let reached = () => {};
  const promise = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return { stop: { dead: false, ordersAcked: 0, target, reached }, reached: promise };
}

/** Sends requests until the server dies; returns what it acknowledged. */
async function burst(url: string, account: Account, stop: KillSwitch): Promise<BurstResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const result: BurstResult = { orders: [], cancels: [] };
  const resting: number[] = [];
  try {
    for (let n = 0; !stop.dead; n += 1) {
      const request = nextRequest(n, resting);
      let response: Awaited<ReturnType<typeof sendSigned>>;
      try {
        response = await sendSigned(url, { ...account, ...request, recvWindow: 60_000 }, agent);
      } catch {
        return result; // the server was killed: this request's fate is unknown, and it may be either way
      }
      if (response.status !== 200) continue;
      if (request.method === "DELETE") {
        const reports = (Array.isArray(response.json) ? response.json : [response.json]) as CancelReport[];
        for (const report of reports) result.cancels.push({ ...report, account: account.id });
        continue;
      }
      const body = response.json as {
        orderId: number;
        status: string;
        executedQty: string;
        fills: { tradeId: number }[];
      };
      if (body.status === "NEW" || body.status === "PARTIALLY_FILLED") resting.push(body.orderId);
      stop.ordersAcked += 1;
      if (stop.ordersAcked >= stop.target) stop.reached();
      result.orders.push({
        account: account.id,
        orderId: body.orderId,
        status: body.status,
        executedQty: body.executedQty,
        tradeIds: body.fills.map((f) => f.tradeId),
      });
    }
    return result;
  } finally {
    agent.destroy();
  }
}

/** The database loads again after the kill, and its ledger holds. */
async function expectLoadsWithLedgerIntact(statePath: string, cycle: number): Promise<void> {
  const server = await startServer({ statePath, config: { symbols: ["BTCUSDT"], accounts: ACCOUNTS } });
  try {
    expect(
      ledgerFaults(server.exchange, ["BTCUSDT"], EVERYONE, givenTotals(EVERYONE)),
      `after cycle ${cycle}`,
    ).toEqual([]);
  } finally {
    await server.close();
  }
}

describe("kill -9 (and SIGTERM) during bursts of signed orders, cancels and cancel-alls", () => {
  it(`loses no acknowledged order, cancel, trade or balance change over ${CYCLES} cycles`, async () => {
    const statePath = join(folder, "crash.db");
    const config = join(folder, "config.json");
    writeFileSync(config, JSON.stringify({ symbols: ["BTCUSDT"], accounts: ACCOUNTS }));
    const acked: Acked[] = [];
    const cancelled: BurstResult["cancels"] = [];
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const run = runCli(["--port", "0", "--state", statePath, "--config", config, "--empty"]);
      const url = await baseUrlOf(run);
      const { stop, reached } = killSwitchAt(
        MIN_ORDERS_PER_CYCLE + Math.floor(Math.random() * MIN_ORDERS_PER_CYCLE * 3),
      );
      const loops = ACCOUNTS.flatMap((account) =>
        Array.from({ length: LOOPS_PER_ACCOUNT }, () => burst(url, account, stop)),
      );
      // Killed amid the bursts once enough orders were acknowledged (or if every burst ended first).
      await Promise.race([reached, Promise.all(loops)]);
      // Every fourth cycle is a clean stop (SIGTERM), after which the database must load as well.
      const clean = cycle % 4 === 3;
      run.child.kill(clean ? "SIGTERM" : "SIGKILL");
      const exit = await run.exited;
      if (clean) expect([0, "SIGTERM"], `exit after SIGTERM: ${run.stderr()}`).toContain(exit);
      else expect(exit).toBe("SIGKILL");
      stop.dead = true;
      const got = await Promise.all(loops);
      const orders = got.flatMap((r) => r.orders);
      expect(orders.length, `cycle ${cycle} acknowledged no order`).toBeGreaterThan(0);
      for (const order of orders) acked.push(order);
      for (const r of got) for (const cancel of r.cancels) cancelled.push(cancel);
      await expectLoadsWithLedgerIntact(statePath, cycle);
    }

    const server = await startServer({ statePath, config: { symbols: ["BTCUSDT"], accounts: ACCOUNTS } });
    try {
      const lost: string[] = [];
      for (const order of acked) {
        let found: { status: string; executedQty: string } | undefined;
        try {
          found = server.exchange.queryOrder(order.account, { symbol: "BTCUSDT", orderId: order.orderId });
        } catch {
          lost.push(`${order.account} order ${order.orderId} is missing`);
          continue;
        }
        if (dec.parse(found.executedQty) < dec.parse(order.executedQty))
          lost.push(
            `order ${order.orderId}: executed ${found.executedQty} < acknowledged ${order.executedQty}`,
          );
        if (order.status === "FILLED" && found.status !== "FILLED")
          lost.push(`order ${order.orderId}: acknowledged FILLED, now ${found.status}`);
        for (const tradeId of order.tradeIds) {
          const [trade] = server.exchange.historicalTrades("BTCUSDT", { fromId: tradeId, limit: 1 });
          if (trade?.id !== tradeId) lost.push(`trade ${tradeId} of order ${order.orderId} is missing`);
        }
      }
      for (const cancel of cancelled) {
        const found = server.exchange.queryOrder(cancel.account, {
          symbol: "BTCUSDT",
          orderId: cancel.orderId,
        });
        if (found.status !== "CANCELED" || found.executedQty !== cancel.executedQty)
          lost.push(
            `order ${cancel.orderId}: acknowledged CANCELED at ${cancel.executedQty}, now ${found.status} at ${found.executedQty}`,
          );
      }
      expect(lost).toEqual([]);
      expect(cancelled.length).toBeGreaterThan(CYCLES);

      // Conservation: what the accounts hold plus the fees equals what they were given.
      const expected = new Map<string, bigint>();
      const add = (asset: string, amount: string) =>
        expected.set(asset, (expected.get(asset) ?? 0n) + dec.parse(amount));
      for (const account of ACCOUNTS)
        for (const [asset, amount] of Object.entries(account.balances)) add(asset, amount);
      for (const asset of ["BTC", "USDT"]) add(asset, GENEROUS_BALANCE); // the demo account
      const held = new Map<string, bigint>();
      for (const id of ["demo", "alice", "bob"]) {
        for (const b of server.exchange.balances(id)) {
          held.set(b.asset, (held.get(b.asset) ?? 0n) + dec.parse(b.free) + dec.parse(b.locked));
        }
      }
      for (const [asset, fee] of Object.entries(server.exchange.feesCollected())) {
        held.set(asset, (held.get(asset) ?? 0n) + dec.parse(fee));
      }
      expect(held).toEqual(expected);
      expect(acked.length).toBeGreaterThanOrEqual(CYCLES * MIN_ORDERS_PER_CYCLE);
    } finally {
      await server.close();
    }
  });
});
