/**
 * clock_sanity: the server's clock (server_time) is in epoch milliseconds, within a few minutes of
 * the tester's, and running. Signed requests carry a timestamp the server checks against its own
 * clock, so the run signs with the server's offset; but an offset is adopted only when it is
 * plausible, and that is decided before anything is signed with it:
 *
 * - within a few minutes: adopted (and at the end of the run the clock must have moved on by
 *   about the time that passed: a clock that stands still fails);
 * - further off: server_time fails, stating the offset. It is adopted only if the server's clock
 *   runs (a second read a second later moved on by about a second) and the HTTP Date header, when
 *   the server sends one, agrees with it. A mock that answers a fixed example time (a serverTime
 *   in 2017, 296 billion ms off), or one whose Date header tells the real time, is signed for
 *   with this machine's clock instead, and the failure says so;
 * - in seconds: fails, and signing uses this machine's clock.
 *
 * At the end, server_time against the server's own stamps: a read answered before an order was
 * sent is no later than its transactTime, one sent after its answer came no earlier (a serverTime
 * cut to the second, or taken from another clock, falls behind the orders it follows).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ContractOperation } from "../core/operations.js";
import { bodyObject, ok } from "../kit/answers.js";
import {
  type ClockReading,
  clockOrderProblems,
  readServerClock,
  type ServerTimeRead,
  type StampedEvent,
} from "../kit/clock.js";
import type { RunContext } from "../kit/context.js";
import { ORDER_OPERATIONS } from "../kit/order-operations.js";
import type { TimedRoundTrip } from "../session/round-trip.js";
import type { Session } from "../session/session.js";
import type { ContractCheck, ProbeFinding } from "./check.js";

const CHECK = "clock_sanity";

export const clockSanity: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "clock",
  description:
    "server_time is epoch milliseconds within a few minutes of the tester's clock (the offset is stated) and runs; a far-off clock is signed with only when it runs and its Date header agrees",
  covers: [],
  hooks: [
    { phase: "probe", run: probeClock },
    {
      phase: "end",
      run: async (ctx) => {
        await recheckClock(ctx);
        await judgeClockOrder(ctx);
      },
    },
  ],
  appliesTo: (operation) => operation.operationId === "server_time",
  notApplicable: "judged on server_time only",
  seenToCatch: [
    "server-time-in-seconds",
    "server-clock-9-years-off",
    "server-clock-stands-still",
    "server-time-cut-to-the-second",
  ],
};
/** Largest offset that passes: a few minutes, as NTP-less test machines drift. */
export const MAX_CLOCK_OFFSET_MS = 5 * 60_000;
/** Below this a serverTime cannot be epoch milliseconds of this century (it is seconds). */
const MILLISECONDS_FROM = 1e11;
/** How far apart two reads are taken to tell a running clock from a fixed one. */
const RUNNING_GAP_MS = 1500;
/** How far a running clock's step may differ from this machine's over that gap (network time aside). */
const RUNNING_TOLERANCE_MS = 1000;

/** The first read of the server's clock, judged, and the clock the run signs with. */
async function probeClock(session: Session): Promise<ProbeFinding | undefined> {
  const time = session.model.operation("server_time");
  if (!time) return undefined;
  const reading = await readServerClock(session, time, "probe: server time");
  const decision = await settleClock(session, time, reading);
  return { clock: { ...decision, reading } };
}

export interface ClockDecision {
  /** The offset signing uses (server minus local), 0 for this machine's clock. */
  offsetMs: number;
  /** What the progress line says about it. */
  note: string;
}

/**
 * Judges the server's clock from the probe's read (and a second read when the offset is large)
 * and decides the offset to sign with, before any signed request is sent.
 */
export async function settleClock(
  session: Session,
  time: ContractOperation,
  first: ClockReading,
): Promise<ClockDecision> {
  const { serverTime, exchange, local } = first;
  if (serverTime === undefined)
    return { offsetMs: 0, note: "no server time; signing uses this machine's clock" };
  if (serverTime < MILLISECONDS_FROM) {
    session.fail(
      CHECK,
      exchange,
      `serverTime ${serverTime} looks like seconds, not epoch milliseconds (it would be ${formatOffset(serverTime * 1000 - local)} from this machine's clock as seconds); signing uses this machine's clock`,
      "/serverTime",
    );
    return { offsetMs: 0, note: "server time in seconds; signing uses this machine's clock" };
  }
  const offset = serverTime - local;
  if (Math.abs(offset) <= MAX_CLOCK_OFFSET_MS) {
    session.pass(CHECK, exchange);
    return { offsetMs: offset, note: `clock offset ${Math.round(offset)} ms` };
  }
  const distrust = await distrustOf(session, time, first);
  const off = `the server clock is ${formatOffset(offset)} from this machine's (more than ${MAX_CLOCK_OFFSET_MS / 60_000} minutes)`;
  if (distrust) {
    session.fail(
      CHECK,
      exchange,
      `${off}, and ${distrust}: that is not a clock to sign with, so signing uses this machine's clock`,
      "/serverTime",
    );
    return {
      offsetMs: 0,
      note: `server clock ${formatOffset(offset)} not adopted (${distrust}); signing uses this machine's clock`,
    };
  }
  session.fail(
    CHECK,
    exchange,
    `${off}; it runs${first.date !== undefined ? " and its Date header agrees" : ""}, so signing uses the server's clock`,
    "/serverTime",
  );
  return {
    offsetMs: offset,
    note: `clock offset ${Math.round(offset)} ms (${formatOffset(offset)}; adopted: the server's clock runs)`,
  };
}

/** Why a far-off server clock is not to be trusted, or undefined when it runs and the Date header agrees. */
async function distrustOf(
  session: Session,
  time: ContractOperation,
  first: ClockReading,
): Promise<string | undefined> {
  if (first.date !== undefined && Math.abs(first.date - first.serverTime!) > MAX_CLOCK_OFFSET_MS) {
    return `the server's own Date header (${new Date(first.date).toISOString()}) is ${formatOffset(first.date - first.local)} from this machine's clock`;
  }
  const wait = RUNNING_GAP_MS - (Date.now() - first.local);
  if (wait > 0) await sleep(wait);
  const second = await readServerClock(session, time, "probe: server time again (is the clock running?)");
  if (second.serverTime === undefined) return "a second read gave no server time";
  const step = second.serverTime - first.serverTime!;
  const elapsed = second.local - first.local;
  const slack = RUNNING_TOLERANCE_MS + first.halfTrip + second.halfTrip;
  if (Math.abs(step - elapsed) > slack) {
    return step === 0
      ? `it stands still (two reads ${Math.round(elapsed)} ms apart both gave ${first.serverTime})`
      : `it moved ${step} ms while ${Math.round(elapsed)} ms passed here`;
  }
  return undefined;
}

/**
 * At the end of a run whose server clock was adopted as plausible: the clock moved on by about
 * the time that passed. A clock that stands still, runs backwards or jumps fails server_time.
 */
export async function recheckClock(ctx: RunContext): Promise<void> {
  const { session } = ctx;
  const time = session.model.operation("server_time");
  const first = ctx.clock?.reading;
  if (!time || !first) return;
  if (first.serverTime === undefined || first.serverTime < MILLISECONDS_FROM) return;
  if (Math.abs(first.serverTime - first.local) > MAX_CLOCK_OFFSET_MS) return;
  const wait = RUNNING_GAP_MS - (Date.now() - first.local);
  if (wait > 0)
    await sleep(wait, undefined, session.signal ? { signal: session.signal } : {}).catch(() => {});
  const second = await readServerClock(session, time, "clock: server time at the end of the run");
  if (second.serverTime === undefined) return;
  const step = second.serverTime - first.serverTime;
  const elapsed = second.local - first.local;
  const slack = RUNNING_TOLERANCE_MS + first.halfTrip + second.halfTrip + elapsed / 100;
  if (Math.abs(step - elapsed) > slack) {
    session.fail(
      CHECK,
      second.exchange,
      step === 0
        ? `the server clock stands still: serverTime ${second.serverTime} at the start of the run and ${Math.round(elapsed)} ms later`
        : `the server clock moved ${step} ms while ${Math.round(elapsed)} ms passed on this machine`,
      "/serverTime",
    );
  } else session.pass(CHECK, second.exchange);
}

export function formatOffset(ms: number): string {
  const sign = ms < 0 ? "behind" : "ahead";
  const abs = Math.abs(ms);
  const years = abs / (365.25 * 86_400_000);
  const text =
    years >= 1
      ? `${years.toFixed(1)} years`
      : abs >= 3_600_000
        ? `${(abs / 3_600_000).toFixed(1)} h`
        : `${Math.round(abs / 1000)} s`;
  return `${text} ${sign}`;
}

/** Whether an exchange asked for its times in another unit than milliseconds (X-MBX-TIME-UNIT). */
const inAnotherUnit = ({ exchange }: TimedRoundTrip) =>
  exchange.plan.params.some(([name]) => name.toLowerCase() === "x-mbx-time-unit");

/** Every server_time read of the run against every order it placed or cancelled (clockOrderProblems). */
async function judgeClockOrder(ctx: RunContext): Promise<void> {
  const { session } = ctx;
  if (!session.recorder.enabled(CHECK)) return;
  const timed = session.timeline.filter((entry) => ok(entry.exchange) && !inAnotherUnit(entry));
  const reads: Array<ServerTimeRead & { entry: TimedRoundTrip }> = [];
  const events: StampedEvent[] = [];
  for (const entry of timed) {
    const { exchange, sentAt, answeredAt, clock } = entry;
    const body = bodyObject(exchange);
    const id = exchange.op.operationId;
    if (id === "server_time" && typeof body?.serverTime === "number")
      reads.push({ sentAt, answeredAt, clock, serverTime: body.serverTime, entry });
    const stamped = id === ORDER_OPERATIONS.newOrder || id === ORDER_OPERATIONS.cancelOrder;
    if (stamped && typeof body?.transactTime === "number")
      events.push({
        sentAt,
        answeredAt,
        clock,
        time: body.transactTime,
        what: `${id}'s answer for order ${String(body.orderId)} on ${String(body.symbol)}`,
      });
  }
  const last = reads.at(-1);
  if (!last || events.length === 0) return;
  const problems = clockOrderProblems(reads, events);
  if (problems.length > 0)
    session.fail(
      CHECK,
      last.entry.exchange,
      `server_time against the orders' transactTime: ${problems.join("; ")}`,
      "/serverTime",
    );
  else session.pass(CHECK, last.entry.exchange);
}
