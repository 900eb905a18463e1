import { windowTooLong } from "../errors.js";

export interface PageQuery {
  fromId?: number | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  limit?: number | undefined;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

/** `limit` defaulted and cut into 1..max (the HTTP layer rejects bad values earlier). */
export function clampLimit(limit: number | undefined, defaultLimit: number, maxLimit: number): number {
  if (limit === undefined) return defaultLimit;
  return Math.min(Math.max(Math.trunc(limit), 1), maxLimit);
}

/** -1127 when both bounds are given and span more than `maxSpanMs`. */
export function checkWindow(query: PageQuery, maxSpanMs: number): void {
  const { startTime, endTime } = query;
  if (startTime !== undefined && endTime !== undefined && endTime - startTime > maxSpanMs)
    throw windowTooLong();
}

/** Reads the keys of a list sorted by id and time, by position (a list kept in rows of numbers has no items to hand over). */
export interface KeysAt {
  readonly count: number;
  id(index: number): number;
  time(index: number): number;
}

/** The position of the first key ≥ `target`, for keys sorted ascending by position. */
export function firstAtLeast(count: number, key: (index: number) => number, target: number): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (key(middle) < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The §1.6 paging rule over a list sorted by id and time, as the positions [first, end) of the
 * page: results are oldest first; with a lower bound (fromId or startTime) the oldest matches
 * are returned, otherwise the newest.
 */
export function pageRange(keys: KeysAt, query: PageQuery, limit: number): [first: number, end: number] {
  const id = (index: number) => keys.id(index);
  const time = (index: number) => keys.time(index);
  const first = Math.max(
    query.fromId === undefined ? 0 : firstAtLeast(keys.count, id, query.fromId),
    query.startTime === undefined ? 0 : firstAtLeast(keys.count, time, query.startTime),
  );
  const end = query.endTime === undefined ? keys.count : firstAtLeast(keys.count, time, query.endTime + 1);
  if (end <= first) return [0, 0];
  const anchoredAtStart = query.fromId !== undefined || query.startTime !== undefined;
  return anchoredAtStart ? [first, Math.min(end, first + limit)] : [Math.max(first, end - limit), end];
}
