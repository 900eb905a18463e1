// `iterate`: every item of a paged operation, from a cursor (x-cursor-paging) or over a time range
// of any length (x-time-window, in windows of at most its maximum span), page after page through
// the client's own calls, so that every page is paced and retried like any call.

import { type PagingFact, valueAt } from "./call-facts.js";
import { SpotClientError } from "./spot-client-error.js";

type Params = Readonly<Record<string, unknown>>;

/** One page: the answer's items, or a thrown error (the caller turns an error answer into one). */
export type PageReader = (params: Params) => Promise<unknown>;

/**
 * The items of every page. With the window's start (or end) among `params`, the items of the time
 * range, split into windows of at most `maxSpanMs`, each read from its start and moved past the
 * last item seen until a page is not full; otherwise the items from the cursor (or the first page)
 * on, each next page starting after the last id, until a page is not full.
 */
export async function* pageItems(
  operationId: string,
  paging: PagingFact,
  params: Params | undefined,
  read: PageReader,
  now: () => number,
): AsyncGenerator<unknown, void, undefined> {
  const given = { ...params };
  const limit = paging.limit;
  const size = limit ? Number(given[limit.parameter] ?? limit.maximum) : undefined;
  if (limit) given[limit.parameter] = size;
  const window = paging.window;
  if (window && (given[window.start] !== undefined || given[window.end] !== undefined)) {
    yield* windowItems(operationId, paging, given, read, now, size);
    return;
  }
  const cursor = paging.cursor;
  if (!cursor)
    throw new TypeError(
      `${operationId}.iterate: give ${window!.start} (and ${window!.end}) to iterate over a time range`,
    );
  let from = given[cursor.parameter];
  let last: number | undefined;
  for (;;) {
    const items = pageOf(operationId, await read({ ...given, [cursor.parameter]: from }));
    for (const item of items) {
      const id = idOf(operationId, item, cursor.field);
      if (last !== undefined && id <= last) continue;
      last = id;
      yield item;
    }
    if (items.length === 0 || (size !== undefined && items.length < size) || last === undefined) return;
    from = cursor.inclusive ? last + 1 : last;
  }
}

async function* windowItems(
  operationId: string,
  paging: PagingFact,
  given: Record<string, unknown>,
  read: PageReader,
  now: () => number,
  size: number | undefined,
): AsyncGenerator<unknown, void, undefined> {
  const window = paging.window!;
  const start = timeOf(operationId, window.start, given[window.start]);
  if (start === undefined) throw new TypeError(`${operationId}.iterate: a time range needs ${window.start}`);
  const end = timeOf(operationId, window.end, given[window.end]) ?? now();
  const span = window.maxSpanMs ?? Number.POSITIVE_INFINITY;
  const cursor = paging.cursor;
  if (cursor) delete given[cursor.parameter];
  for (let from = start; from <= end; ) {
    const to = Math.min(end, from + span);
    // Items at the time a page ends may continue on the next page: those already yielded are skipped.
    let at = from;
    let seen = new Set<string>();
    for (;;) {
      const items = pageOf(operationId, await read({ ...given, [window.start]: at, [window.end]: to }));
      const next = new Set<string>();
      let fresh = 0;
      for (const item of items) {
        const time = Number(valueAt(item, window.field));
        const key = cursor ? String(valueAt(item, cursor.field)) : JSON.stringify(item);
        if (time === at && seen.has(key)) continue;
        fresh++;
        if (time === Number(valueAt(items[items.length - 1], window.field))) next.add(key);
        yield item;
      }
      if (items.length === 0 || size === undefined || items.length < size) break;
      const lastTime = Number(valueAt(items[items.length - 1], window.field));
      if (fresh === 0)
        throw new SpotClientError(
          `${operationId}.iterate: more than ${size} items at ${new Date(lastTime).toISOString()} (${window.field}); a time range cannot page past them`,
        );
      seen = lastTime === at ? new Set([...seen, ...next]) : next;
      at = lastTime;
    }
    from = to + 1;
  }
}

function pageOf(operationId: string, data: unknown): unknown[] {
  if (!Array.isArray(data)) throw new SpotClientError(`${operationId}.iterate: a page is not a list`);
  return data;
}

function idOf(operationId: string, item: unknown, field: string): number {
  const id = Number(valueAt(item, field));
  if (!Number.isFinite(id))
    throw new SpotClientError(`${operationId}.iterate: an item has no numeric ${field}`);
  return id;
}

/** A bound as epoch ms: a number, a Date, or date-time text. */
function timeOf(operationId: string, name: string, value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const time =
    value instanceof Date ? value.getTime() : typeof value === "number" ? value : Date.parse(String(value));
  if (!Number.isFinite(time))
    throw new TypeError(`${operationId}.iterate: ${name} is not a time: ${String(value)}`);
  return time;
}
