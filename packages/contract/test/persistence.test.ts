// What a target keeps across a restart (--remember, then `recall`; check persistence): the pure
// judgement as given/want, then a real reference server on --state in a process of its own: a
// small run remembered, kill -9, the server started again on the same file, recall passes; each
// fault of the catalog in front of the restarted server is caught and named; SIGTERM and a
// restart pass as well. One server process for the file (restarted twice).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMemory, parseRecall, recallText, runRecall } from "../src/recall.js";
import { judgePage, type PageRead } from "../src/run/fresh-reads.js";
import type { Item, Memory, SymbolMemory } from "../src/run/memory.js";
import {
  changedFields,
  clientIdTargets,
  judgeBalances,
  judgeClientIdLookup,
  judgeSymbol,
} from "../src/run/persistence.js";
import { judgeCounterRestart, judgeResetTimes, judgeSameExchange, type ResetTime } from "../src/run/reset.js";
import { judgeAdminAnswer, judgeIdAgain, judgeRolledBack } from "../src/run/snapshots.js";
import { startFaultProxy } from "./support/fault-proxy.js";
import {
  type PersistenceFault,
  persistenceFaults,
  resetFaults,
  snapshotFaults,
} from "./support/persistence-faults.js";
import { runContract } from "./support/run.js";

const order = (o: Item = {}): Item => ({
  symbol: "BTCUSDT",
  orderId: 7,
  clientOrderId: "c-7",
  price: "100.00",
  origQty: "1.00",
  executedQty: "1.00",
  status: "FILLED",
  time: 1000,
  updateTime: 2000,
  ...o,
});
const trade = (t: Item = {}): Item => ({ id: 3, orderId: 7, price: "100.00", qty: "1.00", time: 2000, ...t });
const symbolMemory = (s: Partial<SymbolMemory> = {}): SymbolMemory => ({
  symbol: "BTCUSDT",
  orders: [order()],
  trades: [trade()],
  publicTrades: [trade()],
  candles: [[60_000, "100", "100", "100", "100", "1", 119_999, "100", 1, "1", "100", "0"]],
  tickerLastId: 3,
  floor: { orderId: 7, tradeId: 3 },
  ...s,
});
const memory = (symbols: SymbolMemory[], balances?: Memory["balances"]): Memory => ({
  format: "marketapi-contract memory 1",
  baseUrl: "http://x",
  takenAt: 5000,
  symbols,
  ...(balances ? { balances } : {}),
  notes: [],
});

describe("the persistence judgement", () => {
  it("names each changed field", () => {
    expect(changedFields(order(), order({ status: "NEW", executedQty: "0.00" }))).toEqual([
      'executedQty: "1.00" → "0.00"',
      'status: "FILLED" → "NEW"',
    ]);
  });

  const cases: Array<{ given: string; after: SymbolMemory; want: RegExp[] }> = [
    { given: "everything as it was", after: symbolMemory(), want: [] },
    {
      given: "a newer order and trade beside the remembered ones",
      after: symbolMemory({
        orders: [order(), order({ orderId: 9, clientOrderId: "c-9" })],
        trades: [trade(), trade({ id: 4 })],
        tickerLastId: 4,
      }),
      want: [],
    },
    {
      given: "an order gone",
      after: symbolMemory({ orders: [] }),
      want: [/BTCUSDT order 7 \(clientOrderId "c-7"\): all_orders: not found/],
    },
    {
      given: "an order's fill forgotten",
      after: symbolMemory({ orders: [order({ status: "NEW" })] }),
      want: [/order 7 .*all_orders: status: "FILLED" → "NEW"/],
    },
    {
      given: "an open order that filled since keeps its placement",
      after: symbolMemory({ orders: [order({ status: "FILLED", executedQty: "1.00" })] }),
      want: [],
    },
    {
      given: "an order that was not there, at an id below the remembered highest",
      after: symbolMemory({ orders: [order({ orderId: 5, clientOrderId: "c-5" }), order()] }),
      want: [/order 5 .*an order with an id at or below the remembered highest \(7\)/],
    },
    {
      given: "a trade's price changed, a public trade gone",
      after: symbolMemory({ trades: [trade({ price: "99.00" })], publicTrades: [] }),
      want: [
        /trade 3 \(order 7\): myTrades: price: "100.00" → "99.00"/,
        /trade 3 .*historical_trades: not found/,
      ],
    },
    {
      given: "a candle rewritten and the ticker behind",
      after: symbolMemory({
        candles: [[60_000, "100", "100", "100", "100", "2", 119_999, "200", 2, "1", "100", "0"]],
        tickerLastId: 2,
      }),
      want: [/1m candle opening 1970-01-01T00:01:00.000Z: klines/, /lastId 2 is below the remembered 3/],
    },
  ];
  it.each(cases)("$given", ({ given, after, want }) => {
    const before = given.startsWith("an open order")
      ? symbolMemory({ orders: [order({ status: "NEW", executedQty: "0.00" })] })
      : symbolMemory();
    const findings = judgeSymbol(before, after, 200_000).findings.map((f) => `${f.subject}: ${f.message}`);
    expect(findings).toHaveLength(want.length);
    for (const [i, pattern] of want.entries()) expect(findings[i]).toMatch(pattern);
  });

  it("judges balances only while the account did nothing since", () => {
    const was = memory([symbolMemory()], { USDT: { free: "10", locked: "0" } });
    const reset = memory([symbolMemory()], { USDT: { free: "20", locked: "0" } });
    expect(judgeBalances(was, reset).findings.map((f) => `${f.subject}: ${f.message}`)).toEqual([
      'balance of USDT: account: free: "10" → "20"',
    ]);
    const traded = memory([symbolMemory({ trades: [trade(), trade({ id: 8 })] })], reset.balances);
    expect(judgeBalances(was, traded)).toMatchObject({ findings: [], notes: [/not judged/] });
  });

  it("finds by a client order id the open order with it, else the newest", () => {
    const targets = (orders: Item[]) => clientIdTargets(orders).map((o) => o.orderId);
    expect(targets([order(), order({ orderId: 8, time: 1500 })])).toEqual([8]);
    expect(targets([order({ status: "NEW" }), order({ orderId: 8, time: 1500 })])).toEqual([7]);
    expect(targets([order(), order({ orderId: 8, clientOrderId: "c-8" })])).toEqual([7, 8]);
  });

  it("keeps both sides of a trade between two orders of the account apart", () => {
    const selfTrade = [trade(), trade({ orderId: 8, isBuyer: false })];
    const before = symbolMemory({ trades: selfTrade });
    expect(judgeSymbol(before, symbolMemory({ trades: [...selfTrade].reverse() }), 0).findings).toEqual([]);
    expect(judgeSymbol(before, symbolMemory({ trades: [trade()] }), 0).findings).toMatchObject([
      { subject: "BTCUSDT trade 3 (order 8)", message: "myTrades: not found" },
    ]);
  });

  it("accepts a newer order under a closed order's client id, not another one", () => {
    expect(judgeClientIdLookup("BTCUSDT", order(), order({ orderId: 9 }), 7)).toEqual([]);
    expect(judgeClientIdLookup("BTCUSDT", order(), order({ orderId: 6 }), 7)).toHaveLength(1);
    expect(judgeClientIdLookup("BTCUSDT", order({ status: "NEW" }), order({ orderId: 9 }), 7)).toHaveLength(
      1,
    );
  });

  it("refuses a missing or foreign record, naming its path", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-"));
    try {
      const missing = join(dir, "none.json");
      expect(() => loadMemory(missing)).toThrow(`${missing}: cannot be read: ENOENT`);
      const foreign = join(dir, "foreign.json");
      writeFileSync(foreign, "{}");
      expect(() => loadMemory(foreign)).toThrow(`${foreign}: not a record written by --remember`);
      expect(() => parseRecall([missing])).toThrow(/--base-url URL or --endpoint FILE/);
      expect(() => parseRecall(["--base-url", "http://x"])).toThrow(/needs the FILE/);
      expect(() => parseRecall([missing, "--base-url", "http://x", "--allow-reset"])).toThrow(
        /--allow-reset needs --admin-url/,
      );
      const admin = ["--admin-url", "http://a", "--admin-token", "t"];
      expect(parseRecall([missing, "--base-url", "http://x", ...admin]).allowReset).toBeUndefined();
      expect(parseRecall([missing, "--base-url", "http://x", ...admin, "--allow-reset"]).allowReset).toBe(
        true,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("reads at once after writes: a page by its own request", () => {
  const read = (values: Record<string, unknown>): PageRead => ({
    operationId: "all_orders",
    limit: { parameter: "limit" },
    cursor: { parameter: "orderId", field: "/orderId", inclusive: true },
    window: { start: "startTime", end: "endTime", field: "/time", inclusive: true },
    values: { symbol: "BTCUSDT", ...values },
  });
  const items = (...pairs: Array<[number, number]>) => pairs.map(([orderId, time]) => ({ orderId, time }));
  const cases: Array<{ given: string; values: Record<string, unknown>; list: unknown[]; want: RegExp[] }> = [
    {
      given: "a page within its limit",
      values: { limit: 2, orderId: 5 },
      list: items([5, 1], [6, 2]),
      want: [],
    },
    {
      given: "a page over its limit",
      values: { limit: 2, orderId: 5 },
      list: items([5, 1], [6, 2], [7, 3]),
      want: [/3 items, more than its limit 2/],
    },
    {
      given: "an item before the cursor",
      values: { limit: 2, orderId: 5 },
      list: items([4, 1], [5, 2]),
      want: [/lists orderId 4, before the cursor 5/],
    },
    {
      given: "items at both bounds of an inclusive window",
      values: { startTime: 10, endTime: 20 },
      list: items([1, 10], [2, 20]),
      want: [],
    },
    {
      given: "items after the window's end and before its start",
      values: { startTime: 10, endTime: 20 },
      list: items([1, 9], [2, 15], [3, 21]),
      want: [/2 item\(s\) outside its window \(time 9, 21\)/],
    },
  ];
  it.each(cases)("$given", ({ values, list, want }) => {
    const found = judgePage(read(values), list).map((f) => `${f.subject}: ${f.message}`);
    expect(found).toHaveLength(want.length);
    for (const [i, pattern] of want.entries()) expect(found[i]).toMatch(pattern);
  });
  it("an exclusive cursor or window leaves its bound out", () => {
    const exclusive: PageRead = {
      ...read({ orderId: 5, startTime: 10 }),
      cursor: { parameter: "orderId", field: "/orderId", inclusive: false },
      window: { start: "startTime", end: "endTime", field: "/time", inclusive: false },
    };
    expect(judgePage(exclusive, items([5, 10])).map((f) => f.message)).toEqual([
      "lists orderId 5, before the cursor 5",
      "lists 1 item(s) outside its window (time 10)",
    ]);
  });
});

describe("a snapshot restored", () => {
  const at = memory([symbolMemory()]);
  const cases: Array<{ given: string; now: SymbolMemory; quiet: boolean; want: RegExp[] }> = [
    { given: "everything as at the snapshot", now: symbolMemory(), quiet: true, want: [] },
    {
      given: "an order and a trade made after it",
      now: symbolMemory({
        orders: [order(), order({ orderId: 9 })],
        trades: [trade(), trade({ id: 4, orderId: 9 })],
      }),
      quiet: true,
      want: [/all_orders: order\(s\) 9 placed after the snapshot/, /myTrades: trade\(s\) 4 made after/],
    },
    {
      given: "the ticker's last id not gone back, no market running",
      now: symbolMemory({ tickerLastId: 5 }),
      quiet: true,
      want: [/lastId 5 after the restore, the snapshot's was 3/],
    },
    {
      given: "the ticker's last id moved by a running market",
      now: symbolMemory({ tickerLastId: 5 }),
      quiet: false,
      want: [],
    },
  ];
  it.each(cases)("$given", ({ now, quiet, want }) => {
    const found = judgeRolledBack(at, memory([now]), quiet).map((f) => `${f.subject}: ${f.message}`);
    expect(found).toHaveLength(want.length);
    for (const [i, pattern] of want.entries()) expect(found[i]).toMatch(pattern);
  });

  it("gives the first order after it the id the first order after the snapshot got", () => {
    expect(judgeIdAgain("BTCUSDT", 8, 7, 8, true)).toEqual([]);
    expect(judgeIdAgain("BTCUSDT", 9, 7, 8, false)).toEqual([]);
    expect(judgeIdAgain("BTCUSDT", 9, 7, 8, true)[0]?.message).toMatch(/sequence is not the snapshot's/);
    expect(judgeIdAgain("BTCUSDT", 7, 7, 8, false)[0]?.message).toMatch(
      /not above the snapshot's highest \(7\)/,
    );
  });

  it("judges an admin answer by its status and the document's schema", () => {
    expect(judgeAdminAnswer("delete", { status: 204, body: undefined, problems: [] }, 204)).toEqual([]);
    expect(
      judgeAdminAnswer("restore", { status: 200, body: { id: "s1" }, problems: [] }, 404)[0]?.message,
    ).toBe('status 200 ({"id":"s1"}), expected 404');
    expect(
      judgeAdminAnswer("restore", { status: 404, body: {}, problems: ["must have error"] }, 404)[0]?.message,
    ).toMatch(/does not match the sandbox document: must have error/);
  });
});

describe("a reset judged", () => {
  const reset = (answered: number, ran = 5, server?: number) => ({
    answered,
    ran,
    ...(server !== undefined ? { server: { time: server, ran: 10 } } : {}),
  });
  const cases: Array<{ given: string; first: ResetTime; second: ResetTime; want: RegExp[] }> = [
    {
      given: "the same start both times",
      first: reset(1000, 5, 1003),
      second: reset(1002, 5, 1004),
      want: [],
    },
    {
      given: "the clock left where it was",
      first: reset(1000),
      second: reset(3_601_000),
      want: [/the first reset answered time 1000, the second 3601000: a reset brings the clock back/],
    },
    {
      given: "a time the sandbox's clock does not show",
      first: reset(1000, 5, 900),
      second: reset(1000, 5, 1020),
      want: [
        /sandbox_reset \(first\): answered time 1000, but server_time right after says 900/,
        /sandbox_reset \(second\): answered time 1000, but server_time right after says 1020 \(at most 10 ms later\)/,
      ],
    },
  ];
  it.each(cases)("$given", ({ first, second, want }) => {
    const found = judgeResetTimes(first, second).map((f) => `${f.subject}: ${f.message}`);
    expect(found).toHaveLength(want.length);
    for (const [i, pattern] of want.entries()) expect(found[i]).toMatch(pattern);
  });

  it("wants the same exchange after both resets", () => {
    const reading = (s: SymbolMemory, book: unknown) => ({
      memory: memory([s]),
      market: [{ symbol: "BTCUSDT", book, trades: [], candles: [] }],
    });
    const same = reading(symbolMemory(), { bids: [] });
    expect(judgeSameExchange(same, reading(symbolMemory(), { bids: [] }), true)).toEqual([]);
    const kept = reading(symbolMemory({ orders: [order(), order({ orderId: 9 })] }), { bids: [["1", "1"]] });
    expect(judgeSameExchange(same, kept, true).map((f) => `${f.subject}: ${f.message}`)).toEqual([
      "BTCUSDT all_orders: order(s) 9 listed after the second reset, not after the first",
      'BTCUSDT order_book: differs after the second reset from after the first: {"bids":[]} → {"bids":[["1","1"]]}',
    ]);
    expect(judgeSameExchange(same, kept, false)).toHaveLength(1);
  });

  it("wants a rate-limit counter to count only what was sent since the reset", () => {
    expect(judgeCounterRestart("X-MBX-USED-WEIGHT-1M", 300, 1, 1)).toEqual([]);
    expect(judgeCounterRestart("X-MBX-USED-WEIGHT-1M", 1, 2, 1)).toEqual([]);
    expect(judgeCounterRestart("X-MBX-USED-WEIGHT-1M", 300, 302, 1)[0]?.message).toBe(
      "302 right after the reset, though only 1 was sent since (at least 300 before it): a reset clears the rate-limit counts",
    );
  });
});

/** The reference server's command on --state FILE, in a process of its own (kill -9 needs one). */
interface StateServer {
  url: string;
  child: ChildProcess;
  /** The sandbox's admin surface (--admin-port 0). */
  admin: { url: string; token: string };
}
const serverCli = join(
  dirname(createRequire(import.meta.url).resolve("@marketapi/reference-server/package.json")),
  "dist",
  "cli.js",
);
function startStateServer(file: string): Promise<StateServer> {
  const child = spawn(process.execPath, [serverCli, "--port", "0", "--state", file, "--admin-port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    child.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const url = /base URL\s+(\S+)/.exec(out)?.[1];
      const admin = /admin\s+(http\S+) \(Authorization: Bearer (\S+)\)/.exec(out);
      if (url && admin && /Press Ctrl\+C/.test(out))
        resolve({ url, child, admin: { url: admin[1]!, token: admin[2]! } });
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`the server exited (${signal ?? code}): ${err.slice(-300)}`)),
    );
  });
}
function stop(server: StateServer, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.child.once("exit", () => resolve());
    server.child.kill(signal);
  });
}

const DEMO = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };

describe("recall after a restart, on a reference server on --state", () => {
  const dir = mkdtempSync(join(tmpdir(), "persistence-"));
  const state = join(dir, "state.db");
  const record = join(dir, "memory.json");
  let server: StateServer;

  beforeAll(async () => {
    server = await startStateServer(state);
    const run = await runContract({
      baseUrl: server.url,
      ...DEMO,
      allowTrading: true,
      referenceExtras: true,
      only: ["order_arithmetic"],
      maxSymbols: 2,
      exploreBudget: 0,
      seed: 3,
      remember: record,
    });
    expect(run.error).toBeUndefined();
    await stop(server, "SIGKILL");
    server = await startStateServer(state);
  });
  afterAll(async () => {
    await stop(server, "SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  // First: what the recall sees only while the run's trades are within a window of real time.
  const faults = persistenceFaults(DEMO.apiSecret);
  const catches = async (fault: PersistenceFault) => {
    const proxy = await startFaultProxy(server.url, fault);
    try {
      const result = await runRecall({ file: record, baseUrl: proxy.url, ...DEMO, allowTrading: true });
      expect(result.exitCode, recallText(result)).toBe(1);
      expect(result.findings.map((f) => `${f.subject}: ${f.message}`).join("\n")).toMatch(fault.want);
    } finally {
      await proxy.close();
    }
  };
  it.each(faults.filter((f) => f.seenWithinMs !== undefined))("catches $name (judged first)", catches);

  it("remembers orders, trades, candles and balances of every traded symbol", () => {
    const memory = loadMemory(record);
    expect(memory.symbols.length).toBe(2);
    expect(memory.symbols[0]!.orders.length).toBeGreaterThan(3);
    expect(memory.symbols[0]!.trades!.length).toBeGreaterThan(0);
    // One public trade for each trade id of the account (a trade between two of its orders, as
    // order_arithmetic's FOK across two levels makes, is the account's twice).
    const ids = new Set(memory.symbols[0]!.trades!.map((t) => t.id));
    expect(memory.symbols[0]!.publicTrades.length).toBe(ids.size);
    expect(Object.keys(memory.balances ?? {}).length).toBeGreaterThan(1);
  });

  it("passes after kill -9 and a restart, then after SIGTERM and a restart", async () => {
    const first = await runRecall({ file: record, baseUrl: server.url, ...DEMO, allowTrading: true });
    expect(recallText(first)).toMatch(/✓ persistence/);
    expect(first).toMatchObject({ exitCode: 0, findings: [] });
    expect(first.held).toBeGreaterThan(10);
    await stop(server, "SIGTERM");
    server = await startStateServer(state);
    const second = await runRecall({ file: record, baseUrl: server.url, ...DEMO });
    expect(second).toMatchObject({ exitCode: 0, findings: [] });
  });

  it("judges the sandbox's snapshots: restored twice, everything as at the snapshot, then deleted", async () => {
    const result = await runRecall({
      file: record,
      baseUrl: server.url,
      ...DEMO,
      allowTrading: true,
      admin: server.admin,
    });
    expect(result, recallText(result)).toMatchObject({ exitCode: 0, findings: [] });
    expect(recallText(result)).toMatch(/placed after the restore, undone by the second/);
  });

  it.each(faults.filter((f) => f.seenWithinMs === undefined))("catches $name", catches);

  // Last: a restore that does nothing leaves the orders and the trade made after the snapshot.
  it.each(snapshotFaults())("catches $name", async (fault) => {
    const proxy = await startFaultProxy(new URL(server.admin.url).origin, fault);
    try {
      const result = await runRecall({
        file: record,
        baseUrl: server.url,
        ...DEMO,
        allowTrading: true,
        admin: { url: proxy.url, token: server.admin.token },
      });
      expect(result.exitCode, recallText(result)).toBe(1);
      expect(result.findings.map((f) => `${f.subject}: ${f.message}`).join("\n")).toMatch(fault.want);
    } finally {
      await proxy.close();
    }
  });
  // Last of all: the reset (its last fault leaves the sandbox reset).
  it("judges the sandbox's reset: the same exchange twice, what came between gone, then restored", async () => {
    const result = await runRecall({
      file: record,
      baseUrl: server.url,
      ...DEMO,
      allowTrading: true,
      admin: server.admin,
      allowReset: true,
    });
    expect(result, recallText(result)).toMatchObject({ exitCode: 0, findings: [] });
    // The snapshot taken before the resets brought everything back: recall passes again.
    const again = await runRecall({ file: record, baseUrl: server.url, ...DEMO });
    expect(again, recallText(again)).toMatchObject({ exitCode: 0, findings: [] });
  });

  it.each(resetFaults(DEMO.apiSecret))("catches $name", async (fault) => {
    const proxy = await startFaultProxy(new URL(server.admin.url).origin, fault);
    const api = fault.api ? await startFaultProxy(server.url, fault.api) : undefined;
    try {
      const result = await runRecall({
        file: record,
        baseUrl: api?.url ?? server.url,
        ...DEMO,
        allowTrading: true,
        admin: { url: proxy.url, token: server.admin.token },
        allowReset: true,
      });
      expect(result.exitCode, recallText(result)).toBe(1);
      expect(result.findings.map((f) => `${f.subject}: ${f.message}`).join("\n")).toMatch(fault.want);
    } finally {
      await proxy.close();
      await api?.close();
    }
  });
});
