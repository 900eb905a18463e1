/**
 * time_window (x-time-window): startTime/endTime select exactly the items between them (bounds
 * inclusive as the spec says), as epoch integers and, where the schema admits it, as RFC 3339
 * date-times to the millisecond, in UTC and with an offset of no whole hour; each bound alone anchors the page as stated; a window wider than
 * the largest span is refused with the stated code, and one exactly that wide is served; where the
 * spec states no largest span, a window of days is served; a window with both bounds at one
 * item's time holds the items of that time.
 */

import type { TimeWindow } from "@marketapi/spec/model";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { fetchServed, isRead, listAt, valueAt, valuesFor } from "../kit/behaviour-support.js";
import { expectRefusal, type RunContext } from "../kit/context.js";
import type { Values } from "../kit/values.js";
import type { ContractCheck } from "./check.js";

const CHECK = "time_window";

export const timeWindow: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "window",
  description:
    "startTime/endTime select exactly the items between them, each alone anchors as stated, wider windows are refused (x-time-window)",
  covers: ["x-time-window"],
  hooks: [{ phase: "behaviour", run: timeWindowCheck, needsHistory: true }],
  appliesTo: (operation) => isRead(operation) && operation.behaviour.timeWindow !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: [
    "aggTrades-startTime-ignored",
    "all-orders-wide-window-accepted",
    "aggTrades-date-time-to-the-second",
    "aggTrades-window-over-an-hour-refused",
    "window-of-one-instant-empty",
  ],
};

export async function timeWindowCheck(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const window = operation.behaviour.timeWindow;
  if (!window) return;
  const limitName = operation.behaviour.limit?.parameter ?? "limit";
  const recent = await fetchServed(
    ctx,
    CHECK,
    operation,
    valuesFor(ctx, operation, { [limitName]: 50 }),
    "window: the newest items",
  );
  if (!recent) return;
  const items = listAt(recent.json, "") ?? [];
  const all = items.map((item) => valueAt(item, window.field));
  const times = all.every((t): t is number => typeof t === "number") ? closedTimes(all) : [];
  if (times.length < 4) {
    ctx.session.recorder.note(
      CHECK,
      operation.operationId,
      `${items.length} items, ${times.length} of them with a time between the oldest and the newest item's: window not observable`,
    );
  } else {
    await bothBounds(ctx, operation, window, times, limitName);
    await oneBound(ctx, operation, window, times, limitName);
  }
  await widestSpan(
    ctx,
    operation,
    window,
    times.find((t) => typeof t === "number") ?? ctx.session.now() - 3_600_000,
  );
}

/**
 * The times of a page of the newest items that lie strictly between its oldest and its newest
 * time, where the page holds every item of each time: the newest millisecond may still gain items
 * (a trade in the same millisecond, after the read), and items older than the page may share its
 * oldest millisecond, so no window is judged that reaches either.
 */
export function closedTimes(times: readonly number[]): number[] {
  const newest = Math.max(...times);
  const oldest = Math.min(...times);
  return times.filter((t) => t > oldest && t < newest);
}

const timesOf = (json: unknown, field: string) =>
  (listAt(json, "") ?? []).map((item) => valueAt(item, field));

/** A page asked with `request.values`: its items' times are `want`'s, or it fails saying `why`. */
async function judgeTimes(
  ctx: RunContext,
  operation: ContractOperation,
  request: { values: Values; label: string },
  times: { field: string; want: number[] },
  why: (got: unknown[]) => string,
): Promise<void> {
  const page = await fetchServed(
    ctx,
    CHECK,
    operation,
    valuesFor(ctx, operation, request.values),
    request.label,
  );
  if (!page) return;
  const got = timesOf(page.json, times.field);
  if (got.join(",") === times.want.join(",")) ctx.session.pass(CHECK, page.exchange);
  else ctx.session.fail(CHECK, page.exchange, why(got));
}

/**
 * Whether a bound's schema admits an RFC 3339 date-time besides epoch integers (the spec's
 * `DateTime`): the same instants are then sent in that form too, to the millisecond.
 */
export function takesDateTime(operation: ContractOperation, name: string): boolean {
  const schema = operation.parameters.find((p) => p.name === name)?.resolvedSchema;
  return schema?.format === "date-time" || (schema?.oneOf ?? []).some((s) => s.format === "date-time");
}

/** A time zone of no whole hour, east of UTC, for bounds written with an offset. */
const OFFSET_MINUTES = 5 * 60 + 30;

/** `t` (epoch ms) as an RFC 3339 date-time in the zone `minutes` east of UTC, to the millisecond. */
export function withOffset(t: number, minutes: number): string {
  const local = new Date(t + minutes * 60_000).toISOString().slice(0, -1);
  const sign = minutes < 0 ? "-" : "+";
  const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, "0");
  return `${local}${sign}${hours}:${String(Math.abs(minutes) % 60).padStart(2, "0")}`;
}

async function bothBounds(
  ctx: RunContext,
  operation: ContractOperation,
  w: TimeWindow,
  times: number[],
  limit: string,
) {
  const start = times[1]!;
  const end = times[times.length - 2]!;
  const want = times.filter((t) => (w.inclusive ? t >= start && t <= end : t > start && t < end));
  const forms: Array<(t: number) => number | string> = [(t) => t];
  if (takesDateTime(operation, w.start) && takesDateTime(operation, w.end))
    forms.push(
      (t) => new Date(t).toISOString(),
      (t) => withOffset(t, OFFSET_MINUTES),
    );
  for (const form of forms) {
    const [from, to] = [form(start), form(end)];
    await judgeTimes(
      ctx,
      operation,
      {
        values: { [w.start]: from, [w.end]: to, [limit]: 50 },
        label: `window: ${w.start}=${from} ${w.end}=${to}`,
      },
      { field: w.field, want },
      (got) =>
        `${w.start}=${from}&${w.end}=${to} should give the ${want.length} items between them${w.inclusive ? ", bounds included" : ""} (x-time-window; times ${start} to ${end} ms); got ${got.length} (times ${got.slice(0, 4).join(", ")}${got.length > 4 ? ", …" : ""})`,
    );
  }
  // No width at all: both bounds at one item's time (from the middle of the page, so that every
  // item of that time is in it).
  const at = times[Math.floor(times.length / 2)]!;
  const exactly = w.inclusive ? times.filter((t) => t === at) : [];
  await judgeTimes(
    ctx,
    operation,
    { values: { [w.start]: at, [w.end]: at, [limit]: 50 }, label: `window: ${w.start}=${w.end}=${at}` },
    { field: w.field, want: exactly },
    (got) =>
      `${w.start}=${w.end}=${at} should give ${w.inclusive ? `the ${exactly.length} item(s) of that time, bounds included` : "nothing, bounds excluded"} (x-time-window); got ${got.length} (times ${got.slice(0, 4).join(", ")}${got.length > 4 ? ", …" : ""})`,
  );
}

async function oneBound(
  ctx: RunContext,
  operation: ContractOperation,
  w: TimeWindow,
  times: number[],
  limit: string,
) {
  const pick = 2;
  const cases: Array<[string, number, number[]]> = [
    [
      w.start,
      times[1]!,
      anchored(
        w.startAlone,
        times.filter((t) => t >= times[1]!),
        pick,
      ),
    ],
    [
      w.end,
      times[times.length - 2]!,
      anchored(
        w.endAlone,
        times.filter((t) => t <= times[times.length - 2]!),
        pick,
      ),
    ],
  ];
  for (const [name, at, want] of cases) {
    await judgeTimes(
      ctx,
      operation,
      { values: { [name]: at, [limit]: pick }, label: `window: ${name}=${at} alone` },
      { field: w.field, want },
      (got) =>
        `${name}=${at} alone with ${limit}=${pick} should give ${name === w.start ? w.startAlone : w.endAlone} (x-time-window): want times ${want.join(", ")}, got ${got.join(", ")}`,
    );
  }
}

function anchored(anchor: TimeWindow["startAlone"], matching: number[], count: number): number[] {
  return anchor === "oldest-from-start" ? matching.slice(0, count) : matching.slice(-count);
}

/**
 * The window asked of an operation whose span the spec does not cap: wider than any cap an
 * implementation may carry over (the live API's aggregate trades had 1 hour until 2022, its
 * orders 24 hours).
 */
const UNCAPPED_PROBE_MS = 7 * 86_400_000;

/**
 * Without a largest span, a wide window is served, holding only items inside it; with one, a
 * window one millisecond wider is refused with the stated code, and one exactly that wide is served.
 */
async function widestSpan(ctx: RunContext, operation: ContractOperation, w: TimeWindow, start: number) {
  if (w.maxSpanMs === undefined) return uncappedSpan(ctx, operation, w, start);
  const tooWide = { ...valuesFor(ctx, operation), [w.start]: start, [w.end]: start + w.maxSpanMs + 1 };
  const refused = await ctx.session.call(
    { op: operation, params: encodeParams(operation, tooWide) },
    "window: one ms wider than the largest span",
  );
  expectRefusal(ctx, CHECK, refused, {
    code: w.tooWideCode,
    what: `a window of maxSpanMs + 1 ms (${w.maxSpanMs + 1})`,
  });
  const widest = { ...valuesFor(ctx, operation), [w.start]: start, [w.end]: start + w.maxSpanMs };
  const served = await fetchServed(ctx, CHECK, operation, widest, "window: exactly the largest span");
  if (served) ctx.session.pass(CHECK, served.exchange);
}

/** A window of UNCAPPED_PROBE_MS ending at `end`, where the spec states no largest span: served, every item inside it. */
async function uncappedSpan(ctx: RunContext, operation: ContractOperation, w: TimeWindow, end: number) {
  const from = end - UNCAPPED_PROBE_MS;
  const label = `window: ${UNCAPPED_PROBE_MS / 86_400_000} days wide, where the spec states no largest span`;
  const served = await fetchServed(
    ctx,
    CHECK,
    operation,
    { ...valuesFor(ctx, operation), [w.start]: from, [w.end]: end },
    label,
  );
  if (!served) return;
  const times = timesOf(served.json, w.field);
  const outside = times.filter((t) => typeof t !== "number" || t < from || t > end);
  if (outside.length > 0)
    ctx.session.fail(
      CHECK,
      served.exchange,
      `${label}: ${outside.length} item(s) outside ${w.start}=${from} … ${w.end}=${end} (the first at ${String(outside[0])})`,
    );
  // An empty answer was served, which is all it shows: a pass needs items to hold to the window.
  else if (times.length > 0) ctx.session.pass(CHECK, served.exchange);
}
