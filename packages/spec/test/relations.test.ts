// x-relations read by @marketapi/spec/model: its value on the spec, every pointer it names present in
// the example answer of its operation, and the fault each bad value gives (given an edit, want the
// pointer and the message).
import { describe, expect, it } from "vitest";
import { loadOpenApi } from "../dist/index.js";
import {
  buildSpecModel,
  isObject,
  type JsonObject,
  operationById,
  relationOperations,
  resolveRef,
  SpecModelError,
  subsetDocument,
  valueAt,
} from "../src/model/index.js";

const document: JsonObject = loadOpenApi();
const model = buildSpecModel(document);
const relations = model.relations!;

/** The example of an operation's 200 answer; a list answer's first item. */
function exampleItem(operationId: string): unknown {
  const operation = operationById(model, operationId)!;
  const response = resolveRef(
    document,
    document.paths[operation.path][operation.method].responses["200"],
    "",
  );
  const example = response.content?.["application/json"]?.example;
  return Array.isArray(example) ? example[0] : example;
}

/** Every (operation, pointer) the relations name in an answer. */
function namedPointers(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const add = (operation: string, pointers: Iterable<string | undefined>) => {
    for (const pointer of pointers) if (pointer !== undefined) out.push([operation, pointer]);
  };
  if (relations.trades) add(relations.trades.operation, Object.values(relations.trades.fields));
  if (relations.book) add(relations.book.operation, [relations.book.version]);
  for (const fact of relations.sharedFacts)
    for (const report of fact.reports) add(report.operation, Object.values(report.values));
  for (const window of relations.tradeWindows) {
    add(window.operation, Object.values(window.measures));
    add(window.operation, Object.keys(window.empty));
    add(window.operation, Object.values(window.window));
  }
  for (const cover of relations.aggregates)
    add(cover.operation, [
      cover.first,
      cover.last,
      ...Object.values(cover.same),
      ...Object.values(cover.sums),
    ]);
  for (const views of relations.orders)
    for (const operation of [...views.reads, ...views.reports])
      add(operation, [views.id, views.status, ...views.fields]);
  return out;
}

describe("x-relations on the spec", () => {
  it("states the shared facts, the trade windows, the aggregates and the order's views, filled from the live API", () => {
    expect(relations.filledFrom).toBe("live-api");
    expect(relations.trades?.operation).toBe("historical_trades");
    expect(relations.book).toEqual({ operation: "order_book", version: "/lastUpdateId" });
    expect(relations.sharedFacts.map((fact) => [fact.name, fact.movesWith])).toEqual([
      ["best bid and ask", "book"],
      ["last price", "trades"],
      ["newest trade", "trades"],
    ]);
    expect(relations.tradeWindows.map((window) => window.operation)).toEqual([
      "ticker_price_change_statistics24hr",
      "current_average_price",
    ]);
    expect(relations.tradeWindows[0]?.empty).toEqual({ "/firstId": -1, "/lastId": -1, "/count": 0 });
    expect(relations.aggregates[0]).toMatchObject({
      operation: "aggTrades",
      first: "/f",
      last: "/l",
      sums: { qty: "/q" },
    });
    expect(relations.orders[0]?.open).toEqual({
      operation: "open_orders",
      statuses: ["NEW", "PARTIALLY_FILLED"],
    });
  });

  it("names only pointers that the example answer of each operation holds", () => {
    const missing = namedPointers().filter(([operation, pointer]) => {
      const item = exampleItem(operation);
      return !isObject(item) || valueAt(item, pointer) === undefined;
    });
    expect(missing).toEqual([]);
  });

  it("keeps in a subset only what the kept operations report, and nothing when none of them is kept", () => {
    const keep = (...ids: string[]) =>
      new Set(ids.map((id) => operationById(model, id)!).map((o) => `${o.method} ${o.path}`));
    const orders = buildSpecModel(
      subsetDocument(document, keep("query_order", "open_orders", "cancel_order")),
    );
    expect(orders.relations?.orders[0]).toMatchObject({
      reads: ["query_order", "open_orders"],
      reports: ["cancel_order"],
    });
    expect(orders.relations?.trades).toBeUndefined();
    expect(orders.relations?.sharedFacts).toEqual([]);
    const book = buildSpecModel(subsetDocument(document, keep("order_book", "order_book_ticker", "ping")));
    expect(book.relations?.sharedFacts.map((fact) => fact.reports.map((r) => r.operation))).toEqual([
      ["order_book", "order_book_ticker"],
    ]);
    expect(book.relations?.tradeWindows).toEqual([]);
    expect(buildSpecModel(subsetDocument(document, keep("ping"))).relations).toBeUndefined();
  });

  it("names fourteen operations for the contract tester to judge", () => {
    expect(relationOperations(relations).size).toBe(14);
  });
});

const edited = (edit: (d: JsonObject) => void): JsonObject => {
  const copy = structuredClone(document);
  edit(copy);
  return copy;
};
const x = (d: JsonObject) => d["x-relations"] as JsonObject;

const faults: { given: string; edit: (d: JsonObject) => void; pointer: string; want: RegExp }[] = [
  {
    given: "no filledFrom",
    edit: (d) => delete x(d).filledFrom,
    pointer: "/x-relations/filledFrom",
    want: /live-api/,
  },
  {
    given: "a report of an operation the document does not have",
    edit: (d) => (x(d).sharedFacts[0].reports[1].operation = "bookTicker"),
    pointer: "/x-relations/sharedFacts/0/reports/1/operation",
    want: /operationId of an operation/,
  },
  {
    given: "a fact with one report",
    edit: (d) => x(d).sharedFacts[0].reports.splice(1),
    pointer: "/x-relations/sharedFacts/0/reports",
    want: /at least two reports/,
  },
  {
    given: "a value only one report holds",
    edit: (d) => (x(d).sharedFacts[1].reports[0].values.qty = "/qty"),
    pointer: "/x-relations/sharedFacts/1/reports",
    want: /"qty" in at least two reports/,
  },
  {
    given: "a value that is not a JSON Pointer",
    edit: (d) => (x(d).sharedFacts[0].reports[1].values.bidPrice = "bidPrice"),
    pointer: "/x-relations/sharedFacts/0/reports/1/values/bidPrice",
    want: /JSON Pointer/,
  },
  {
    given: "an unknown mover",
    edit: (d) => (x(d).sharedFacts[0].movesWith = "time"),
    pointer: "/x-relations/sharedFacts/0/movesWith",
    want: /one of book, trades/,
  },
  {
    given: "an unknown measure",
    edit: (d) => (x(d).tradeWindows[0].measures.median = "/median"),
    pointer: "/x-relations/tradeWindows/0/measures/median",
    want: /one of count, firstId/,
  },
  {
    given: "a window without bounds",
    edit: (d) => (x(d).tradeWindows[1].window = {}),
    pointer: "/x-relations/tradeWindows/1/window/start",
    want: /JSON Pointer/,
  },
  {
    given: "an aggregate summing a field trades do not have",
    edit: (d) => (x(d).aggregates[0].sums.fee = "/fee"),
    pointer: "/x-relations/aggregates/0/sums/fee",
    want: /one of id, price, qty/,
  },
  {
    given: "an order read by an operation the document does not have",
    edit: (d) => x(d).orders[0].reads.push("myTrades"),
    pointer: "/x-relations/orders/0/reads/3",
    want: /operationId of an operation/,
  },
  {
    given: "no open statuses",
    edit: (d) => (x(d).orders[0].open.statuses = []),
    pointer: "/x-relations/orders/0/open/statuses",
    want: /non-empty list/,
  },
  {
    given: "trade windows without a trade source",
    edit: (d) => delete x(d).trades,
    pointer: "/x-relations/trades",
    want: /trade source/,
  },
  {
    given: "a fact that moves with the book, without the book",
    edit: (d) => delete x(d).book,
    pointer: "/x-relations/book",
    want: /the book/,
  },
  {
    given: "a trade field without a pointer",
    edit: (d) => delete x(d).trades.fields.time,
    pointer: "/x-relations/trades/fields/time",
    want: /JSON Pointer/,
  },
];

describe("x-relations faults", () => {
  it.each(faults)("names the fault: $given", ({ edit, pointer, want }) => {
    try {
      buildSpecModel(edited(edit));
      expect.unreachable("buildSpecModel accepted a faulty x-relations");
    } catch (error) {
      expect(error).toBeInstanceOf(SpecModelError);
      expect((error as SpecModelError).pointer).toBe(pointer);
      expect((error as Error).message).toMatch(want);
    }
  });
});
