// The paging iterators' rules on in-memory pages: a cursor that starts each page after the last
// id, and a time range split into windows of at most the span, each read past the last item even
// when several items share the millisecond a page ends on.
import { describe, expect, it } from "vitest";
import type { PagingFact } from "../src/runtime/call-facts.js";
import { pageItems } from "../src/runtime/paging.js";

interface Row {
  id: number;
  t: number;
}

/** Rows 0..count-1, `perMs` of them in each millisecond from `from`. */
const rows = (count: number, perMs: number, from = 1000): Row[] =>
  Array.from({ length: count }, (_, id) => ({ id, t: from + Math.floor(id / perMs) }));

/** A server over `all` with the paging rules of the spec: inclusive cursor and bounds, oldest first, at most `limit`. */
function server(all: Row[], maxSpanMs?: number) {
  const requests: Record<string, unknown>[] = [];
  const read = async (params: Record<string, unknown>) => {
    requests.push(params);
    // A loop that never ends fails here instead of filling memory.
    if (requests.length > 100) throw new Error(`more than 100 requests: ${JSON.stringify(params)}`);
    const limit = Number(params.limit ?? 10);
    if (params.fromId !== undefined) return all.filter((r) => r.id >= Number(params.fromId)).slice(0, limit);
    const start = Number(params.startTime);
    const end = Number(params.endTime);
    if (maxSpanMs !== undefined && end - start > maxSpanMs) throw new Error(`window ${end - start} ms`);
    return all.filter((r) => r.t >= start && r.t <= end).slice(0, limit);
  };
  return { read, requests };
}

const cursor: PagingFact = {
  cursor: { parameter: "fromId", field: "/id", inclusive: true },
  limit: { parameter: "limit", maximum: 10 },
};
const windowed = (maxSpanMs?: number): PagingFact => ({
  cursor: { parameter: "fromId", field: "/id", inclusive: true },
  window: { start: "startTime", end: "endTime", field: "/t", ...(maxSpanMs ? { maxSpanMs } : {}) },
  limit: { parameter: "limit", maximum: 10 },
});

async function collect(paging: PagingFact, params: Record<string, unknown>, all: Row[], maxSpanMs?: number) {
  const { read, requests } = server(all, maxSpanMs);
  const seen: unknown[] = [];
  for await (const item of pageItems("op", paging, params, read, () => 10_000)) seen.push(item);
  return { seen, requests };
}

describe("pageItems", () => {
  it.each([
    {
      given: "a cursor over 25 rows, pages of 10",
      paging: cursor,
      params: { fromId: 0 },
      count: 25,
      perMs: 1,
      want: 3,
    },
    {
      given: "a cursor over exactly 20 rows",
      paging: cursor,
      params: { fromId: 0 },
      count: 20,
      perMs: 1,
      want: 3,
    },
    {
      given: "a cursor from the middle",
      paging: cursor,
      params: { fromId: 12 },
      count: 25,
      perMs: 1,
      want: 2,
    },
    {
      given: "a window, 3 rows a millisecond across page ends",
      paging: windowed(),
      params: { startTime: 1000, endTime: 9999 },
      count: 25,
      perMs: 3,
      want: 3,
    },
    {
      given: "a window split into spans of 3 ms",
      paging: windowed(3),
      params: { startTime: 1000, endTime: 1011 },
      count: 24,
      perMs: 2,
      want: 3,
    },
  ])(
    "$given: every row once, in order, in $want requests",
    async ({ paging, params, count, perMs, want }) => {
      const all = rows(count, perMs);
      const expected = all.filter((r) => r.id >= Number((params as { fromId?: number }).fromId ?? 0));
      const { seen, requests } = await collect(paging, params, all, paging.window?.maxSpanMs);
      expect(seen).toEqual(expected);
      expect(requests).toHaveLength(want);
    },
  );

  it("never asks for a window wider than the span", async () => {
    const { requests } = await collect(windowed(3), { startTime: 1000, endTime: 1011 }, rows(24, 2), 3);
    for (const r of requests) expect(Number(r.endTime) - Number(r.startTime)).toBeLessThanOrEqual(3);
  });

  it("says so when more items share one millisecond than a page holds", async () => {
    await expect(
      collect(windowed(), { startTime: 1000, endTime: 2000 }, rows(30, 15), undefined),
    ).rejects.toThrow(
      "op.iterate: more than 10 items at 1970-01-01T00:00:01.000Z (/t); a time range cannot page past them",
    );
  });

  it("reads a window until a page has nothing new when the spec declares no limit", async () => {
    const { limit: _, ...unlimited } = windowed();
    const { seen, requests } = await collect(unlimited, { startTime: 1000, endTime: 9999 }, rows(25, 1));
    expect(seen).toEqual(rows(25, 1));
    expect(requests).toHaveLength(4);
  });

  it("reads up to now without an end", async () => {
    const { seen } = await collect(windowed(), { startTime: 1000 }, rows(12, 1));
    expect(seen).toHaveLength(12);
  });
});
