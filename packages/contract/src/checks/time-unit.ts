/**
 * time_unit: an answer's times are in the unit the request asked for, through the header
 * parameter the spec declares for it (a header whose values name MICROSECOND and MILLISECOND,
 * `X-MBX-TIME-UNIT` in marketapi's spec, as the live API has it). With microseconds every time
 * field is the same instant as in milliseconds: the millisecond value times 1000 plus a part below
 * the millisecond, and nothing else in the answer changes; with milliseconds, or either value in
 * lower case where the spec lists it, the answer is the one without the header. Any other value is
 * refused with the code the spec names for it (x-refusals). An answer asked for in one unit is
 * never given to a request in the other: a server that keeps answers by their URL alone fails.
 *
 * A read that takes a time window is judged once more with bounds in milliseconds that hold some
 * of the newest items: the header sets the unit of the answer's times, not of the bounds.
 *
 * Each read is bracketed by two reads without the header, so that fields that move between reads
 * (serverTime, a window's openTime) are judged against the interval they moved in; a read whose
 * other fields moved (a busy market) is taken again, and left unjudged when it keeps moving.
 */

import type { ContractOperation, ContractParameter } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { describeAnswer, ok } from "../kit/answers.js";
import { listAt, valueAt } from "../kit/behaviour-support.js";
import { cannotCall, expectRefusal, type RunContext, targetValues } from "../kit/context.js";
import { refusalOf } from "../kit/refusal-codes.js";
import type { Values } from "../kit/values.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "time_unit";

/** The units a time-unit header selects (the live API's words). */
const MICRO = "MICROSECOND";
const MILLI = "MILLISECOND";

/**
 * The live API's time fields: the JSON keys that hold an epoch time in its answers (rest-api.md;
 * the spec's time-unit header names them too).
 */
export const TIME_FIELDS: ReadonlySet<string> = new Set([
  "serverTime",
  "time",
  "T",
  "transactTime",
  "transactionTime",
  "updateTime",
  "workingTime",
  "openTime",
  "closeTime",
]);

/** A time in milliseconds lies no further ahead of the run's clock than this. */
const MILLIS_AHEAD_MS = 86_400_000;
/** Reads of one operation taken again when its answer moved between them. */
const ROUNDS = 3;
/** A value no spec lists for a time unit. */
const UNKNOWN_UNIT = "SECOND";

export const timeUnit: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "unit",
  description:
    "the time-unit header: MICROSECOND answers every time field as its millisecond value x1000 plus a sub-millisecond part and nothing else changes, MILLISECOND as without it; another value is refused with the spec's code; answers in one unit are never served for the other",
  covers: [],
  hooks: [{ phase: "behaviour", run: timeUnitOf, needsHistory: false }],
  appliesTo: (operation) => unitHeaderOf(operation) !== undefined,
  notApplicable: "declares no time-unit header",
  seenToCatch: [
    "time-unit-header-ignored",
    "time-unit-field-left-in-milliseconds",
    "time-unit-ids-scaled",
    "time-unit-lower-case-refused",
    "time-unit-unknown-value-served",
    "time-unit-answer-kept-by-url",
    "time-unit-header-scales-time-bounds",
  ],
};

/** The operation's time-unit header parameter: a header whose values name both units. */
export function unitHeaderOf(operation: ContractOperation): ContractParameter | undefined {
  return operation.parameters.find((p) => {
    const values = (p.resolvedSchema.enum ?? []).map((v) => String(v).toUpperCase());
    return p.in === "header" && values.includes(MICRO) && values.includes(MILLI);
  });
}

/** The unit a value of the header selects. */
export function unitOf(value: string): typeof MICRO | typeof MILLI {
  return value.toUpperCase() === MICRO ? MICRO : MILLI;
}

/** An answer's leaves by JSON path ("/0/time"), numbers and strings alike. */
function leaves(body: unknown, at = "", out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(body)) for (const [i, item] of body.entries()) leaves(item, `${at}/${i}`, out);
  else if (typeof body === "object" && body !== null)
    for (const [key, value] of Object.entries(body)) leaves(value, `${at}/${key}`, out);
  else out.set(at, body);
  return out;
}

const isTimePath = (path: string) => TIME_FIELDS.has(path.slice(path.lastIndexOf("/") + 1));

/** The answer without its time fields, as text: two reads that agree on it did not move. */
function untimed(body: unknown): string {
  return JSON.stringify([...leaves(body)].filter(([path]) => !isTimePath(path)));
}

export interface UnitReads {
  /** The answer without the header, read just before. */
  before: unknown;
  /** The answer with the header. */
  asked: unknown;
  /** The answer without the header, read just after. */
  after: unknown;
}

export type UnitJudgement = { moved: true; problems: string[] } | { moved: false; problems: string[] };

/**
 * Judges the answer in `unit` against the two reads in milliseconds around it (pure). The reads
 * without the header must be in milliseconds (no later than `horizonMs`, the run's clock and a
 * day); when the rest of the answer moved between them the read is `moved` and only that is judged.
 */
export function judgeUnit(
  reads: UnitReads,
  unit: typeof MICRO | typeof MILLI,
  horizonMs: number,
): UnitJudgement {
  const problems: string[] = [];
  for (const [which, body] of [
    ["before", reads.before],
    ["after", reads.after],
  ] as const) {
    for (const [path, value] of leaves(body)) {
      if (isTimePath(path) && typeof value === "number" && value > horizonMs)
        problems.push(
          `without the header (read ${which}), ${path} is ${value}, not epoch milliseconds: an answer in another unit was given to it`,
        );
    }
  }
  if (untimed(reads.before) !== untimed(reads.after)) return { moved: true, problems };
  const before = leaves(reads.before);
  const after = leaves(reads.after);
  const asked = leaves(reads.asked);
  const scale = unit === MICRO ? 1000 : 1;
  for (const [path, value] of before) {
    if (!asked.has(path)) {
      problems.push(`${path} is missing from the answer in ${unit.toLowerCase()}s`);
      continue;
    }
    const got = asked.get(path);
    if (!isTimePath(path) || typeof value !== "number") {
      if (got !== value)
        problems.push(
          `${path} is ${JSON.stringify(got)} in ${unit.toLowerCase()}s, ${JSON.stringify(value)} without the header; only times change unit`,
        );
      continue;
    }
    const later = after.get(path);
    const other = typeof later === "number" ? later : value;
    if (value < 0 || other < 0) {
      if (typeof got !== "number" || got >= 0)
        problems.push(
          `${path} is ${JSON.stringify(got)} in ${unit.toLowerCase()}s; without the header it is ${value}, a time not set`,
        );
      continue;
    }
    const low = Math.min(value, other) * scale;
    const high = Math.max(value, other) * scale + scale - 1;
    if (typeof got !== "number" || !Number.isInteger(got) || got < low || got > high)
      problems.push(
        `${path} is ${JSON.stringify(got)} in ${unit.toLowerCase()}s; without the header it is ${value === other ? value : `${value}..${other}`} ms, so it must lie in ${low}..${high}`,
      );
  }
  for (const path of asked.keys())
    if (!before.has(path)) problems.push(`${path} is in the answer in ${unit.toLowerCase()}s only`);
  return { moved: false, problems };
}

/** What the run has judged once already: every listed value, an unknown value on a public and a signed read. */
interface Judged {
  values: boolean;
  unknownPublic: boolean;
  unknownSigned: boolean;
}
const judgedByRun = new WeakMap<RunContext, Judged>();

/** The operation's answer in microseconds; once a run, every value the spec lists and an unknown one. */
async function timeUnitOf(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const header = unitHeaderOf(operation);
  if (header === undefined) return;
  if (operation.method !== "get") {
    ctx.session.recorder.skip(CHECK, operation.operationId, "judged on the reads: it changes the account");
    return;
  }
  const why = cannotCall(ctx, operation);
  if (why) {
    ctx.session.recorder.skip(CHECK, operation.operationId, why);
    return;
  }
  let judged = judgedByRun.get(ctx);
  if (judged === undefined) {
    judged = { values: false, unknownPublic: false, unknownSigned: false };
    judgedByRun.set(ctx, judged);
  }
  const hadTimes = await judgeRead(ctx, operation, header, MICRO);
  await judgeWindowRead(ctx, operation, header);
  // Every value the spec lists, once, on the first read whose answer has a time field.
  if (hadTimes && !judged.values) {
    judged.values = true;
    for (const value of header.resolvedSchema.enum ?? [])
      if (String(value) !== MICRO) await judgeRead(ctx, operation, header, String(value));
  }
  const unknown = operation.signed ? "unknownSigned" : "unknownPublic";
  if (!judged[unknown]) {
    judged[unknown] = true;
    await judgeUnknownValue(ctx, operation, header);
  }
}

/**
 * Where the read takes a time window (x-time-window): the same judgement on a window whose bounds,
 * in milliseconds, hold some of the newest items. The header sets the unit of the answer's times,
 * not of the request's: the items selected are the same.
 */
async function judgeWindowRead(ctx: RunContext, operation: ContractOperation, header: ContractParameter) {
  const window = operation.behaviour.timeWindow;
  if (!window) return;
  const newest = await ctx.session.call(
    { op: operation, params: encodeParams(operation, targetValues(operation, ctx)) },
    `time unit: ${operation.operationId}, the newest items for a window`,
  );
  const times = (listAt(newest.response?.json, "") ?? [])
    .map((item) => valueAt(item, window.field))
    .filter((t): t is number => typeof t === "number");
  if (!ok(newest) || times.length < 3) {
    ctx.session.recorder.note(
      CHECK,
      operation.operationId,
      `${times.length} items with times: the window not judged`,
    );
    return;
  }
  await judgeRead(ctx, operation, header, MICRO, { [window.start]: times[1]!, [window.end]: times.at(-2)! });
}

/** One read in `value`'s unit between two without the header; true when it had a time field to judge. */
async function judgeRead(
  ctx: RunContext,
  operation: ContractOperation,
  header: ContractParameter,
  value: string,
  bounds: Values = {},
): Promise<boolean> {
  const values = { ...targetValues(operation, ctx), ...bounds };
  const call = (withHeader: boolean) =>
    ctx.session.call(
      {
        op: operation,
        params: encodeParams(operation, withHeader ? { ...values, [header.name]: value } : values),
      },
      `time unit: ${operation.operationId}${Object.keys(bounds).length > 0 ? " in a window" : ""}${withHeader ? ` with ${header.name}: ${value}` : ""}`,
    );
  for (let round = 1; round <= ROUNDS; round++) {
    const before = await call(false);
    const asked = await call(true);
    const after = await call(false);
    const refused = [before, asked, after].find((exchange) => !ok(exchange));
    if (refused !== undefined) {
      if (refused === asked && ok(before))
        ctx.session.fail(
          CHECK,
          asked,
          `${header.name}: ${value} was refused (${describeAnswer(asked)}); the spec lists the value`,
        );
      else
        ctx.session.recorder.note(
          CHECK,
          operation.operationId,
          `a read was refused (${describeAnswer(refused)})`,
        );
      return false;
    }
    const horizon = ctx.session.now() + MILLIS_AHEAD_MS;
    const judgement = judgeUnit(
      { before: before.response?.json, asked: asked.response?.json, after: after.response?.json },
      unitOf(value),
      horizon,
    );
    if (judgement.problems.length > 0) {
      ctx.session.fail(
        CHECK,
        judgement.moved ? after : asked,
        `${header.name}: ${value}: ${judgement.problems.slice(0, 4).join("; ")}`,
      );
      return false;
    }
    if (!judgement.moved) {
      ctx.session.pass(CHECK, asked);
      return [...leaves(before.response?.json).keys()].some(isTimePath);
    }
  }
  ctx.session.recorder.note(
    CHECK,
    operation.operationId,
    `the answer kept moving between reads (${ROUNDS} tries); not judged`,
  );
  return false;
}

/** A value the spec does not list is refused, with the code the spec names for it. */
async function judgeUnknownValue(
  ctx: RunContext,
  operation: ContractOperation,
  header: ContractParameter,
): Promise<void> {
  const values = { ...targetValues(operation, ctx), [header.name]: UNKNOWN_UNIT };
  const exchange: RoundTrip = await ctx.session.call(
    { op: operation, params: encodeParams(operation, values) },
    `time unit: ${operation.operationId} with ${header.name}: ${UNKNOWN_UNIT}`,
  );
  expectRefusal(ctx, CHECK, exchange, {
    what: `${header.name}: ${UNKNOWN_UNIT}`,
    ...refusalOf(ctx, "unknown-enum-value", operation.operationId, header.name),
  });
}
