/**
 * The sandbox's reset judged over HTTP (recall --admin-url URL --admin-token T --allow-reset; the
 * admin operations of @marketapi/spec/sandbox.openapi.json). The sandbox document: the exchange
 * as the server started it, the clock back at that time, rate-limit counts cleared, accounts
 * added through the admin surface removed, snapshots kept.
 *
 * A snapshot is taken first, so that what the reset throws away can be brought back. Then two
 * resets, with orders placed, an account added and (with no simulated market running) the clock
 * advanced between them. Judged: the answer's `time` is the sandbox's time (server_time read
 * right after), the same start both times; both resets give the same exchange (the account's
 * orders, trades and balances, and with no market running the book, the trade list and the
 * closed candles); the orders placed between them are unknown after the second (the document's
 * code), and the account added between them is refused; the used weight restarts (the first
 * answer after the reset counts only itself) and so does the order count; the snapshots listed
 * before are listed after. Last, the snapshot taken first is restored (everything as before the
 * resets) and deleted: the sandbox ends as it was, its snapshots kept.
 */
import { randomBytes } from "node:crypto";
import { refusalFor } from "@marketapi/spec/model";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { VIEWS, viewOperation } from "../kit/account-views.js";
import { bodyObject, describeAnswer, errorCode, ok } from "../kit/answers.js";
import { type Counter, countersOf, counterValue } from "../kit/counters.js";
import { farBuyOrder, planFarBuy } from "../kit/market.js";
import type { Session } from "../session/session.js";
import { type Item, type Memory, quietCall } from "./memory.js";
import { type Finding, type Judgement, judgeMemory } from "./persistence.js";
import {
  type AdminSurface,
  accountOf,
  admin,
  cancelPlaced,
  judgeAdminAnswer,
  judgeRolledBack,
  type PlacedAfter,
  placeAfter,
  type Rules,
  resync,
  startAdminRun,
} from "./snapshots.js";

const num = (value: unknown): number => (typeof value === "number" ? value : Number(value));

/** How far the clock is advanced between the resets when no simulated market runs. */
const ADVANCE = "1h";

/** One reset as the run saw it. */
export interface ResetTime {
  /** The `time` its answer gave. */
  answered: number;
  /** Sandbox milliseconds the reset call could span (its real duration at the clock's rate). */
  ran: number;
  /** server_time read right after the answer, and the sandbox milliseconds that read could span. */
  server?: { time: number; ran: number };
}

/**
 * The time a reset answers is the sandbox's time after it (server_time right after is not
 * earlier, nor later than the read could take), and a reset brings the clock back to the
 * server's start: two resets answer the same time, within what each call could take. Pure.
 */
export function judgeResetTimes(first: ResetTime, second: ResetTime): Finding[] {
  const findings: Finding[] = [];
  for (const [which, reset] of [
    ["first", first],
    ["second", second],
  ] as const) {
    const server = reset.server;
    if (server && !(server.time >= reset.answered && server.time <= reset.answered + server.ran))
      findings.push({
        subject: `sandbox_reset (${which})`,
        message: `answered time ${reset.answered}, but server_time right after says ${server.time} (at most ${server.ran} ms later): the answer's time is the sandbox's time after the reset`,
      });
  }
  const spread = Math.max(first.ran, second.ran);
  if (Math.abs(second.answered - first.answered) > spread)
    findings.push({
      subject: "sandbox_reset",
      message: `the first reset answered time ${first.answered}, the second ${second.answered}: a reset brings the clock back to the server's start, the same each time (within ${spread} ms, what a reset call took)`,
    });
  return findings;
}

/** What time cannot move while no simulated market runs: the book, the trade list, the closed candles. */
export interface MarketReading {
  symbol: string;
  book?: unknown;
  trades?: unknown;
  /** Candles closed before the reading's time. */
  candles?: unknown[][];
}

/**
 * Two resets give the same exchange: the account's orders, trades and balances as after the
 * first (judgeMemory both ways, and nothing listed beyond what the first showed), and with no
 * market running the book, the trade list and the candles closed before both readings. Pure.
 */
export function judgeSameExchange(
  first: { memory: Memory; market: readonly MarketReading[] },
  second: { memory: Memory; market: readonly MarketReading[] },
  quiet: boolean,
): Finding[] {
  const findings: Finding[] = [];
  const say = (f: Finding) => ({ ...f, message: `after the second reset: ${f.message}` });
  findings.push(...judgeMemory(first.memory, second.memory).findings.map(say));
  findings.push(...listedBeyond(first.memory, second.memory, quiet));
  if (!quiet) return findings;
  for (const was of first.market) {
    const now = second.market.find((m) => m.symbol === was.symbol);
    if (!now) continue;
    for (const what of ["book", "trades"] as const)
      if (was[what] !== undefined && JSON.stringify(was[what]) !== JSON.stringify(now[what]))
        findings.push({
          subject: `${was.symbol} ${what === "book" ? "order_book" : "recent_trades_list"}`,
          message: `differs after the second reset from after the first: ${shortDiff(was[what], now[what])}`,
        });
    const candles = new Map((now.candles ?? []).map((c) => [num(c[0]), c]));
    for (const candle of was.candles ?? []) {
      const again = candles.get(num(candle[0]));
      if (again !== undefined && JSON.stringify(again) === JSON.stringify(candle)) continue;
      findings.push({
        subject: `${was.symbol} 1m candle opening ${new Date(num(candle[0])).toISOString()}`,
        message: `after the second reset ${again ? JSON.stringify(again) : "not listed"}, after the first ${JSON.stringify(candle)}`,
      });
    }
  }
  return findings;
}

/** What the second reading lists beyond the first: orders and trades above its highest ids, a ticker moved on. */
function listedBeyond(first: Memory, second: Memory, quiet: boolean): Finding[] {
  const findings: Finding[] = [];
  const beyond = "listed after the second reset, not after the first";
  for (const was of first.symbols) {
    const now = second.symbols.find((s) => s.symbol === was.symbol);
    if (!now) continue;
    const orders = now.orders.filter((o) => num(o.orderId) > was.floor.orderId).map((o) => num(o.orderId));
    if (orders.length > 0)
      findings.push({
        subject: `${was.symbol} all_orders`,
        message: `order(s) ${orders.join(", ")} ${beyond}`,
      });
    const trades = (now.trades ?? []).filter((t) => num(t.id) > was.floor.tradeId).map((t) => num(t.id));
    if (trades.length > 0)
      findings.push({
        subject: `${was.symbol} myTrades`,
        message: `trade(s) ${trades.join(", ")} ${beyond}`,
      });
    if (quiet && was.tickerLastId !== undefined && now.tickerLastId !== was.tickerLastId)
      findings.push({
        subject: `${was.symbol} 24-hour ticker`,
        message: `lastId ${JSON.stringify(now.tickerLastId)} after the second reset, ${was.tickerLastId} after the first`,
      });
  }
  return findings;
}

function shortDiff(a: unknown, b: unknown): string {
  return `${JSON.stringify(a).slice(0, 120)} → ${JSON.stringify(b).slice(0, 120)}`;
}

/**
 * A rate-limit counter right after the reset counts only what was sent since (`since`), where
 * at least `before` was counted before it (so that a counter that did not restart shows). Pure.
 */
export function judgeCounterRestart(
  counter: string,
  before: number | undefined,
  after: number | undefined,
  since: number,
): Finding[] {
  if (before === undefined || after === undefined || before <= since) return [];
  return after <= since
    ? []
    : [
        {
          subject: `sandbox_reset: ${counter}`,
          message: `${after} right after the reset, though only ${since} was sent since (at least ${before} before it): a reset clears the rate-limit counts`,
        },
      ];
}

/** The account's read (the sandbox document's, where the API's spec has none). */
function accountOperation(session: Session): ContractOperation | undefined {
  return session.model.operation(VIEWS.account) ?? viewOperation(VIEWS.account);
}

/** A signed read as `as` (an account added through the admin surface). */
async function readAs(session: Session, op: ContractOperation, as: { apiKey: string; apiSecret: string }) {
  return session.call({ op, params: encodeParams(op, {}), as }, "reset: account as the added account", {
    responseChecks: false,
    essential: true,
  });
}

/** The first counter of `kind` an answer of `op` carries. */
function counterOf(op: ContractOperation | undefined, kind: RegExp): Counter | undefined {
  return op ? countersOf(op, kind)[0] : undefined;
}

async function readMarket(session: Session, symbols: readonly Rules[], at: number): Promise<MarketReading[]> {
  const out: MarketReading[] = [];
  const get = async (operationId: string, values: Record<string, unknown>) => {
    const op = session.model.operation(operationId);
    if (!op) return undefined;
    const answer = await quietCall(session, op, values, `reset: ${operationId}`);
    return ok(answer) ? answer.response?.json : undefined;
  };
  for (const { rules } of symbols) {
    const { symbol } = rules;
    const candles = (await readCandles(session, symbol, at)) ?? [];
    out.push({
      symbol,
      book: await get("order_book", { symbol, limit: 100 }),
      trades: await get("recent_trades_list", { symbol, limit: 1000 }),
      candles: candles.filter((c) => num(c[6]) < at),
    });
  }
  return out;
}

async function readCandles(session: Session, symbol: string, at: number): Promise<unknown[][] | undefined> {
  const op = session.model.operation("kline_candlestick_data") ?? viewOperation("kline_candlestick_data");
  if (!op) return undefined;
  const answer = await quietCall(
    session,
    op,
    { symbol, interval: "1m", startTime: at - 3 * 3_600_000, endTime: at, limit: 1000 },
    "reset: klines",
  );
  return ok(answer) && Array.isArray(answer.response?.json)
    ? (answer.response.json as unknown[][])
    : undefined;
}

export async function judgeReset(
  session: Session,
  surface: AdminSurface,
  baseUrl: string,
  symbols: readonly Rules[],
  trading: boolean,
): Promise<Judgement> {
  const { out, record, readAccount, sandbox } = await startAdminRun(session, surface, baseUrl, symbols);
  if (!sandbox) return out;
  const { rate, quiet } = sandbox;
  if (!quiet)
    out.notes.push("reset: a simulated market runs: the book, the trades and the candles not judged");

  // A snapshot first: the reset's losses are brought back at the end.
  const before = await readAccount();
  const taken = await admin(surface, "sandbox_take_snapshot");
  record(judgeAdminAnswer("sandbox_take_snapshot (before the reset)", taken, 201));
  if (taken.status !== 201) return out;
  const { id } = taken.body as { id: string };
  const kept = async () => {
    const answer = await admin(surface, "sandbox_status");
    return ((answer.body as { snapshots?: Item[] })?.snapshots ?? []).map((s) => String(s.id));
  };
  const listedBefore = await kept();
  const atSnapshot = await readAccount();
  if (accountOf(before) !== accountOf(atSnapshot)) {
    out.notes.push("reset not judged: the account changed while the snapshot before it was taken");
    await admin(surface, "sandbox_delete_snapshot", { snapshotId: id });
    return out;
  }

  const time = session.model.operation("server_time");
  /** `rightAfter`: what is read first after the answer (before the clock is read). */
  const reset = async (which: string, rightAfter?: () => Promise<void>): Promise<ResetTime | undefined> => {
    const sent = performance.now();
    const answer = await admin(surface, "sandbox_reset");
    const ran = Math.ceil(rate * (performance.now() - sent)) + 1;
    record(judgeAdminAnswer(`sandbox_reset (${which})`, answer, 200));
    if (answer.status !== 200) return undefined;
    const answered = num((answer.body as { time?: unknown })?.time);
    const asked = performance.now();
    await rightAfter?.();
    if (!time) return { answered, ran };
    const served = await quietCall(session, time, {}, `reset: server time after the ${which} reset`);
    const serverTime = bodyObject(served)?.serverTime;
    await resync(session);
    return {
      answered,
      ran,
      ...(typeof serverTime === "number"
        ? { server: { time: serverTime, ran: Math.ceil(rate * (performance.now() - asked)) + ran + 1 } }
        : {}),
    };
  };

  const first = await reset("first");
  if (!first) return finish(session, surface, id, atSnapshot, out, record, readAccount, quiet);
  const snapshotsKept = (await kept()).filter((s) => listedBefore.includes(s));
  record(
    snapshotsKept.length === listedBefore.length
      ? []
      : [
          {
            subject: "sandbox_reset (first)",
            message: `snapshot(s) ${listedBefore.filter((s) => !snapshotsKept.includes(s)).join(", ")} listed before it are not listed after it: a reset keeps the snapshots`,
          },
        ],
  );
  const readingOne = {
    memory: await readAccount(),
    market: quiet ? await readMarket(session, symbols, first.answered) : [],
  };

  // Between the resets: an account added, orders placed, the clock advanced.
  const added = await addAccount(session, surface, out);
  const placed = trading ? await placeAfter(session, symbols, out) : [];
  if (!trading) out.notes.push("reset: no order placed between the resets (--allow-trading)");
  if (quiet) {
    const advanced = await admin(surface, "sandbox_advance_clock", {}, { by: ADVANCE });
    if (advanced.status === 200) await resync(session);
    else out.notes.push(`reset: the clock not advanced between the resets (status ${advanced.status})`);
  }
  // The used weight just before the second reset, and right after it (the first request sent).
  const weightOp = session.model.operation("ping");
  const weight = counterOf(weightOp, /X-MBX-USED-WEIGHT/);
  const usedWeight = async (label: string) => {
    if (!weightOp || !weight) return undefined;
    const answer = await quietCall(session, weightOp, {}, `reset: used weight ${label}`);
    return { used: counterValue(answer, weight), weight: session.weightOf(answer.plan) };
  };
  const weightBefore = await usedWeight("before");
  let weightAfter: Awaited<ReturnType<typeof usedWeight>>;
  const second = await reset("second", async () => {
    weightAfter = await usedWeight("after");
  });
  if (!second) {
    await cancelPlaced(session, placed, out);
    return finish(session, surface, id, atSnapshot, out, record, readAccount, quiet);
  }
  if (weight && weightBefore && weightAfter)
    record(judgeCounterRestart(weight.name, weightBefore.used, weightAfter.used, weightAfter.weight));
  record(judgeResetTimes(first, second));
  const readingTwo = {
    memory: await readAccount(),
    market: quiet ? await readMarket(session, symbols, first.answered) : [],
  };
  record(judgeSameExchange(readingOne, readingTwo, quiet));
  await judgeUnknownAfter(session, placed, added, record);
  await judgeOrderCount(session, symbols, placed, record, out);
  return finish(session, surface, id, atSnapshot, out, record, readAccount, quiet);
}

/** An account added through the admin surface, shown to be served (a signed read as it). */
async function addAccount(
  session: Session,
  surface: AdminSurface,
  out: Judgement,
): Promise<{ apiKey: string; apiSecret: string } | undefined> {
  const account = accountOperation(session);
  const credentials = {
    apiKey: `reset-${randomBytes(6).toString("hex")}`,
    apiSecret: randomBytes(16).toString("hex"),
  };
  const answer = await admin(surface, "sandbox_add_account", {}, credentials);
  if (answer.status !== 201) {
    out.notes.push(`reset: no account added between the resets (status ${answer.status})`);
    return undefined;
  }
  if (!account) return credentials;
  const served = await readAs(session, account, credentials);
  if (!ok(served)) {
    out.notes.push(
      `reset: the added account's read refused before the reset (${describeAnswer(served)}): not judged`,
    );
    return undefined;
  }
  return credentials;
}

/** After the second reset: the orders placed between the resets unknown, the added account refused. */
async function judgeUnknownAfter(
  session: Session,
  placed: readonly PlacedAfter[],
  added: { apiKey: string; apiSecret: string } | undefined,
  record: (found: Finding[]) => void,
): Promise<void> {
  const query = session.model.operation("query_order");
  const unknown = query?.behaviour.unknownReferences?.order;
  if (query)
    for (const { symbol, orderIds } of placed)
      for (const orderId of orderIds) {
        const answer = await quietCall(
          session,
          query,
          { symbol, orderId },
          "reset: query an order placed between",
        );
        const refusedAsUnknown =
          !ok(answer) &&
          (unknown === undefined ||
            (answer.response?.status === unknown.status && errorCode(answer) === unknown.code));
        record(
          refusedAsUnknown
            ? []
            : [
                {
                  subject: `${symbol} order ${orderId}`,
                  message: `placed between the resets, query_order after the second answers ${describeAnswer(answer)}${unknown ? `, expected ${unknown.status} with code ${unknown.code} (an unknown order)` : ""}`,
                },
              ],
        );
      }
  const account = accountOperation(session);
  if (!added || !account) return;
  const invalid = refusalFor(session.model.refusals, "api-key-invalid", account.operationId);
  const answer = await readAs(session, account, added);
  const refused =
    !ok(answer) &&
    (invalid === undefined ||
      (answer.response?.status === invalid.status && errorCode(answer) === invalid.code));
  record(
    refused
      ? []
      : [
          {
            subject: `account ${added.apiKey} (added through the admin surface)`,
            message: `after the reset its signed read answers ${describeAnswer(answer)}${invalid ? `, expected ${invalid.status} with code ${invalid.code}` : ""}: a reset removes the accounts added through the admin surface`,
          },
        ],
  );
}

/** The first order after the reset: the order counters count it alone. */
async function judgeOrderCount(
  session: Session,
  symbols: readonly Rules[],
  placed: readonly PlacedAfter[],
  record: (found: Finding[]) => void,
  out: Judgement,
): Promise<void> {
  const place = session.model.operation("new_order");
  const cancel = session.model.operation("cancel_order");
  const first = symbols[0];
  if (!place || !cancel || !first || placed.length === 0 || first.reference === undefined) return;
  const far = planFarBuy(first.rules, first.reference);
  if ("reason" in far) return;
  const answer = await quietCall(session, place, farBuyOrder(far), "reset: the first order after the reset");
  if (!ok(answer)) {
    out.notes.push(`reset: no order placed after the reset (${describeAnswer(answer)})`);
    return;
  }
  for (const counter of countersOf(place, /X-MBX-ORDER-COUNT/))
    record(
      judgeCounterRestart(
        counter.name,
        placed.reduce((n, p) => n + p.orderIds.length, 0),
        counterValue(answer, counter),
        1,
      ),
    );
  await quietCall(
    session,
    cancel,
    { symbol: first.rules.symbol, orderId: bodyObject(answer)?.orderId },
    "reset: cancel",
  );
}

/**
 * The snapshot taken before the resets restored (everything as before them), then deleted. With
 * no restore the sandbox stays reset; that is said.
 */
async function finish(
  session: Session,
  surface: AdminSurface,
  id: string,
  atSnapshot: Memory,
  out: Judgement,
  record: (found: Finding[]) => void,
  readAccount: () => Promise<Memory>,
  quiet: boolean,
): Promise<Judgement> {
  const restored = await admin(surface, "sandbox_restore_snapshot", { snapshotId: id });
  record(judgeAdminAnswer(`sandbox_restore_snapshot ${id} (taken before the reset)`, restored, 200));
  if (restored.status === 200) {
    await resync(session);
    const now = await readAccount();
    const judged = judgeMemory(atSnapshot, now);
    out.findings.push(
      ...judged.findings.map((f) => ({
        ...f,
        message: `the snapshot taken before the reset, restored: ${f.message}`,
      })),
    );
    out.held += judged.held;
    record(
      judgeRolledBack(atSnapshot, now, quiet).map((f) => ({
        ...f,
        message: `the snapshot taken before the reset, restored: ${f.message}`,
      })),
    );
  } else out.notes.push(`the sandbox is left reset: the snapshot ${id} taken before could not be restored`);
  const deleted = await admin(surface, "sandbox_delete_snapshot", { snapshotId: id });
  record(judgeAdminAnswer(`sandbox_delete_snapshot ${id} (taken before the reset)`, deleted, 204));
  return out;
}
