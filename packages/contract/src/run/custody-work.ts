/**
 * Work and its end (run/custody.ts): a stop (SIGTERM) while orders arrive, what work that ended
 * leaves open, and a long history of orders found again by their client order ids.
 */
import {
  type CustodyContext,
  firstStart,
  folder,
  judged,
  judgement,
  STATE_NAME,
  serving,
} from "./custody-context.js";
import {
  afterKill,
  cancel,
  cancelAll,
  type Desk,
  deskAt,
  judgeFound,
  judgeKept,
  judgeListed,
  type Placed,
  pingAt,
  place,
  placeKept,
} from "./custody-orders.js";
import { openFileCount } from "./operated-server.js";
import type { Judgement } from "./persistence.js";

/** Clients placing orders at once while the server is stopped. */
const STOP_CLIENTS = 4;

/** Orders acknowledged before the stop is asked for. */
const STOP_AFTER = 20;

/**
 * Orders one client may still have taken that it sent after SIGTERM: its request may reach the
 * server before the signal does, and a server may see the signal a turn of its loop late.
 */
const TAKEN_ACROSS_STOP = 2;

/**
 * A stop (SIGTERM) while orders arrive: the server takes no new work from then on (each client at
 * most TAKEN_ACROSS_STOP orders sent after the signal), refuses with 503 or closes the connection,
 * ends within the stop timeout (it is not killed), and at the next start every order it acknowledged is there and none it refused with an
 * answer; an order sent as it stopped and never answered may be either.
 */
export async function gracefulStop(context: CustodyContext): Promise<Judgement> {
  const scenario = "a stop (SIGTERM) while orders arrive";
  const dir = folder(context, "graceful-stop");
  return judged(context, scenario, async (out) => {
    const server = await firstStart(context, dir);
    const desk = await deskAt(context, server);
    const placed: Placed[] = [];
    const takenAfterStop = Array.from({ length: STOP_CLIENTS }, () => 0);
    let stopSent = false;
    let acknowledged = 0;
    let enough: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      enough = resolve;
    });
    // Each client places orders one after another until one is refused or goes unanswered: the stop.
    const client = async (n: number) => {
      for (let i = 0; i < 1000; i += 1) {
        const sentAfterStop = stopSent;
        const order = await place(desk, `custody-stop-${n}-${i}`);
        placed.push(order);
        if ("refused" in order) return;
        acknowledged += 1;
        if (sentAfterStop) takenAfterStop[n]! += 1;
        if (acknowledged >= STOP_AFTER) enough();
      }
    };
    const clients = Array.from({ length: STOP_CLIENTS }, (_, n) => client(n));
    await Promise.race([ready, Promise.all(clients)]);
    stopSent = true;
    const { forced } = await server.stop(context.stopTimeoutMs);
    await Promise.all(clients);
    const problems = [
      ...newWorkProblems(takenAfterStop),
      ...stoppingRefusalProblems(placed),
      ...(forced
        ? [
            `still running ${context.stopTimeoutMs} ms after SIGTERM: a stop must end the server (it was killed)`,
          ]
        : []),
    ];
    for (const message of problems) out.findings.push({ subject: scenario, message });
    if (problems.length === 0) out.held += 1;
    out.notes.push(
      `${scenario}: orders sent after SIGTERM and acknowledged, by client: ${takenAfterStop.join(", ")}; refused: ${refusalCounts(placed)}`,
    );
    const again = await serving(context, dir, STATE_NAME, "again after a stop with its own state file");
    await judgeKept(await deskAt(context, again), placed, scenario, out);
  });
}

/**
 * Each client's orders sent after SIGTERM and acknowledged, by client: more than
 * TAKEN_ACROSS_STOP on one is new work taken while stopping, and a server that serves its busy
 * connections so ends only when its clients stop.
 */
export function newWorkProblems(takenAfterStop: readonly number[]): string[] {
  return takenAfterStop.flatMap((taken, n) =>
    taken > TAKEN_ACROSS_STOP
      ? [
          `client ${n + 1} had ${taken} orders acknowledged that it sent after SIGTERM (at most ${TAKEN_ACROSS_STOP} may cross the signal): a stopping server takes no new work, it refuses it or closes the connection`,
        ]
      : [],
  );
}

/**
 * The refusals of a stop that are server errors other than 503: a stopping server that refuses a
 * request says it is unavailable for now (503, RFC 9110 §15.6.4), or closes the connection; any
 * other 5xx says it failed, and leaves the client no way to tell that the order was not taken.
 * A 4xx is the order's own refusal, not judged here.
 */
export function stoppingRefusalProblems(placed: readonly Placed[]): string[] {
  return placed.flatMap((order) =>
    "refused" in order && order.status !== undefined && order.status >= 500 && order.status !== 503
      ? [
          `order ${order.clientOrderId} was refused with ${order.status} as the server stopped (${order.refused}): a stopping server refuses with 503 Service Unavailable, or closes the connection`,
        ]
      : [],
  );
}

/** How the refused orders were answered, by status ("no answer": the connection closed). */
function refusalCounts(placed: readonly Placed[]): string {
  const counts = new Map<string, number>();
  for (const order of placed)
    if ("refused" in order) {
      const how = order.status === undefined ? "no answer" : String(order.status);
      counts.set(how, (counts.get(how) ?? 0) + 1);
    }
  return [...counts].map(([how, n]) => `${n} × ${how}`).join(", ") || "none";
}

/** Orders in flight at once while a long history is made. */
const HISTORY_FLIGHT = 10;

/** Orders placed between two cancel_all_orders, below any sensible limit on open orders. */
const HISTORY_OPEN = 100;

/**
 * A long history: `context.history` orders on one symbol (each cancelled soon after, in bunches),
 * then every one is found by its client order id, on the server that took them and at the next
 * start after kill -9; the first's id, its order closed, is given to a new order, which is then
 * what the id finds. A cache or an index of recent client order ids that loses some shows here.
 */
export async function longHistory(context: CustodyContext): Promise<Judgement> {
  const scenario = `a history of ${context.history} orders`;
  if (context.history < 2)
    return {
      ...judgement(),
      notes: ["a long history: not tried (give --history N, N orders on one symbol)"],
    };
  const dir = folder(context, "long-history");
  return judged(context, scenario, async (out) => {
    const server = await firstStart(context, dir);
    const desk = await deskAt(context, server);
    const ids = Array.from({ length: context.history }, (_, i) => `custody-history-${i}`);
    const all: Placed[] = [];
    const chosen = new Map<number, Placed>();
    const picks = new Set([0, Math.floor(ids.length / 2), ids.length - 1]);
    for (let from = 0; from < ids.length; from += HISTORY_OPEN) {
      const bunch = ids.slice(from, from + HISTORY_OPEN);
      for (let at = 0; at < bunch.length; at += HISTORY_FLIGHT) {
        const flight = bunch.slice(at, at + HISTORY_FLIGHT);
        const placed = await Promise.all(flight.map((id) => placeKept(desk, id)));
        all.push(...placed);
        placed.forEach((order, i) => {
          if (picks.has(from + at + i)) chosen.set(from + at + i, order);
        });
      }
      await cancelAll(desk);
    }
    const kept = [...chosen.values()];
    await judgeFound(desk, all, scenario, out, "on the server that took them");
    await judgeListed(desk, all, scenario, out, "on the server that took them");
    const reused = await placeKept(desk, kept[0]!.clientOrderId);
    kept[0] = reused;
    all[0] = reused;
    const when = "once the first order's client order id was given to a new order";
    await judgeFound(desk, kept, scenario, out, when);
    await judgeListed(desk, all, scenario, out, when);
    const again = await afterKill(context, server, dir);
    await judgeFound(again, all, scenario, out, "at the next start on the same state file");
    await judgeListed(again, all, scenario, out, "at the next start on the same state file");
  });
}

/** Orders placed and cancelled before the open files are first counted: what a server opens once. */
const WARM_ROUNDS = 20;

/** Orders placed (each on a connection of its own, closed after) and cancelled between the counts. */
const WORK_ROUNDS = 200;

/** Files a server may come to hold for good while it works (a log, an index, a pool's threads). */
const OPEN_FILES_SLACK = 16;

/**
 * Work that ended leaves nothing open: after WORK_ROUNDS orders, each placed on a connection of
 * its own that is then closed, and cancelled, the server's processes hold no more open files
 * (descriptors) than before, but a few. One left open with each order or connection stops the
 * server at the system's limit, after days of work.
 */
export async function openFiles(context: CustodyContext): Promise<Judgement> {
  const scenario = "open files after work that ended";
  const dir = folder(context, "open-files");
  return judged(context, scenario, async (out) => {
    const server = await firstStart(context, dir);
    const desk = await deskAt(context, server);
    await work(desk, "warm", WARM_ROUNDS);
    const before = openFileCount(server.pids());
    if (before === undefined) {
      out.notes.push(`${scenario}: not tried, /proc/PID/fd cannot be read here`);
      return;
    }
    await work(desk, "work", WORK_ROUNDS);
    const bound = before + OPEN_FILES_SLACK;
    const after = await settledCount(
      () => openFileCount(server.pids()),
      bound,
      async () => {
        await pingAt(desk);
      },
    );
    if (after !== undefined && after > bound)
      out.findings.push({
        subject: scenario,
        message: `its processes hold ${after} open files (descriptors) after ${WORK_ROUNDS} orders were placed, each on a connection that was then closed, and cancelled, against ${before} before them: something is left open with each order or connection, and a server that leaks so stops at the system's limit`,
      });
    else {
      out.held += 1;
      out.notes.push(`${scenario}: ${before} open before ${WORK_ROUNDS} orders, ${after ?? "?"} after`);
    }
  });
}

async function work(desk: Desk, name: string, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i += 1) {
    const order = await placeKept(desk, `custody-${name}-${i}`, true);
    await cancel(desk, order.orderId);
  }
}

/** Answers the server gives without the count falling before it is taken as final. */
const STILL_AFTER = 3;

/**
 * The count once it is at most `bound`, or once it has not fallen across STILL_AFTER answers of
 * the server (connections closed by the client are let go as the server reads on: no clock).
 */
async function settledCount(
  count: () => number | undefined,
  bound: number,
  ping: () => Promise<void>,
): Promise<number | undefined> {
  let last = count();
  for (let still = 0; last !== undefined && last > bound && still < STILL_AFTER; ) {
    await ping();
    const now = count();
    still = now !== undefined && now < last ? 0 : still + 1;
    last = now;
  }
  return last;
}
