/**
 * The orders a custody scenario places (far LIMIT BUYs on the first symbol that takes one) and
 * what must hold of them: found by client order id with their orderId, listed once on the
 * account's newest page, and no order the client was told failed.
 */
import { bodyObject, describeAnswer, ok } from "../kit/answers.js";
import { type FarBuy, farBuyOrder, planFarBuy } from "../kit/market.js";
import { judgeNewestPage, newestPageLimit, newestPageOf } from "../kit/newest-page.js";
import { probe } from "../phases/probe.js";
import type { Session } from "../session/session.js";
import { type CustodyContext, CustodyStop, STATE_NAME, serving } from "./custody-context.js";
import { quietCall, quietSession } from "./memory.js";
import type { OperatedServer } from "./operated-server.js";
import type { Judgement } from "./persistence.js";

/**
 * An order as the tester placed it: acknowledged with its orderId, or refused with the answer and
 * its status (`unanswered` when no answer came: its fate is unknown, and never judged).
 */
export type Placed = { clientOrderId: string } & (
  | { orderId: number }
  | { refused: string; status?: number; unanswered?: true }
);

export interface Desk {
  session: Session;
  far: FarBuy;
}

export async function deskAt(context: CustodyContext, server: OperatedServer): Promise<Desk> {
  const session = quietSession({
    model: context.model,
    baseUrl: server.url,
    headers: {},
    credentials: context.credentials,
    timeoutMs: context.timeoutMs,
  });
  const found = await probe(session, server.url);
  const reasons: string[] = [];
  for (const rules of found.market.symbols) {
    const reference = found.references.get(rules.symbol);
    const far = reference === undefined ? undefined : planFarBuy(rules, reference);
    if (far && !("reason" in far)) return { session, far };
    reasons.push(far?.reason ?? `${rules.symbol}: no market price could be read`);
  }
  const why = reasons.length > 0 ? reasons.join("; ") : "exchange_info was not read, or listed no symbol";
  throw new CustodyStop(
    `no symbol of exchange_info takes a far LIMIT BUY (${why}), so no order can be placed to keep`,
  );
}

/** An order placed (on a connection of its own with `own`: opened for it, closed after). */
export async function place(desk: Desk, clientOrderId: string, own = false): Promise<Placed> {
  const op = desk.session.model.operation("new_order")!;
  const answer = await quietCall(
    desk.session,
    op,
    { ...farBuyOrder(desk.far), newClientOrderId: clientOrderId },
    "custody: an order to keep",
    own ? { connection: "own" } : {},
  );
  const orderId = bodyObject(answer)?.orderId;
  if (ok(answer) && typeof orderId === "number") return { clientOrderId, orderId };
  return {
    clientOrderId,
    refused: describeAnswer(answer),
    ...(answer.response ? { status: answer.response.status } : { unanswered: true as const }),
  };
}

/** An order the server must take: it is healthy and nothing was done to its file yet. */
export async function placeKept(
  desk: Desk,
  clientOrderId: string,
  own = false,
): Promise<{ clientOrderId: string; orderId: number }> {
  const placed = await place(desk, clientOrderId, own);
  if ("refused" in placed)
    throw new CustodyStop(`a far LIMIT BUY on a healthy server was refused: ${placed.refused}`);
  return placed;
}

/** A ping on the desk's connection (the server has read what came before it): whether it answered. */
export async function pingAt(desk: Desk): Promise<boolean> {
  const op = desk.session.model.operation("ping");
  return op !== undefined && ok(await quietCall(desk.session, op, {}, "custody: ping"));
}

/** A cancel whose outcome does not matter: a full disk may refuse it, and the order then rests. */
export async function cancel(desk: Desk, orderId: number): Promise<void> {
  const op = desk.session.model.operation("cancel_order")!;
  await quietCall(desk.session, op, { symbol: desk.far.symbol, orderId }, "custody: cancel an order kept");
}

export async function cancelAll(desk: Desk): Promise<void> {
  const op = desk.session.model.operation("cancel_all_orders");
  if (!op) throw new CustodyStop("the spec has no cancel_all_orders, so a long history cannot be made");
  const answer = await quietCall(desk.session, op, { symbol: desk.far.symbol }, "custody: cancel a bunch");
  if (!ok(answer)) throw new CustodyStop(`cancel_all_orders was refused: ${describeAnswer(answer)}`);
}

/** The order the server finds for the client order id, as it answers it, or undefined where it knows none. */
export async function lookUpOrder(
  desk: Desk,
  clientOrderId: string,
): Promise<Record<string, unknown> | undefined> {
  const op = desk.session.model.operation("query_order")!;
  const answer = await quietCall(
    desk.session,
    op,
    { symbol: desk.far.symbol, origClientOrderId: clientOrderId },
    "custody: look the order up",
  );
  const order = bodyObject(answer);
  return ok(answer) && typeof order?.orderId === "number" ? order : undefined;
}

/** Lookups in flight at once when many orders are looked up. */
const LOOKUP_FLIGHT = 10;

/** The orderId the server finds for each client order id (undefined: none), ten lookups at a time. */
async function lookUpAll(desk: Desk, clientOrderIds: readonly string[]): Promise<Array<number | undefined>> {
  const found: Array<number | undefined> = [];
  for (let at = 0; at < clientOrderIds.length; at += LOOKUP_FLIGHT) {
    const flight = clientOrderIds.slice(at, at + LOOKUP_FLIGHT);
    const orders = await Promise.all(flight.map((id) => lookUpOrder(desk, id)));
    found.push(...orders.map((order) => order?.orderId as number | undefined));
  }
  return found;
}

/**
 * After a restart: every acknowledged order found under its client order id with its orderId,
 * and no refused one (an order the client was told failed must not appear later).
 */
export async function judgeKept(
  desk: Desk,
  placed: readonly Placed[],
  scenario: string,
  out: Judgement,
  when = "at the next start on the same state file",
): Promise<void> {
  const lost: string[] = [];
  const kept: string[] = [];
  const answered = placed.filter((order) => !("unanswered" in order));
  const founds = await lookUpAll(
    desk,
    answered.map((order) => order.clientOrderId),
  );
  for (const [i, order] of answered.entries()) {
    const found = founds[i];
    if ("orderId" in order) {
      if (found === order.orderId) out.held += 1;
      else
        lost.push(
          `order ${order.orderId} (clientOrderId ${order.clientOrderId}) ${found === undefined ? "unknown" : `is order ${found}`}`,
        );
    } else if (found === undefined) out.held += 1;
    else kept.push(`clientOrderId ${order.clientOrderId} (refused: ${order.refused}) is order ${found}`);
  }
  await judgeListed(desk, placed, scenario, out, when);
  if (lost.length > 0)
    out.findings.push({
      subject: scenario,
      message: `${lost.length} acknowledged order(s) not there ${when}: ${listed(lost)}`,
    });
  if (kept.length > 0)
    out.findings.push({
      subject: scenario,
      message: `${kept.length} order(s) the client was told failed are there ${when}: ${listed(kept)}`,
    });
}

/**
 * The account's newest page of orders (all_orders at its largest limit) holds every acknowledged
 * order, each once and in the stated order (kit/newest-page.ts), and no order the client was told
 * failed, by its client order id.
 */
export async function judgeListed(
  desk: Desk,
  placed: readonly Placed[],
  scenario: string,
  out: Judgement,
  when: string,
): Promise<void> {
  const op = desk.session.model.operation("all_orders");
  const limit = op && newestPageLimit(op);
  if (!op || limit === undefined) return;
  const { symbol } = desk.far;
  const answer = await quietCall(desk.session, op, { symbol, limit }, "custody: the account's orders");
  const json = ok(answer) ? answer.response?.json : undefined;
  const page = newestPageOf(op, symbol, limit, json);
  if (!page) {
    out.findings.push({
      subject: `${scenario}: all_orders`,
      message: `${when}, not a list of orders: ${describeAnswer(answer)}`,
    });
    return;
  }
  const acknowledged = placed.flatMap((p) => ("orderId" in p ? [p.orderId] : []));
  const problems = judgeNewestPage(page, acknowledged, "acknowledged").map((f) => ({
    subject: `${scenario}: ${f.subject}`,
    message: `${when}: ${f.message}`,
  }));
  const refused = new Set(placed.flatMap((p) => ("refused" in p && !p.unanswered ? [p.clientOrderId] : [])));
  const listedRefused = (json as Array<Record<string, unknown>>).filter((o) =>
    refused.has(String(o.clientOrderId)),
  );
  if (listedRefused.length > 0)
    problems.push({
      subject: `${scenario}: all_orders`,
      message: `${when}, lists order(s) the client was told failed: ${listed(listedRefused.map((o) => `order ${String(o.orderId)} (clientOrderId ${String(o.clientOrderId)})`))}`,
    });
  out.findings.push(...problems);
  if (problems.length === 0) out.held += 1;
}

/**
 * Each order found by its client order id as itself (the newest order with that id), looked up
 * ten at a time; one finding lists those that were not, one held when all were.
 */
export async function judgeFound(
  desk: Desk,
  orders: readonly Placed[],
  scenario: string,
  out: Judgement,
  when: string,
): Promise<void> {
  const acknowledged = orders.filter((o): o is Placed & { orderId: number } => "orderId" in o);
  const found = await lookUpAll(
    desk,
    acknowledged.map((order) => order.clientOrderId),
  );
  const wrong = acknowledged.flatMap((order, i) =>
    found[i] === order.orderId
      ? []
      : [
          `clientOrderId ${order.clientOrderId} finds ${found[i] === undefined ? "nothing" : `order ${found[i]}`}, not order ${order.orderId}`,
        ],
  );
  if (wrong.length === 0) out.held += 1;
  else
    out.findings.push({
      subject: scenario,
      message: `${when}, query_order by origClientOrderId misses ${wrong.length} of ${acknowledged.length} order(s) (each the newest with its id): ${listed(wrong)}`,
    });
}

/** The first three of a list, and how many more. */
function listed(items: readonly string[]): string {
  const shown = items.slice(0, 3).join("; ");
  return items.length > 3 ? `${shown}; and ${items.length - 3} more` : shown;
}

/** kill -9, a start on the same state file, and a desk on the server that starts. */
export async function afterKill(context: CustodyContext, server: OperatedServer, dir: string): Promise<Desk> {
  await server.kill();
  return deskAt(
    context,
    await serving(context, dir, STATE_NAME, "again after kill -9 with its own state file"),
  );
}
