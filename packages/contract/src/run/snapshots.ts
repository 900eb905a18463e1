/**
 * The sandbox's snapshots judged over HTTP (recall --admin-url URL --admin-token T; the admin
 * operations of @marketapi/spec/sandbox.openapi.json): a snapshot taken, what the account shows
 * read (run/memory.ts), orders placed and filled after it, the snapshot restored. Then every
 * order, trade, candle and balance is as it was (run/persistence.ts judgeMemory, the same
 * relations recall judges after a restart), nothing placed after the snapshot remains, the
 * orderId sequence and the 24-hour ticker's last id went back with it (when no simulated market
 * runs), and a client order id taken after it is free again. The snapshot restored a second time
 * gives the same again; deleted, it is refused as the document says (404) and no longer listed.
 * The sandbox ends as the snapshot left it: what the account did after it is undone.
 */
import { formatDec } from "../core/decimal.js";
import { ConnectionError } from "../core/errors.js";
import type { ContractOperation } from "../core/operations.js";
import { viewOperation, viewSchemaProblems } from "../kit/account-views.js";
import { bodyObject, describeAnswer, ok } from "../kit/answers.js";
import { readServerClock } from "../kit/clock.js";
import {
  farBuyOrder,
  type parseDec,
  planFarBuy,
  type SymbolRules,
  smallestMarketQuantity,
} from "../kit/market.js";
import type { Session } from "../session/session.js";
import { type Item, type Memory, quietCall, readMemory } from "./memory.js";
import { type Finding, type Judgement, judgeMemory } from "./persistence.js";

/** Where the sandbox's admin surface answers, and its bearer token. */
export interface AdminSurface {
  url: string;
  token: string;
}

export interface AdminAnswer {
  status: number;
  body: unknown;
}

/** What the run placed after the snapshot, per symbol. */
export interface PlacedAfter {
  symbol: string;
  /** orderIds in the order they were given. */
  orderIds: number[];
  /** The client order id of an order still open when the snapshot was restored. */
  openClientId?: string;
}

/** A restore copies and checks the whole state file: it may take a while on a large one. */
const ADMIN_TIMEOUT_MS = 120_000;

const num = (value: unknown): number => (typeof value === "number" ? value : Number(value));

/**
 * Admin answers at a URL path the document states, relative to the origin given; `query`: the
 * operation's parameters (the document lets them be sent in the query string).
 */
export async function admin(
  surface: AdminSurface,
  operationId: string,
  path: Record<string, string> = {},
  query: Record<string, string> = {},
): Promise<AdminAnswer & { problems: string[] }> {
  const op = viewOperation(operationId);
  if (!op) throw new Error(`the sandbox document has no ${operationId}`);
  const where = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? ""));
  const url = new URL(where, surface.url);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: op.method.toUpperCase(),
      headers: { Authorization: `Bearer ${surface.token}` },
      signal: AbortSignal.timeout(ADMIN_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    throw new ConnectionError(
      `the admin surface at ${url.origin}: no response to ${op.method.toUpperCase()} ${url.pathname} (${(error as Error).message})`,
    );
  }
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  const problems =
    response.status === 204 ? [] : viewSchemaProblems(operationId, response.status, body ?? null);
  return { status: response.status, body, problems };
}

/** An admin answer against the status the document gives it, and its schema. */
export function judgeAdminAnswer(
  what: string,
  answer: AdminAnswer & { problems: string[] },
  wantStatus: number,
): Finding[] {
  const shown = JSON.stringify(answer.body)?.slice(0, 160) ?? "no body";
  if (answer.status !== wantStatus)
    return [{ subject: what, message: `status ${answer.status} (${shown}), expected ${wantStatus}` }];
  if (answer.problems.length > 0)
    return [
      {
        subject: what,
        message: `the answer does not match the sandbox document: ${answer.problems.slice(0, 3).join("; ")}`,
      },
    ];
  return [];
}

/**
 * After a restore: nothing the account placed or traded after the snapshot is listed, and with no
 * simulated market running, the ticker's last trade id is the snapshot's (the counter went back).
 * Pure.
 */
export function judgeRolledBack(at: Memory, now: Memory, quiet: boolean): Finding[] {
  const findings: Finding[] = [];
  for (const was of at.symbols) {
    const again = now.symbols.find((s) => s.symbol === was.symbol);
    if (!again) continue;
    const orders = again.orders.filter((o) => num(o.orderId) > was.floor.orderId);
    if (orders.length > 0)
      findings.push({
        subject: `${was.symbol} all_orders`,
        message: `order(s) ${orders.map((o) => num(o.orderId)).join(", ")} placed after the snapshot are still listed after its restore`,
      });
    const trades = (again.trades ?? []).filter((t) => num(t.id) > was.floor.tradeId);
    if (trades.length > 0)
      findings.push({
        subject: `${was.symbol} myTrades`,
        message: `trade(s) ${trades.map((t) => num(t.id)).join(", ")} made after the snapshot are still listed after its restore`,
      });
    if (quiet && was.tickerLastId !== undefined && again.tickerLastId !== was.tickerLastId)
      findings.push({
        subject: `${was.symbol} 24-hour ticker`,
        message: `lastId ${JSON.stringify(again.tickerLastId)} after the restore, the snapshot's was ${was.tickerLastId}`,
      });
  }
  return findings;
}

/**
 * The first order placed after a restore: its orderId above every id the snapshot holds, and with
 * no simulated market running, the id the first order after the snapshot got (the sequence went
 * back). Pure.
 */
export function judgeIdAgain(
  symbol: string,
  again: number,
  floor: number,
  firstAfter: number | undefined,
  quiet: boolean,
): Finding[] {
  const subject = `${symbol} new order after the restore`;
  if (!(again > floor))
    return [{ subject, message: `orderId ${again} is not above the snapshot's highest (${floor})` }];
  if (quiet && firstAfter !== undefined && again !== firstAfter)
    return [
      {
        subject,
        message: `orderId ${again}, but the first order after the snapshot got ${firstAfter}: the id sequence is not the snapshot's`,
      },
    ];
  return [];
}

export type Rules = { rules: SymbolRules; reference: ReturnType<typeof parseDec> | undefined };

/** The account's own lists and balances, as one text to compare. */
export function accountOf(memory: Memory): string {
  return JSON.stringify([memory.symbols.map((s) => [s.orders, s.trades ?? null]), memory.balances ?? null]);
}

/** Resynchronises the session's clock with the target's after the sandbox clock went back. */
export async function resync(session: Session): Promise<void> {
  const time = session.model.operation("server_time");
  if (!time) return;
  const reading = await readServerClock(session, time, "snapshots: server time", { responseChecks: false });
  if (reading.serverTime !== undefined) session.adoptClock(reading.serverTime - reading.local);
}

/** What the judgements over the admin surface start from. */
export interface AdminRun {
  out: Judgement;
  /** Adds one step's findings to `out`; a step without any counts as held. */
  record: (found: Finding[]) => void;
  /** The account's orders, trades and balances on the run's symbols, as the target lists them now. */
  readAccount: () => Promise<Memory>;
  /** The sandbox clock's rate, and whether no simulated market runs; absent when the status was refused (recorded). */
  sandbox?: { rate: number; quiet: boolean };
}

export async function startAdminRun(
  session: Session,
  surface: AdminSurface,
  baseUrl: string,
  symbols: readonly Rules[],
): Promise<AdminRun> {
  const out: Judgement = { findings: [], held: 0, notes: [] };
  const record = (found: Finding[]) => {
    if (found.length === 0) out.held += 1;
    out.findings.push(...found);
  };
  const readAccount = () =>
    readMemory(
      session,
      baseUrl,
      symbols.map(({ rules }) => ({
        symbol: rules.symbol,
        baseAsset: rules.baseAsset,
        quoteAsset: rules.quoteAsset,
      })),
    );
  const status = await admin(surface, "sandbox_status");
  record(judgeAdminAnswer("sandbox_status", status, 200));
  if (status.status !== 200) return { out, record, readAccount };
  const { market, clock } = status.body as {
    market?: { running?: boolean } | null;
    clock?: { rate?: number };
  };
  const rate = typeof clock?.rate === "number" ? clock.rate : 1;
  return { out, record, readAccount, sandbox: { rate, quiet: !market?.running } };
}

export async function judgeSnapshots(
  session: Session,
  surface: AdminSurface,
  baseUrl: string,
  symbols: readonly Rules[],
  trading: boolean,
): Promise<Judgement> {
  const { out, record, readAccount: read, sandbox } = await startAdminRun(session, surface, baseUrl, symbols);
  if (!sandbox) return out;
  const { rate, quiet } = sandbox;
  if (!quiet) out.notes.push("a simulated market runs: id sequences and the ticker's last id not judged");

  const before = await read();
  const taken = await admin(surface, "sandbox_take_snapshot");
  record(judgeAdminAnswer("sandbox_take_snapshot", taken, 201));
  if (taken.status !== 201) return out;
  const { id, takenAt } = taken.body as { id: string; takenAt: number };
  const at = await read();
  // The read after the snapshot is what it holds only if the account did not change around it
  // (another client of the account, or the simulated market filling one of its orders).
  if (accountOf(before) !== accountOf(at)) {
    out.notes.push(
      "the account changed while the snapshot was taken: the restore not judged, the snapshot deleted",
    );
    await admin(surface, "sandbox_delete_snapshot", { snapshotId: id });
    return out;
  }

  const placed = trading ? await placeAfter(session, symbols, out) : [];
  const restoreAndJudge = async (which: string) => {
    const sent = performance.now();
    const restored = await admin(surface, "sandbox_restore_snapshot", { snapshotId: id });
    // The clock set back to the snapshot's time runs on at its rate until the answer is written.
    const ran = Math.ceil(rate * (performance.now() - sent)) + 1;
    record(judgeAdminAnswer(`sandbox_restore_snapshot ${id} (${which})`, restored, 200));
    if (restored.status !== 200) return false;
    const body = restored.body as { id?: unknown; time?: unknown };
    const time = num(body.time);
    record(
      body.id === id && time >= takenAt && time <= takenAt + ran
        ? []
        : [
            {
              subject: `sandbox_restore_snapshot ${id}`,
              message: `answered ${JSON.stringify(body)}, expected id ${JSON.stringify(id)} and the snapshot's time ${takenAt} (at most ${ran} ms later: the clock's rate ${rate} over the restore)`,
            },
          ],
    );
    await resync(session);
    const now = await read();
    const judged = judgeMemory(at, now);
    out.findings.push(
      ...judged.findings.map((f) => ({ ...f, message: `after the ${which} restore: ${f.message}` })),
    );
    out.held += judged.held;
    out.notes.push(...judged.notes);
    record(judgeRolledBack(at, now, quiet));
    return true;
  };

  if (!(await restoreAndJudge("first"))) {
    await cancelPlaced(session, placed, out);
    return out;
  }
  for (const after of placed) {
    const was = at.symbols.find((s) => s.symbol === after.symbol);
    if (was) await idsAgain(session, symbols, after, was.floor.orderId, quiet, record, out);
  }
  if (placed.length > 0) await restoreAndJudge("second");

  const listed = (body: unknown) =>
    ((body as { snapshots?: Item[] })?.snapshots ?? []).some((s) => s.id === id);
  const deleted = await admin(surface, "sandbox_delete_snapshot", { snapshotId: id });
  record(judgeAdminAnswer(`sandbox_delete_snapshot ${id}`, deleted, 204));
  const restoreDeleted = await admin(surface, "sandbox_restore_snapshot", { snapshotId: id });
  record(judgeAdminAnswer(`sandbox_restore_snapshot ${id} after its delete`, restoreDeleted, 404));
  const deleteAgain = await admin(surface, "sandbox_delete_snapshot", { snapshotId: id });
  record(judgeAdminAnswer(`sandbox_delete_snapshot ${id} after its delete`, deleteAgain, 404));
  const after = await admin(surface, "sandbox_status");
  record(
    listed(after.body)
      ? [{ subject: "sandbox_status", message: `still lists snapshot ${id} after its delete` }]
      : [],
  );
  return out;
}

/**
 * After the snapshot, on each symbol: a far LIMIT BUY that stays open (its client order id held),
 * and on the first a smallest MARKET BUY (a trade), so that the restore has orders, a lock on the
 * balance, a client order id and a trade to undo.
 */
export async function placeAfter(
  session: Session,
  symbols: readonly Rules[],
  out: Judgement,
): Promise<PlacedAfter[]> {
  const place = session.model.operation("new_order");
  if (!place) return [];
  const placed: PlacedAfter[] = [];
  for (const [index, { rules, reference }] of symbols.entries()) {
    const far = reference !== undefined ? planFarBuy(rules, reference) : { reason: "no price" };
    if ("reason" in far) {
      out.notes.push(`${rules.symbol}: nothing placed after the snapshot (${far.reason})`);
      continue;
    }
    const after: PlacedAfter = { symbol: rules.symbol, orderIds: [] };
    const clientId = `snap-${Date.now().toString(36)}-${index}`;
    const resting = await call(session, place, { ...farBuyOrder(far), newClientOrderId: clientId });
    if (ok(resting)) {
      after.orderIds.push(num(bodyObject(resting)?.orderId));
      after.openClientId = clientId;
    } else
      out.notes.push(
        `${rules.symbol}: the far buy after the snapshot not placed (${describeAnswer(resting)})`,
      );
    if (index === 0 && reference !== undefined && rules.orderTypes.includes("MARKET")) {
      const quantity = formatDec(smallestMarketQuantity(rules, reference));
      const taker = await call(session, place, {
        symbol: rules.symbol,
        side: "BUY",
        type: "MARKET",
        quantity,
      });
      if (ok(taker)) after.orderIds.push(num(bodyObject(taker)?.orderId));
      else
        out.notes.push(
          `${rules.symbol}: the market buy after the snapshot not placed (${describeAnswer(taker)})`,
        );
    }
    if (after.orderIds.length > 0) placed.push(after);
  }
  return placed;
}

export function call(session: Session, op: ContractOperation, values: Record<string, unknown>) {
  return quietCall(session, op, values, `snapshots: ${op.operationId}`);
}

/**
 * After the restore: the orders placed after the snapshot are unknown to query_order, and a far
 * LIMIT BUY with the client order id an order held open after the snapshot is accepted (that
 * order is gone) and gets the id the sequence gives (judgeIdAgain).
 */
async function idsAgain(
  session: Session,
  symbols: readonly Rules[],
  after: PlacedAfter,
  floor: number,
  quiet: boolean,
  record: (found: Finding[]) => void,
  out: Judgement,
): Promise<void> {
  const query = session.model.operation("query_order");
  const place = session.model.operation("new_order");
  if (!query || !place) return;
  const { symbol } = after;
  const cancel = session.model.operation("cancel_order");
  for (const orderId of after.orderIds) {
    const found = await call(session, query, { symbol, orderId });
    const status = bodyObject(found)?.status;
    // Still there and open: cancelled, so that a restore that failed leaves no order behind.
    if (ok(found) && cancel && (status === "NEW" || status === "PARTIALLY_FILLED"))
      await call(session, cancel, { symbol, orderId });
    record(
      ok(found)
        ? [
            {
              subject: `${symbol} order ${orderId}`,
              message: `placed after the snapshot, query_order still finds it after the restore (status ${JSON.stringify(bodyObject(found)?.status)})`,
            },
          ]
        : [],
    );
  }
  const plan = symbols.find((s) => s.rules.symbol === symbol);
  const far = plan?.reference !== undefined ? planFarBuy(plan.rules, plan.reference) : undefined;
  if (!far || "reason" in far || after.openClientId === undefined) return;
  const again = await call(session, place, { ...farBuyOrder(far), newClientOrderId: after.openClientId });
  if (!ok(again)) {
    record([
      {
        subject: `${symbol} new order after the restore (clientOrderId ${JSON.stringify(after.openClientId)})`,
        message: `refused (${describeAnswer(again)}): the order that held this client order id was placed after the snapshot, so it is free again`,
      },
    ]);
    return;
  }
  record(judgeIdAgain(symbol, num(bodyObject(again)?.orderId), floor, after.orderIds[0], quiet));
  out.notes.push(
    `${symbol}: order ${num(bodyObject(again)?.orderId)} placed after the restore, undone by the second`,
  );
}

/** When the restore failed: the orders placed after the snapshot cancelled, so none is left open. */
export async function cancelPlaced(
  session: Session,
  placed: readonly PlacedAfter[],
  out: Judgement,
): Promise<void> {
  const cancel = session.model.operation("cancel_order");
  if (!cancel) return;
  for (const { symbol, orderIds } of placed)
    for (const orderId of orderIds) {
      const answer = await call(session, cancel, { symbol, orderId });
      if (!ok(answer) && out.notes.length < 50)
        out.notes.push(`${symbol} order ${orderId}: not cancelled (${describeAnswer(answer)})`);
    }
}
