/**
 * Reads that land at once after writes (recall's `fresh reads`): a target that acknowledges an
 * order before it has stored it (a commit still pending) must still answer every paged or windowed
 * list by its rules. A burst of far LIMIT BUYs per round, and as each
 * answer arrives, reads of every list the spec pages (x-limit with x-cursor-paging or
 * x-time-window) that start at the newest item seen before the burst, or whose window ends just
 * before the burst or starts just after a write. Judged on any server: a page never holds more
 * than its limit, a window never lists an item outside it, a cursor never an item before it.
 * The orders never fill and are cancelled: the account's balances and trades stay as they were,
 * so a later recall still judges them.
 */
import type { ContractOperation } from "../core/operations.js";
import { bodyObject, describeAnswer, ok } from "../kit/answers.js";
import { valueAt } from "../kit/behaviour-support.js";
import { farBuyOrder, type Json, type parseDec, planFarBuy, type SymbolRules } from "../kit/market.js";
import { judgeNewestPage, newestPageLimit, newestPageOf } from "../kit/newest-page.js";
import type { Session } from "../session/session.js";
import { quietCall } from "./memory.js";
import type { Finding, Judgement } from "./persistence.js";

/** One read of a paged list: the operation's paging rules and the values sent. */
export interface PageRead {
  operationId: string;
  limit?: { parameter: string };
  cursor?: { parameter: string; field: string; inclusive: boolean };
  window?: { start: string; end: string; field: string; inclusive: boolean };
  values: Record<string, unknown>;
}

const num = (value: unknown): number => (typeof value === "number" ? value : Number(value));

/**
 * What a page shows against its own request: more items than `limit`, an item before the cursor,
 * an item outside [startTime, endTime] (bounds as the spec says). Pure.
 */
export function judgePage(read: PageRead, items: readonly unknown[]): Finding[] {
  const subject = `${read.operationId} ${JSON.stringify(read.values)}`;
  const findings: Finding[] = [];
  const limit = read.limit ? read.values[read.limit.parameter] : undefined;
  if (limit !== undefined && items.length > num(limit))
    findings.push({ subject, message: `${items.length} items, more than its limit ${num(limit)}` });
  const cursor = read.cursor ? read.values[read.cursor.parameter] : undefined;
  if (read.cursor && cursor !== undefined) {
    const { field, inclusive } = read.cursor;
    const before = items.filter((item) => {
      const id = num(valueAt(item, field));
      return inclusive ? id < num(cursor) : id <= num(cursor);
    });
    if (before.length > 0)
      findings.push({
        subject,
        message: `lists ${field.slice(1)} ${before.map((i) => num(valueAt(i, field))).join(", ")}, before the cursor ${num(cursor)}`,
      });
  }
  if (read.window) {
    const { start, end, field, inclusive } = read.window;
    const from = read.values[start];
    const to = read.values[end];
    const outside = items.filter((item) => {
      const time = num(valueAt(item, field));
      if (from !== undefined && (inclusive ? time < num(from) : time <= num(from))) return true;
      return to !== undefined && (inclusive ? time > num(to) : time >= num(to));
    });
    if (outside.length > 0)
      findings.push({
        subject,
        message: `lists ${outside.length} item(s) outside its window (${field.slice(1)} ${outside
          .slice(0, 3)
          .map((i) => num(valueAt(i, field)))
          .join(", ")})`,
      });
  }
  return findings;
}

/** A read operation the spec pages by limit and a cursor or a window, on one symbol. */
export interface PagedList {
  op: ContractOperation;
  limit: { parameter: string };
  cursor?: PageRead["cursor"];
  window?: PageRead["window"];
}

export function pagedLists(operations: readonly ContractOperation[]): PagedList[] {
  const lists: PagedList[] = [];
  for (const op of operations) {
    const { limit, cursorPaging, timeWindow } = op.behaviour;
    if (op.method !== "get" || !limit || limit.counts.join() !== "" || !(cursorPaging || timeWindow))
      continue;
    if (!op.parameters.some((p) => p.name === "symbol" && p.required)) continue;
    lists.push({
      op,
      limit: { parameter: limit.parameter },
      ...(cursorPaging
        ? {
            cursor: {
              parameter: cursorPaging.parameter,
              field: cursorPaging.field,
              inclusive: cursorPaging.inclusive,
            },
          }
        : {}),
      ...(timeWindow
        ? {
            window: {
              start: timeWindow.start,
              end: timeWindow.end,
              field: timeWindow.field,
              inclusive: timeWindow.inclusive,
            },
          }
        : {}),
    });
  }
  return lists;
}

/** The reads fired when a write is answered at `time`: anchored at the cursor, and windows on both sides. */
export function readsAfter(
  list: PagedList,
  symbol: string,
  newestBefore: unknown,
  burstStart: number,
  answeredAt: number,
): PageRead[] {
  const base = {
    operationId: list.op.operationId,
    limit: list.limit,
    ...(list.cursor ? { cursor: list.cursor } : {}),
    ...(list.window ? { window: list.window } : {}),
  };
  const reads: PageRead[] = [];
  const page = { symbol, [list.limit.parameter]: 2 };
  if (list.cursor && newestBefore !== undefined)
    reads.push({ ...base, values: { ...page, [list.cursor.parameter]: newestBefore } });
  if (list.window) {
    const { start, end } = list.window;
    const hour = 3_600_000;
    reads.push(
      { ...base, values: { ...page, [start]: burstStart } },
      { ...base, values: { symbol, [start]: burstStart - hour, [end]: burstStart - 1 } },
      { ...base, values: { symbol, [start]: answeredAt + 1, [end]: answeredAt + hour } },
    );
  }
  return reads;
}

const ROUNDS = 3;
const LIMIT_BUYS = 5;

/**
 * The fresh reads on one symbol. Needs trading; places ROUNDS × LIMIT_BUYS far buys and cancels
 * them. `known`: ids of orders the account is known to have on the symbol before (the
 * remembered ones); at the end the newest page of all_orders holds them and the burst's, up to
 * its limit (kit/newest-page.ts).
 */
export async function freshReads(
  session: Session,
  rules: SymbolRules,
  reference: ReturnType<typeof parseDec> | undefined,
  known: readonly number[],
): Promise<Judgement> {
  const out: Judgement = { findings: [], held: 0, notes: [] };
  const place = session.model.operation("new_order");
  const cancel = session.model.operation("cancel_order");
  const time = session.model.operation("server_time");
  const { symbol } = rules;
  const lists = pagedLists(session.model.operations);
  if (!place || !cancel || lists.length === 0)
    return {
      ...out,
      notes: [`${symbol}: fresh reads not judged (no new_order, cancel_order or paged list)`],
    };
  const far = reference !== undefined ? planFarBuy(rules, reference) : { reason: "no price" };
  if ("reason" in far) return { ...out, notes: [`${symbol}: fresh reads not judged (${far.reason})`] };
  const call = (op: ContractOperation, values: Record<string, unknown>, label: string) =>
    quietCall(session, op, values, `fresh reads: ${label}`);
  const open: number[] = [];
  const placed: number[] = [];
  const pending: Promise<void>[] = [];
  const judge = (read: PageRead) => {
    const op = lists.find((l) => l.op.operationId === read.operationId)!.op;
    pending.push(
      call(op, read.values, read.operationId).then((answer) => {
        if (!ok(answer) || !Array.isArray(answer.response?.json)) {
          out.notes.push(`${read.operationId} ${JSON.stringify(read.values)}: ${describeAnswer(answer)}`);
          return;
        }
        const found = judgePage(read, answer.response.json as unknown[]);
        if (found.length === 0) out.held += 1;
        out.findings.push(...found);
      }),
    );
  };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const newest = new Map<string, unknown>();
      for (const list of lists.filter((l) => l.cursor)) {
        const answer = await call(list.op, { symbol, [list.limit.parameter]: 1 }, "the newest item");
        const items = ok(answer) && Array.isArray(answer.response?.json) ? answer.response.json : [];
        if (items.length > 0) newest.set(list.op.operationId, valueAt(items.at(-1), list.cursor!.field));
      }
      // The server's own clock: every write of the burst is at or after it.
      const clock = time ? bodyObject(await call(time, {}, "server time"))?.serverTime : undefined;
      if (typeof clock !== "number") {
        out.notes.push(`${symbol}: fresh reads not judged (no server time)`);
        break;
      }
      const burstStart = clock;
      const write = (values: Json, label: string) =>
        call(place, values, label).then((answer) => {
          const body = bodyObject(answer);
          if (!ok(answer) || !body) {
            out.notes.push(`${symbol} ${label}: not placed (${describeAnswer(answer)})`);
            return;
          }
          if (Number.isInteger(num(body.orderId))) placed.push(num(body.orderId));
          if (body.status === "NEW" || body.status === "PARTIALLY_FILLED") open.push(num(body.orderId));
          const at = num(body.transactTime);
          if (!Number.isFinite(at)) return;
          for (const list of lists)
            for (const read of readsAfter(list, symbol, newest.get(list.op.operationId), burstStart, at))
              judge(read);
        });
      const writes: Promise<void>[] = [];
      for (let i = 0; i < LIMIT_BUYS; i += 1) writes.push(write(farBuyOrder(far), "far LIMIT BUY"));
      await Promise.all(writes);
      await Promise.all(pending);
      pending.length = 0;
    }
  } finally {
    await Promise.all(pending);
    await Promise.all(
      open.map((orderId) =>
        call(cancel, { symbol, orderId }, "cancel").then((answer) => {
          if (!ok(answer))
            out.notes.push(`${symbol} order ${orderId}: not cancelled (${describeAnswer(answer)})`);
        }),
      ),
    );
  }
  const orders = session.model.operation("all_orders");
  const limit = orders && newestPageLimit(orders);
  if (orders && limit) {
    const answer = await call(
      orders,
      { symbol, [orders.behaviour.limit!.parameter]: limit },
      "the newest page of all_orders",
    );
    const page = ok(answer) ? newestPageOf(orders, symbol, limit, answer.response?.json) : undefined;
    if (page) {
      const found = judgeNewestPage(page, [...known, ...placed], "remembered or placed since");
      if (found.length === 0) out.held += 1;
      out.findings.push(...found);
    } else out.notes.push(`${symbol} all_orders (newest): ${describeAnswer(answer)}`);
  }
  return out;
}
