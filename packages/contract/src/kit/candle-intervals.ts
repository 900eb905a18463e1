/**
 * Candle intervals by meaning, as the sandbox document states them for `klines`: a candle of an
 * interval opens on the interval's boundary in the request's time zone (fixed lengths counted from
 * 1970-01-01 there, `1w` from Monday 00:00, `1M` from the first of the month 00:00), closes one
 * millisecond before the next opens, and the series has no gap; a candle of a longer interval is
 * the candles of a shorter one that it covers, folded. Pure.
 */
import { type Dec, formatDec, ZERO } from "../core/decimal.js";
import type { Candle } from "./account-views.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** 1970-01-01 was a Thursday: the first Monday 00:00 is four days after the epoch. */
const FIRST_MONDAY = 4 * DAY;

const UNIT_MS: Record<string, number> = { s: 1000, m: MINUTE, h: HOUR, d: DAY };

/** Where an interval's candles open and where the next opens, in a time zone. */
export interface IntervalCut {
  open(time: number): number;
  next(open: number): number;
}

/**
 * The cut of `interval` (`1s` … `3d`, `1w`, `1M`) in a time zone `zoneMinutes` east of UTC;
 * undefined for an interval the document does not name.
 */
export function intervalCut(interval: string, zoneMinutes: number): IntervalCut | undefined {
  const zone = zoneMinutes * MINUTE;
  if (interval === "1M")
    return {
      open: (time) => {
        const local = new Date(time + zone);
        return Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1) - zone;
      },
      next: (open) => {
        const local = new Date(open + zone);
        return Date.UTC(local.getUTCFullYear(), local.getUTCMonth() + 1, 1) - zone;
      },
    };
  const fixed = /^(\d+)([smhdw])$/.exec(interval);
  if (!fixed) return undefined;
  const weeks = fixed[2] === "w";
  const length = Number(fixed[1]) * (weeks ? 7 * DAY : (UNIT_MS[fixed[2]!] as number));
  const origin = (weeks ? FIRST_MONDAY : 0) - zone;
  return {
    open: (time) => Math.floor((time - origin) / length) * length + origin,
    next: (open) => open + length,
  };
}

/** Minutes east of UTC of a `timeZone` text (`8`, `-03:30`, `+05:45`); undefined when it is none. */
export function zoneMinutesOf(text: string): number | undefined {
  const match = /^([+-]?)(\d{1,2})(?::(\d{2}))?$/.exec(text);
  if (!match) return undefined;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === "-" ? -minutes : minutes;
}

const iso = (time: number) => new Date(time).toISOString();

/**
 * What is wrong with a series of candles (oldest first) by the interval's cut: a candle that does
 * not open on a boundary, a close time other than the next open minus one millisecond, a gap or an
 * overlap between two candles.
 */
export function alignmentProblems(candles: readonly Candle[], cut: IntervalCut): string[] {
  const problems: string[] = [];
  for (const [i, candle] of candles.entries()) {
    const boundary = cut.open(candle.openTime);
    if (boundary !== candle.openTime) {
      problems.push(
        `the candle opening at ${candle.openTime} (${iso(candle.openTime)}) does not open on a boundary of its interval: it would open at ${boundary} (${iso(boundary)})`,
      );
      continue;
    }
    const next = cut.next(candle.openTime);
    if (candle.closeTime !== next - 1)
      problems.push(
        `the candle opening at ${candle.openTime} (${iso(candle.openTime)}) closes at ${candle.closeTime}; the next opens at ${next}, so it closes at ${next - 1}`,
      );
    const following = candles[i + 1];
    if (following && following.openTime !== next)
      problems.push(
        `after the candle opening at ${candle.openTime} (${iso(candle.openTime)}) comes one opening at ${following.openTime}, not at ${next} (${iso(next)}): the series has ${following.openTime > next ? "a gap" : "an overlap"}`,
      );
  }
  return problems;
}

/**
 * What is wrong with the newest candle of a read without startTime or endTime, answered between
 * the server's times `before` and `after`: the series "ends with the candle that holds the
 * server's time (the current candle, still open)", so the newest candle closes no earlier than
 * `before` and opens no later than `after`. An empty series (a symbol without trades) is not
 * judged.
 */
export function currentCandleProblem(
  candles: readonly Candle[],
  before: number,
  after: number,
): string | undefined {
  const newest = candles.at(-1);
  if (!newest) return undefined;
  const held =
    "the series ends with the candle that holds the server's time (the current candle, still open)";
  if (newest.closeTime < before)
    return `the newest candle closes at ${newest.closeTime} (${iso(newest.closeTime)}), before the server's time ${before} (${iso(before)}) read before the request: ${held}`;
  if (newest.openTime > after)
    return `the newest candle opens at ${newest.openTime} (${iso(newest.openTime)}), after the server's time ${after} (${iso(after)}) read after the answer: ${held}`;
  return undefined;
}

/**
 * The shorter candles a longer one covers, when they cover it whole (the first opens as it opens
 * and the last closes as it closes, with no gap between); undefined otherwise.
 */
export function coveringCandles(coarse: Candle, fine: readonly Candle[]): Candle[] | undefined {
  const inside = fine.filter((c) => c.openTime >= coarse.openTime && c.openTime <= coarse.closeTime);
  if (inside[0]?.openTime !== coarse.openTime || inside.at(-1)?.closeTime !== coarse.closeTime)
    return undefined;
  for (let i = 1; i < inside.length; i += 1)
    if (inside[i]!.openTime !== inside[i - 1]!.closeTime + 1) return undefined;
  return inside;
}

/**
 * What a longer candle shows other than the shorter candles it covers (`inside`, whole, oldest
 * first) folded: the first traded one's open, the highest high, the lowest low, the last traded
 * one's close, and the sums of volumes, counts and taker-buy volumes; with no trade in any, the
 * first one's open four times.
 */
export function foldProblems(coarse: Candle, inside: readonly Candle[]): string[] {
  const traded = inside.filter((c) => c.count > 0);
  const quiet = inside[0]?.open;
  const pick = (of: (c: Candle) => Dec, better: (a: Dec, b: Dec) => boolean) =>
    traded.length === 0 ? quiet : traded.map(of).reduce((a, b) => (better(b, a) ? b : a));
  const sum = (of: (c: Candle) => Dec) => inside.reduce((s, c) => s + of(c), ZERO);
  const wants: Array<[string, Dec | number, Dec | number | undefined]> = [
    ["open", coarse.open, traded[0]?.open ?? quiet],
    [
      "high",
      coarse.high,
      pick(
        (c) => c.high,
        (a, b) => a > b,
      ),
    ],
    [
      "low",
      coarse.low,
      pick(
        (c) => c.low,
        (a, b) => a < b,
      ),
    ],
    ["close", coarse.close, traded.at(-1)?.close ?? quiet],
    ["volume", coarse.volume, sum((c) => c.volume)],
    ["quote volume", coarse.quoteVolume, sum((c) => c.quoteVolume)],
    ["number of trades", coarse.count, inside.reduce((s, c) => s + c.count, 0)],
    ["taker buy base volume", coarse.takerBuyBase, sum((c) => c.takerBuyBase)],
    ["taker buy quote volume", coarse.takerBuyQuote, sum((c) => c.takerBuyQuote)],
  ];
  const text = (x: Dec | number) => (typeof x === "number" ? String(x) : formatDec(x));
  return wants.flatMap(([what, shown, want]) =>
    want === undefined || shown === want
      ? []
      : [`${what} is ${text(shown)}; the ${inside.length} shorter candles it covers give ${text(want)}`],
  );
}
