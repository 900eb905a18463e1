// The behaviour extensions' rules, as a table: given the extension's value before and after on one
// operation, want the classes and kinds marketapi-diff reports.
import { describe, expect, it } from "vitest";
import { diffDocuments, type OpenApiDocument } from "../src/index.js";

function documentWith(extensions: Record<string, unknown>): OpenApiDocument {
  return {
    openapi: "3.1.0",
    info: { title: "t", version: "1.0.0" },
    paths: {
      "/o": {
        get: {
          operationId: "op",
          "x-auth-class": "none",
          parameters: [{ name: "limit", in: "query", schema: { type: "integer" } }],
          responses: { "200": { description: "ok" } },
          ...extensions,
        },
      },
    },
  } as OpenApiDocument;
}

const order = (direction: string, strict = true) => ({
  filledFrom: "live-api",
  lists: [{ list: "", field: "/id", direction, strict }],
});
const window = (maxSpanMs?: number, inclusive = true) => ({
  filledFrom: "live-api",
  start: "startTime",
  end: "endTime",
  field: "/T",
  inclusive,
  ...(maxSpanMs ? { maxSpanMs, tooWideCode: -1127 } : {}),
  startAlone: "oldest-from-start",
  endAlone: "newest-up-to-end",
  neither: "newest",
});
const limit = (maximum: number, aboveMaximum: string, dflt = 100) => ({
  filledFrom: "live-api",
  parameter: "limit",
  default: dflt,
  maximum,
  aboveMaximum,
  counts: [""],
});
const paging = (inclusive: boolean, contiguous: boolean) => ({
  filledFrom: "live-api",
  parameter: "fromId",
  field: "/id",
  inclusive,
  contiguous,
});
const lookup = (operation: string) => ({
  filledFrom: "live-api",
  operation,
  key: "newClientOrderId",
  parameters: { origClientOrderId: "newClientOrderId" },
});
const filter = (...parameters: string[]) => ({
  filledFrom: "live-api",
  unknown: "error",
  filters: parameters.map((parameter) => ({ parameter, takes: "one", list: "", field: "/symbol" })),
});
const unknown = (code: number, order?: number) => ({
  filledFrom: "live-api",
  symbol: { parameters: ["symbol"], status: 400, code },
  ...(order ? { order: { parameters: ["orderId"], status: 400, code: order } } : {}),
});
const arithmetic = (neverRest: string[], all: string[]) => ({
  filledFrom: "live-api",
  executedQty: "executedQty",
  quoteQty: "cummulativeQuoteQty",
  fills: { list: "fills", price: "price", qty: "qty" },
  neverRest,
  allOrNothing: ["FOK"],
  status: { none: ["NEW"], part: ["PARTIALLY_FILLED"], all },
});

const cases: { given: string; key: string; old: unknown; new: unknown; want: string[] }[] = [
  {
    given: "a reversed order",
    key: "x-list-order",
    old: order("ascending"),
    new: order("descending"),
    want: ["breaking list-order-reversed"],
  },
  {
    given: "an order stated",
    key: "x-list-order",
    old: undefined,
    new: order("ascending"),
    want: ["compatible list-order-added"],
  },
  {
    given: "an order dropped",
    key: "x-list-order",
    old: order("ascending"),
    new: undefined,
    want: ["breaking list-order-removed"],
  },
  {
    given: "ties allowed",
    key: "x-list-order",
    old: order("ascending"),
    new: order("ascending", false),
    want: ["breaking list-order-weakened"],
  },
  {
    given: "a longer maximum window",
    key: "x-time-window",
    old: window(3_600_000),
    new: window(86_400_000),
    want: ["compatible time-window-longer"],
  },
  {
    given: "no maximum window any more",
    key: "x-time-window",
    old: window(3_600_000),
    new: window(),
    want: ["compatible time-window-longer"],
  },
  {
    given: "a shorter maximum window",
    key: "x-time-window",
    old: window(86_400_000),
    new: window(3_600_000),
    want: ["breaking time-window-shorter"],
  },
  {
    given: "exclusive bounds",
    key: "x-time-window",
    old: window(),
    new: window(undefined, false),
    want: ["breaking time-window-changed"],
  },
  {
    given: "a higher maximum limit",
    key: "x-limit",
    old: limit(1000, "refuse"),
    new: limit(5000, "refuse"),
    want: ["compatible limit-maximum-raised"],
  },
  {
    given: "a lower maximum limit",
    key: "x-limit",
    old: limit(5000, "refuse"),
    new: limit(1000, "refuse"),
    want: ["breaking limit-maximum-lowered"],
  },
  {
    given: "truncating instead of refusing",
    key: "x-limit",
    old: limit(1000, "refuse"),
    new: limit(1000, "truncate"),
    want: ["compatible limit-truncates"],
  },
  {
    given: "refusing instead of truncating",
    key: "x-limit",
    old: limit(1000, "truncate"),
    new: limit(1000, "refuse"),
    want: ["breaking limit-refuses"],
  },
  {
    given: "another default limit",
    key: "x-limit",
    old: limit(1000, "refuse", 100),
    new: limit(1000, "refuse", 500),
    want: ["breaking limit-changed"],
  },
  {
    given: "an exclusive cursor",
    key: "x-cursor-paging",
    old: paging(true, true),
    new: paging(false, true),
    want: ["breaking cursor-paging-changed"],
  },
  {
    given: "gaps allowed between pages",
    key: "x-cursor-paging",
    old: paging(true, true),
    new: paging(true, false),
    want: ["breaking cursor-paging-weakened"],
  },
  {
    given: "gaps ruled out",
    key: "x-cursor-paging",
    old: paging(true, false),
    new: paging(true, true),
    want: ["compatible cursor-paging-strengthened"],
  },
  {
    given: "a filter added",
    key: "x-result-filter",
    old: filter("symbol"),
    new: filter("symbol", "symbols"),
    want: ["compatible result-filter-added"],
  },
  {
    given: "a filter removed",
    key: "x-result-filter",
    old: filter("symbol", "symbols"),
    new: filter("symbol"),
    want: ["breaking result-filter-removed"],
  },
  {
    given: "another unknown-symbol code",
    key: "x-unknown-reference",
    old: unknown(-1121),
    new: unknown(-1100),
    want: ["breaking unknown-reference-changed"],
  },
  {
    given: "an unknown-order error stated",
    key: "x-unknown-reference",
    old: unknown(-1121),
    new: unknown(-1121, -2013),
    want: ["compatible unknown-reference-added"],
  },
  {
    given: "an order's values now taken from the source document",
    key: "x-list-order",
    old: order("ascending"),
    new: { ...order("ascending"), filledFrom: "seed-000" },
    want: ["informational list-order-source-changed"],
  },
  {
    given: "an unknown-symbol error's source named anew",
    key: "x-unknown-reference",
    old: unknown(-1121),
    new: { ...unknown(-1121), filledFrom: "seed-000" },
    want: ["informational unknown-reference-source-changed"],
  },
  {
    given: "IOC may now rest",
    key: "x-order-arithmetic",
    old: arithmetic(["IOC", "FOK"], ["FILLED"]),
    new: arithmetic(["FOK"], ["FILLED"]),
    want: ["breaking order-arithmetic-weakened"],
  },
  {
    given: "a new status for a full fill",
    key: "x-order-arithmetic",
    old: arithmetic(["IOC"], ["FILLED"]),
    new: arithmetic(["IOC"], ["FILLED", "DONE"]),
    want: ["breaking order-arithmetic-weakened"],
  },
  {
    given: "GTX never rests",
    key: "x-order-arithmetic",
    old: arithmetic(["IOC"], ["FILLED"]),
    new: arithmetic(["IOC", "GTX"], ["FILLED"]),
    want: ["compatible order-arithmetic-strengthened"],
  },
  {
    given: "a lookup of lost answers stated",
    key: "x-outcome-lookup",
    old: undefined,
    new: lookup("query_order"),
    want: ["compatible outcome-lookup-added"],
  },
  {
    given: "another lookup operation",
    key: "x-outcome-lookup",
    old: lookup("query_order"),
    new: lookup("get_order"),
    want: ["breaking outcome-lookup-changed"],
  },
  {
    given: "the lookup dropped",
    key: "x-outcome-lookup",
    old: lookup("query_order"),
    new: undefined,
    want: ["breaking outcome-lookup-removed"],
  },
  {
    given: "the server's clock at another field",
    key: "x-server-time",
    old: { field: "/serverTime", filledFrom: "live-api" },
    new: { field: "/time", filledFrom: "live-api" },
    want: ["breaking server-time-changed"],
  },
  {
    given: "weight tiers changed",
    key: "x-weight",
    old: { weight: 5, parameter: "limit", tiers: [{ upTo: 100, weight: 5 }] },
    new: { weight: 5, parameter: "limit", tiers: [{ upTo: 100, weight: 10 }] },
    want: ["informational weight-changed"],
  },
  {
    given: "the same weight tiers",
    key: "x-weight",
    old: { weight: 5, parameter: "limit", tiers: [{ upTo: 100, weight: 5 }] },
    new: { weight: 5, parameter: "limit", tiers: [{ upTo: 100, weight: 5 }] },
    want: [],
  },
];

describe("behaviour extensions: given the old and new value, want the classes", () => {
  it.each(cases)("$given ($key)", ({ key, old, new: after, want }) => {
    const before = documentWith(old === undefined ? {} : { [key]: old });
    const next = documentWith(after === undefined ? {} : { [key]: after });
    const got = diffDocuments(before, next).map((c) => `${c.class} ${c.kind}`);
    expect(got.sort()).toEqual([...want].sort());
  });

  it("never reports an unchanged behaviour", () => {
    const all = {
      "x-list-order": order("ascending"),
      "x-time-window": window(3_600_000),
      "x-limit": limit(1000, "refuse"),
      "x-cursor-paging": paging(true, true),
      "x-result-filter": filter("symbol"),
      "x-unknown-reference": unknown(-1121),
      "x-order-arithmetic": arithmetic(["IOC"], ["FILLED"]),
    };
    expect(diffDocuments(documentWith(all), documentWith(structuredClone(all)))).toEqual([]);
  });
});

// x-relations sits at the top level: given its value before and after, want the classes.
const relationsDocument = (value: unknown): OpenApiDocument =>
  ({ ...documentWith({}), ...(value === undefined ? {} : { "x-relations": value }) }) as OpenApiDocument;
const fact = (name: string, operations: string[]) => ({
  name,
  movesWith: "book",
  reports: operations.map((operation) => ({ operation, values: { bidPrice: "/bidPrice" } })),
});
const relationsValue = (facts: unknown[], filledFrom = "live-api") => ({
  filledFrom,
  trades: { operation: "op", fields: { id: "/id" } },
  book: { operation: "op", version: "/lastUpdateId" },
  sharedFacts: facts,
  tradeWindows: [],
  aggregates: [],
  orders: [],
});

const relationCases: { given: string; old: unknown; new: unknown; want: string[] }[] = [
  {
    given: "relations stated where there were none",
    old: undefined,
    new: relationsValue([fact("best bid", ["a", "b"])]),
    want: ["compatible relations-added"],
  },
  {
    given: "relations dropped",
    old: relationsValue([fact("best bid", ["a", "b"])]),
    new: undefined,
    want: ["breaking relations-removed"],
  },
  {
    given: "one more shared fact",
    old: relationsValue([fact("best bid", ["a", "b"])]),
    new: relationsValue([fact("best bid", ["a", "b"]), fact("last price", ["a", "c"])]),
    want: ["compatible relation-added"],
  },
  {
    given: "a shared fact dropped",
    old: relationsValue([fact("best bid", ["a", "b"]), fact("last price", ["a", "c"])]),
    new: relationsValue([fact("best bid", ["a", "b"])]),
    want: ["breaking relation-removed"],
  },
  {
    given: "a shared fact reported by other operations",
    old: relationsValue([fact("best bid", ["a", "b"])]),
    new: relationsValue([fact("best bid", ["a", "c"])]),
    want: ["breaking relation-changed"],
  },
  {
    given: "the trades read from another operation",
    old: relationsValue([]),
    new: { ...relationsValue([]), trades: { operation: "other", fields: { id: "/id" } } },
    want: ["breaking relations-changed"],
  },
  {
    given: "only where the facts come from",
    old: relationsValue([fact("best bid", ["a", "b"])]),
    new: relationsValue([fact("best bid", ["a", "b"])], "source-document"),
    want: ["informational relations-source-changed"],
  },
];

describe("x-relations: given the old and new value, want the classes", () => {
  it.each(relationCases)("$given", ({ old, new: after, want }) => {
    const got = diffDocuments(relationsDocument(old), relationsDocument(after)).map(
      (c) => `${c.class} ${c.kind}`,
    );
    expect(got.sort()).toEqual([...want].sort());
  });

  it("never reports unchanged relations", () => {
    const value = relationsValue([fact("best bid", ["a", "b"])]);
    expect(diffDocuments(relationsDocument(value), relationsDocument(structuredClone(value)))).toEqual([]);
  });
});

// x-epoch-time sits at the top level: given its value before and after, want the classes.
const epochDocument = (value: unknown): OpenApiDocument =>
  ({ ...documentWith({}), ...(value === undefined ? {} : { "x-epoch-time": value }) }) as OpenApiDocument;
const epochValue = (change: Record<string, unknown> = {}) => ({
  filledFrom: "live-api",
  parameters: ["timestamp", "startTime", "endTime"],
  units: ["millisecond", "microsecond"],
  microsecondsFrom: 100_000_000_000_000,
  boundStatedBy: "this-document",
  boundWhy: "10^14 ms is the year 5138, 10^14 µs is 1973",
  timestamp: "same-instant",
  windowBounds: "instant",
  ...change,
});

const epochCases: { given: string; old: unknown; new: unknown; want: string[] }[] = [
  {
    given: "microseconds stated where they were not",
    old: undefined,
    new: epochValue(),
    want: ["compatible epoch-time-added"],
  },
  {
    given: "microseconds no longer stated",
    old: epochValue(),
    new: undefined,
    want: ["breaking epoch-time-removed"],
  },
  {
    given: "a parameter added",
    old: epochValue({ parameters: ["timestamp"] }),
    new: epochValue(),
    want: ["compatible epoch-time-widened", "compatible epoch-time-widened"],
  },
  {
    given: "microseconds dropped from the units",
    old: epochValue(),
    new: epochValue({ units: ["millisecond"] }),
    want: ["breaking epoch-time-narrowed"],
  },
  {
    given: "the bound moved",
    old: epochValue(),
    new: epochValue({ microsecondsFrom: 10_000_000_000_000 }),
    want: ["breaking epoch-time-changed"],
  },
  {
    given: "the bound's reason reworded",
    old: epochValue(),
    new: epochValue({ boundWhy: "other words" }),
    want: [],
  },
];

describe("x-epoch-time: given the old and new value, want the classes", () => {
  it.each(epochCases)("$given", ({ old, new: after, want }) => {
    const got = diffDocuments(epochDocument(old), epochDocument(after)).map((c) => `${c.class} ${c.kind}`);
    expect(got.sort()).toEqual([...want].sort());
  });
});
