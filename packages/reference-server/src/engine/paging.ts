import { windowTooLong } from "../errors.js";
import { lowerBound } from "./market.js";

export interface PageQuery {
  fromId?: number | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
  limit?: number | undefined;
}

interface Keys<T> {
  id(item: T): number;
  time(item: T): number;
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

/**
 * The §1.6 paging rule over items sorted by id and time: results are oldest first; with a
 * lower bound (fromId or startTime) the oldest matches are returned, otherwise the newest.
 */
export function pageOldestFirst<T>(items: readonly T[], keys: Keys<T>, query: PageQuery, limit: number): T[] {
  const first = Math.max(
    query.fromId === undefined ? 0 : lowerBound(items, keys.id, query.fromId),
    query.startTime === undefined ? 0 : lowerBound(items, keys.time, query.startTime),
  );
  const end = query.endTime === undefined ? items.length : lowerBound(items, keys.time, query.endTime + 1);
  if (end <= first) return [];
  const anchoredAtStart = query.fromId !== undefined || query.startTime !== undefined;
  return anchoredAtStart
    ? items.slice(first, Math.min(end, first + limit))
    : items.slice(Math.max(first, end - limit), end);
}
