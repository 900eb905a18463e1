/**
 * epoch_units (x-epoch-time): time parameters sent in microseconds mean what the spec says.
 * - `timestamp`: a signed read whose timestamp is in microseconds is judged as the instant it
 *   names, by the signing rule unchanged: now, and half the default window old, are served; older
 *   than the window, or further ahead than the acceptance rule allows, are refused with x-signing's
 *   code. Judged once a run, on the first signed read.
 * - `startTime`/`endTime` (where x-time-window names them): bounds in microseconds, each inside a
 *   millisecond, select exactly the items the spec's rule selects from the newest items read
 *   without bounds (an item at millisecond T is inside when start <= T x 1000 <= end). The start
 *   lies just after the millisecond of an item and the end just before the newest item's, so a
 *   bound rounded the wrong way, or read in the wrong unit, selects other items.
 * The bound that tells the units apart and the rules come from the spec model (SpecModel.epochTime,
 * x-signing); a spec without x-epoch-time has nothing here to judge.
 */

import { type EpochTime, insideEpochWindow, type TimeWindow } from "@marketapi/spec/model";
import { type ContractOperation, isSigned } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { describeAnswer, ok } from "../kit/answers.js";
import { fetchServed, isRead, listAt, valueAt, valuesFor } from "../kit/behaviour-support.js";
import { cannotCall, expectRefusal, expectServed, type RunContext } from "../kit/context.js";
import type { ContractCheck } from "./check.js";

const CHECK = "epoch_units";

/** Items read without bounds, the window's material (the tester's usual page). */
const PAGE = 50;
/** Margin kept from each edge of the signing window, for the run's estimate of the server's clock (ms). */
const CLOCK_MARGIN_MS = 2000;

export const epochUnits: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "µs",
  description:
    "time parameters in microseconds (x-epoch-time): a timestamp is judged as the instant it names against the window in ms; startTime/endTime inside a millisecond select exactly the items whose instants lie within them",
  covers: ["x-epoch-time"],
  hooks: [{ phase: "behaviour", run: epochUnitsOf, needsHistory: true }],
  appliesTo: (operation, model) =>
    model.epochTime !== undefined &&
    isRead(operation) &&
    (isSigned(operation) || epochWindowOf(operation, model.epochTime) !== undefined),
  notApplicable: "takes no time parameter in microseconds (x-epoch-time)",
  seenToCatch: [
    "microsecond-timestamp-refused",
    "microsecond-timestamp-window-in-ms",
    "microsecond-timestamp-not-judged",
    "microsecond-bounds-read-as-ms",
    "microsecond-start-rounded-down",
    "microsecond-end-rounded-up",
  ],
};

/** The operation's time window when x-epoch-time covers both its bounds and they take integers. */
export function epochWindowOf(operation: ContractOperation, rule: EpochTime): TimeWindow | undefined {
  const window = operation.behaviour.timeWindow;
  if (window === undefined) return undefined;
  const takesIntegers = (name: string) => {
    const schema = operation.parameters.find((p) => p.name === name)?.resolvedSchema;
    const types = [schema?.type, ...(schema?.oneOf ?? []).map((branch) => branch.type)].flat();
    return rule.parameters.includes(name) && types.includes("integer");
  };
  return takesIntegers(window.start) && takesIntegers(window.end) ? window : undefined;
}

/** Runs that have judged the timestamp already (once a run). */
const timestampJudged = new WeakSet<RunContext>();

async function epochUnitsOf(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const rule = ctx.session.model.epochTime;
  if (rule === undefined) return;
  const why = cannotCall(ctx, operation);
  if (why) {
    ctx.session.recorder.skip(CHECK, operation.operationId, why);
    return;
  }
  const window = epochWindowOf(operation, rule);
  if (isSigned(operation) && !timestampJudged.has(ctx)) {
    if (await judgeTimestamps(ctx, operation)) timestampJudged.add(ctx);
  } else if (window === undefined) {
    ctx.session.recorder.skip(
      CHECK,
      operation.operationId,
      "the timestamp in microseconds is judged once a run",
    );
  }
  if (window !== undefined) await judgeWindow(ctx, operation, rule, window);
}

export interface TimestampProbe {
  label: string;
  /** Milliseconds added to the run's estimate of the server's clock. */
  shiftMs: number;
  served: boolean;
}

/** The timestamps in microseconds a run sends, and whether each must be served (pure). */
export function timestampProbes(recvWindowMs: number, aheadMs: number | undefined): TimestampProbe[] {
  const probes: TimestampProbe[] = [
    { label: "now", shiftMs: 0, served: true },
    { label: `${recvWindowMs / 2} ms old (inside the window)`, shiftMs: -recvWindowMs / 2, served: true },
    {
      label: `${recvWindowMs + CLOCK_MARGIN_MS} ms old (outside the window of ${recvWindowMs} ms)`,
      shiftMs: -(recvWindowMs + CLOCK_MARGIN_MS),
      served: false,
    },
  ];
  if (aheadMs !== undefined)
    probes.push({
      label: `${aheadMs + CLOCK_MARGIN_MS} ms ahead (at most ${aheadMs} ms allowed)`,
      shiftMs: aheadMs + CLOCK_MARGIN_MS,
      served: false,
    });
  return probes;
}

/** The probes on this operation; false when its control read (timestamp in ms) is not served. */
async function judgeTimestamps(ctx: RunContext, operation: ContractOperation): Promise<boolean> {
  const signing = ctx.session.model.signing;
  const params = () => encodeParams(operation, valuesFor(ctx, operation));
  const control = await ctx.session.call(
    { op: operation, params: params() },
    "epoch units: control, timestamp in ms",
  );
  if (!ok(control)) {
    ctx.session.recorder.note(
      CHECK,
      operation.operationId,
      `the control read was not served (${describeAnswer(control)}): timestamps judged on another read`,
    );
    return false;
  }
  const aheadMs = signing.aheadAllowedMs;
  if (aheadMs === undefined)
    ctx.session.recorder.note(
      CHECK,
      operation.operationId,
      "x-signing's acceptance states no lead as `timestamp < serverTime + N`: the lead is not judged",
    );
  for (const probe of timestampProbes(signing.recvWindowDefault, aheadMs)) {
    const what = `a ${signing.timestampParameter} in microseconds, ${probe.label}`;
    const exchange = await ctx.session.call(
      {
        op: operation,
        params: params(),
        auth: { timestampInMicroseconds: true, timestampShiftMs: probe.shiftMs },
      },
      `epoch units: ${what}`,
    );
    if (probe.served) expectServed(ctx, CHECK, exchange, what);
    else expectRefusal(ctx, CHECK, exchange, { what, code: signing.invalidTimestampCode });
  }
  return true;
}

export interface WindowCase {
  start: number;
  end: number;
}

/**
 * Bounds in microseconds for the newest items' times (ms, oldest first): the start 1 µs after the
 * second item's millisecond, the end 1 µs before the newest item's; undefined when the times leave
 * no item strictly between (pure).
 */
export function microsecondBounds(times: readonly number[]): WindowCase | undefined {
  const first = times[1];
  const newest = times[times.length - 1];
  if (first === undefined || newest === undefined) return undefined;
  const start = first * 1000 + 1;
  const end = newest * 1000 - 1;
  return times.some((t) => t * 1000 >= start && t * 1000 <= end) ? { start, end } : undefined;
}

/**
 * What the answer to a window in microseconds lacks or has beyond the items the spec's rule
 * selects from `items` (the newest, read without bounds), each item known by `key` (pure).
 */
export function judgeEpochWindow(
  rule: Pick<EpochTime, "microsecondsFrom" | "units">,
  items: readonly { key: string; time: number }[],
  bounds: WindowCase,
  answer: readonly string[],
): string[] {
  const want = items.filter((item) => insideEpochWindow(rule, item.time, bounds.start, bounds.end));
  const got = new Set(answer);
  const problems: string[] = [];
  const missing = want.filter((item) => !got.has(item.key));
  if (missing.length > 0)
    problems.push(
      `${missing.length} item(s) inside are missing (${missing
        .slice(0, 3)
        .map((item) => `${item.key} at ${item.time} ms`)
        .join(", ")})`,
    );
  const wanted = new Set(want.map((item) => item.key));
  const extra = answer.filter((key) => !wanted.has(key));
  if (extra.length > 0) {
    const times = new Map(items.map((item) => [item.key, item.time]));
    problems.push(
      `${extra.length} item(s) outside are listed (${extra
        .slice(0, 3)
        .map((key) => `${key}${times.has(key) ? ` at ${times.get(key)} ms` : ""}`)
        .join(", ")})`,
    );
  }
  return problems;
}

async function judgeWindow(
  ctx: RunContext,
  operation: ContractOperation,
  rule: EpochTime,
  window: TimeWindow,
): Promise<void> {
  const limitName = operation.behaviour.limit?.parameter ?? "limit";
  const keyField = operation.behaviour.listOrder?.lists[0]?.field;
  const keyOf = (item: unknown) =>
    keyField === undefined ? JSON.stringify(item) : String(valueAt(item, keyField));
  const newest = await fetchServed(
    ctx,
    CHECK,
    operation,
    valuesFor(ctx, operation, { [limitName]: PAGE }),
    "epoch units: the newest items",
  );
  if (!newest) return;
  const items = (listAt(newest.json, "") ?? []).map((item) => ({
    key: keyOf(item),
    time: valueAt(item, window.field),
  }));
  const timed = items.filter((item): item is { key: string; time: number } => typeof item.time === "number");
  const bounds = microsecondBounds(timed.map((item) => item.time));
  if (timed.length !== items.length || bounds === undefined) {
    ctx.session.recorder.note(
      CHECK,
      operation.operationId,
      `${items.length} items, too few times apart for a window in microseconds`,
    );
    return;
  }
  const what = `${window.start}=${bounds.start} ${window.end}=${bounds.end} (microseconds)`;
  const page = await fetchServed(
    ctx,
    CHECK,
    operation,
    valuesFor(ctx, operation, { [window.start]: bounds.start, [window.end]: bounds.end, [limitName]: PAGE }),
    `epoch units: ${what}`,
  );
  if (!page) return;
  const problems = judgeEpochWindow(rule, timed, bounds, (listAt(page.json, "") ?? []).map(keyOf));
  if (problems.length > 0)
    ctx.session.fail(
      CHECK,
      page.exchange,
      `${what} selects items at millisecond T when ${window.start} <= T x 1000 <= ${window.end} (x-epoch-time): ${problems.join("; ")}`,
    );
  else ctx.session.pass(CHECK, page.exchange);
}
