// The coverage report: what a run exercised per operation, and why the rest was not. Recorded
// by the session from every exchange (so every check and exploration feeds it), printed by
// default, in the JSON result and as a JUnit test suite.
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import type { ParamList } from "../src/http/request.js";
import { junitXml } from "../src/report/junit.js";
import { reportText } from "../src/report/text.js";
import { CoverageRecorder, declaredRelations } from "../src/session/coverage.js";
import type { RoundTrip } from "../src/session/round-trip.js";
import { model, roundTrip } from "./support/round-trips.js";
import { runContract } from "./support/run.js";
import { startReferenceServer } from "./support/server.js";

const newOrder = model.operation("new_order")!;

function exchange(operationId: string, params: ParamList, status: number | undefined): RoundTrip {
  return roundTrip(operationId, params, status === undefined ? undefined : { status, json: {} });
}

const item = (report: ReturnType<CoverageRecorder["report"]>, id: string, dimension: string, name: string) =>
  report.operations
    .find((o) => o.operationId === id)
    ?.[dimension as "parameters"].find((i) => i.item === name);

describe("CoverageRecorder", () => {
  const order: ParamList = [
    ["symbol", "BTCUSDT"],
    ["side", "BUY"],
    ["type", "LIMIT"],
    ["newOrderRespType", "ACK"],
  ];
  const cases: Array<{
    name: string;
    given: Array<[string, ParamList, number | undefined]>;
    want: Array<[string, string, string, boolean, string | undefined]>;
  }> = [
    {
      name: "a parameter answered 2xx is exercised; one sent only in refused requests is not, and says so",
      given: [
        ["new_order", order, 200],
        ["new_order", [...order, ["icebergQty", "-1"]], 400],
      ],
      want: [
        ["new_order", "parameters", "symbol", true, undefined],
        ["new_order", "parameters", "icebergQty", false, "sent only in requests that were refused"],
        ["new_order", "parameters", "stopPrice", false, "no check sends it"],
      ],
    },
    {
      name: "enum values count by value; a value never sent says whether the parameter was",
      given: [["new_order", order, 200]],
      want: [
        ["new_order", "values", "type=LIMIT", true, undefined],
        ["new_order", "values", "type=MARKET", false, "no check sends this value"],
        ["new_order", "values", "side=SELL", false, "no check sends this value"],
      ],
    },
    {
      name: "the variant comes from the request (newOrderRespType, its default when absent)",
      given: [
        ["new_order", order, 200],
        ["new_order", order.filter(([n]) => n !== "newOrderRespType"), 200],
      ],
      want: [
        ["new_order", "variants", "ACK", true, undefined],
        ["new_order", "variants", newOrder.responseVariants!.default!, true, undefined],
        ["new_order", "variants", "RESULT", false, "no request asked for it"],
      ],
    },
    {
      name: "a status counts under the documented response it falls under; a transport error under none",
      given: [
        ["order_book", [["symbol", "BTCUSDT"]], 200],
        ["order_book", [["symbol", "nope"]], 400],
        ["order_book", [["symbol", "BTCUSDT"]], undefined],
      ],
      want: [
        ["order_book", "statuses", "200", true, undefined],
        ["order_book", "statuses", "400", true, undefined],
        ["order_book", "statuses", "429", false, "the run was never rate-limited"],
      ],
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const recorder = new CoverageRecorder(model.operations);
    for (const [id, params, status] of given) recorder.see(exchange(id, params, status));
    const report = recorder.report(
      model.operations.map((o) => o.operationId),
      [],
    );
    for (const [id, dimension, name, exercised, why] of want) {
      const found = item(report, id, dimension, name);
      expect(found, `${id} ${dimension} ${name}`).toBeDefined();
      expect(found?.exercised, `${id} ${dimension} ${name}`).toBe(exercised);
      expect(found?.why, `${id} ${dimension} ${name}`).toBe(why);
    }
  });

  it("a check's explanation replaces the default reason; relations are reported as judged or not", () => {
    const recorder = new CoverageRecorder(model.operations);
    recorder.see(exchange("new_order", order, 200));
    recorder.explain("new_order", "values", "type=STOP_LOSS", "exchangeInfo does not list it");
    recorder.explain("new_order", "parameters", "*", "not part of the LIMIT lifecycle");
    recorder.relation("best bid = book ticker bid", ["order_book", "order_book_ticker"], { judged: true });
    recorder.relation("trades cover aggregate trades", ["aggTrades"], {
      why: "the market moved between reads",
    });
    const report = recorder.report(
      model.operations.map((o) => o.operationId),
      [],
    );
    expect(item(report, "new_order", "values", "type=STOP_LOSS")?.why).toBe("exchangeInfo does not list it");
    expect(item(report, "new_order", "parameters", "stopPrice")?.why).toBe("not part of the LIMIT lifecycle");
    expect(item(report, "order_book_ticker", "relations", "best bid = book ticker bid")?.exercised).toBe(
      true,
    );
    expect(item(report, "aggTrades", "relations", "trades cover aggregate trades")?.why).toBe(
      "the market moved between reads",
    );
  });

  it("every relation the spec states is listed on each operation it is judged on, judged or not, and why not", () => {
    const stated = declaredRelations(model.relations);
    expect(stated.map((r) => r.check).sort()).toEqual(
      expect.arrayContaining(["aggregate_cover", "order_views", "shared_facts", "trade_statistics"]),
    );
    const ids = model.operations.map((o) => o.operationId);
    const cell = (check: string, operationId: string, status: "passed" | "skipped", reason?: string) => ({
      check: check as "shared_facts",
      operationId,
      status,
      passed: status === "passed" ? 1 : 0,
      failed: 0,
      ...(reason ? { reason } : {}),
      failures: [],
    });
    const recorder = new CoverageRecorder(model.operations, model.relations);
    for (const id of ["aggTrades", "symbol_price_ticker", "recent_trades_list"])
      recorder.see(exchange(id, [["symbol", "BTCUSDT"]], 200));
    recorder.relation("best bid and ask", ["order_book", "order_book_ticker"], { judged: true });
    recorder.relation("best bid and ask", ["ticker_price_change_statistics24hr"], {
      why: "the book changed during each of 3 reads",
    });
    const report = recorder.report(ids, [
      cell("shared_facts", "order_book", "passed"),
      cell("shared_facts", "symbol_price_ticker", "skipped", "needs an API key"),
      cell("shared_facts", "recent_trades_list", "passed"),
    ]);
    for (const relation of stated)
      for (const id of relation.operations)
        expect(item(report, id, "relations", relation.name), `${relation.name} on ${id}`).toBeDefined();
    const why = (id: string, name: string) => item(report, id, "relations", name)?.why;
    expect(item(report, "order_book_ticker", "relations", "best bid and ask")?.exercised).toBe(true);
    // The check's own reason; the reason its cell was skipped for; a check not in the run; neither.
    expect(why("ticker_price_change_statistics24hr", "best bid and ask")).toBe(
      "the book changed during each of 3 reads",
    );
    expect(why("symbol_price_ticker", "last price")).toBe("needs an API key");
    expect(why("aggTrades", "aggregate trades")).toBe("aggregate_cover was not run");
    expect(why("recent_trades_list", "last price")).toBe("shared_facts compared no answer of it");
  });

  it("an order type exchangeInfo does not list says so", () => {
    const recorder = new CoverageRecorder(model.operations);
    recorder.see(exchange("new_order", order, 200));
    recorder.explainUnlisted(
      "new_order",
      "type",
      ["LIMIT", "MARKET"],
      "exchangeInfo's orderTypes for BTCUSDT",
    );
    const report = recorder.report(["new_order"], []);
    expect(item(report, "new_order", "values", "type=STOP_LOSS")?.why).toBe(
      "exchangeInfo's orderTypes for BTCUSDT does not list it",
    );
    expect(item(report, "new_order", "values", "type=MARKET")?.why).toBe("no check sends this value");
  });

  it("an operation no check judged takes the reason its cells were skipped for", () => {
    const recorder = new CoverageRecorder(model.operations);
    const report = recorder.report(
      ["query_order"],
      [
        {
          check: "order_lifecycle",
          operationId: "query_order",
          status: "skipped",
          passed: 0,
          failed: 0,
          reason: "signed operation: needs --api-key and --api-secret",
          failures: [],
        },
      ],
    );
    const query = report.operations[0]!;
    expect(query.unjudged).toBe("signed operation: needs --api-key and --api-secret");
    expect(query.parameters.every((p) => p.why === query.unjudged)).toBe(true);
  });
});

describe("a run's coverage report", () => {
  it("covers every operation, feeds from every request, is printed by default and in JUnit", async () => {
    const requests = new Map<string, number>();
    const result = await runContract({
      seed: 5,
      onExchange: (e) => requests.set(e.op.operationId, (requests.get(e.op.operationId) ?? 0) + 1),
    });
    const text = reportText(result, { color: false });
    expect(result.exitCode, text).toBe(0);
    const coverage = result.coverage!;
    expect(coverage.operations.map((o) => o.operationId)).toEqual(result.operations);
    for (const operation of coverage.operations) {
      expect(operation.requests, operation.operationId).toBe(requests.get(operation.operationId) ?? 0);
      for (const dimension of ["parameters", "values", "variants", "statuses", "relations"] as const) {
        for (const entry of operation[dimension]) {
          // Every item not exercised says why.
          if (!entry.exercised) expect(entry.why, `${operation.operationId} ${entry.item}`).toBeTruthy();
        }
      }
    }
    // Every relation the spec states is judged on the reference server, on every operation it names.
    for (const relation of declaredRelations(model.relations))
      for (const id of relation.operations)
        expect(
          coverage.operations
            .find((o) => o.operationId === id)
            ?.relations.find((r) => r.item === relation.name),
          `${relation.name} on ${id}`,
        ).toMatchObject({ exercised: true });
    const order = coverage.operations.find((o) => o.operationId === "new_order")!;
    expect(order.values.find((v) => v.item === "type=LIMIT")?.exercised).toBe(true);
    expect(
      order.variants.every((v) => v.exercised),
      JSON.stringify(order.variants),
    ).toBe(true);
    expect(text).toMatch(/^COVERAGE /m);
    expect(text).toMatch(/^new_order +\d+\/\d+ +\d+\/\d+ +3\/3 /m);

    const xml = junitXml(result);
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(xml);
    const suites = [parsed.testsuites.testsuite].flat() as Array<Record<string, unknown>>;
    const suite = suites.find((s) => s["@_name"] === "coverage")!;
    expect([suite.testcase].flat()).toHaveLength(result.operations.length);
    const total = suites.reduce((n, s) => n + Number(s["@_tests"]), 0);
    expect(Number(parsed.testsuites["@_tests"])).toBe(total);
  });
});

describe("the coverage report of a run that cannot judge everything", () => {
  it("says, per relation, why it was not judged: no credentials, a check left out", async () => {
    const server = await startReferenceServer();
    try {
      const result = await runContract({
        baseUrl: server.url,
        seed: 3,
        only: ["response_schema_conformance", "shared_facts", "order_views"],
      });
      expect(result.exitCode, reportText(result, { color: false })).toBe(0);
      const relation = (id: string, name: string) =>
        result.coverage?.operations.find((o) => o.operationId === id)?.relations.find((r) => r.item === name);
      expect(relation("order_book", "best bid and ask")?.exercised).toBe(true);
      expect(relation("aggTrades", "aggregate trades")).toMatchObject({
        exercised: false,
        why: "aggregate_cover was not run",
      });
      expect(relation("open_orders", "an order")).toMatchObject({ exercised: false });
      expect(relation("open_orders", "an order")?.why).toMatch(/--api-key/);
      const text = reportText(result, { color: false });
      expect(text).toMatch(/relations: aggregate trades \(aggregate_cover was not run\)/);
    } finally {
      await server.close();
    }
  });
});
