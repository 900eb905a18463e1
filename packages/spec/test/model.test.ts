// @marketapi/spec/model: the one reader of the OpenAPI document. Table-driven: what it reads from
// the bundled spec, how it follows references, and the fault (pointer, expected) for each bad input.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadOpenApi } from "../dist/index.js";
import { leadStatedBy } from "../src/model/extensions/signing.js";
import {
  buildSpecModel,
  EXTENSIONS,
  extensionByKey,
  HTTP_METHODS,
  type JsonObject,
  operationById,
  operationEntries,
  resolveRef,
  responseFor,
  SpecModelError,
  segmentsOf,
  subsetDocument,
} from "../src/model/index.js";

const document: JsonObject = loadOpenApi();
const model = buildSpecModel(document);
const op = (id: string) => {
  const found = operationById(model, id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
};

describe("resolveRef", () => {
  const doc: JsonObject = {
    components: {
      schemas: {
        "a/b": { type: "string" },
        "t~x": { type: "integer" },
        "sp ace": { type: "boolean" },
        chain: { $ref: "#/components/schemas/a~1b", description: "inner" },
        loop: { $ref: "#/components/schemas/loop" },
        list: [1, 2],
      },
    },
  };
  it.each([
    { given: "#/components/schemas/a~1b", want: { type: "string" } },
    { given: "#/components/schemas/t~0x", want: { type: "integer" } },
    { given: "#/components/schemas/sp%20ace", want: { type: "boolean" } },
    { given: "#/components/schemas/chain", want: { type: "string", description: "inner" } },
  ])("follows $given", ({ given, want }) => {
    expect(resolveRef(doc, { $ref: given }, "/here")).toEqual(want);
  });

  it("lets the keywords beside a $ref override the target's, the nearest winning", () => {
    const node = { $ref: "#/components/schemas/chain", description: "outer" };
    expect(resolveRef(doc, node, "/here")).toEqual({ type: "string", description: "outer" });
    expect(doc.components.schemas["a/b"]).toEqual({ type: "string" }); // the target is not changed
  });

  it("returns a node without $ref as it is", () => {
    const node = { type: "number" };
    expect(resolveRef(doc, node, "/here")).toBe(node);
  });

  it.each([
    { given: { $ref: "other.yaml#/x" }, expected: /local \$ref/ },
    { given: { $ref: "#/components/schemas/none" }, expected: /\$ref that resolves/ },
    { given: { $ref: "#/components/schemas/loop" }, expected: /local \$ref \(#\/\.\.\.\) that resolves/ },
    { given: { $ref: "#/components/schemas/list" }, expected: /an object/ },
  ])("names the node of a reference that cannot be followed: $given.$ref", ({ given, expected }) => {
    try {
      resolveRef(doc, given, "/paths/~1x/get");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SpecModelError);
      expect((error as SpecModelError).pointer).toBe("/paths/~1x/get");
      expect((error as SpecModelError).expected).toMatch(expected);
    }
  });

  it("decodes pointers as RFC 6901 says, in fragments percent-decoding first", () => {
    expect(segmentsOf("/paths/~1api~1v3~1ping/get")).toEqual(["paths", "/api/v3/ping", "get"]);
    expect(segmentsOf("#/a~01/b%25")).toEqual(["a~1", "b%"]);
    expect(segmentsOf("")).toEqual([]);
  });
});

describe("buildSpecModel on the bundled spec", () => {
  it("reads every operation of paths, each once, with the eight HTTP methods OpenAPI defines", () => {
    expect(HTTP_METHODS).toHaveLength(8);
    expect(model.operations).toHaveLength(operationEntries(document).length);
    expect(new Set(model.operations.map((o) => o.operationId)).size).toBe(model.operations.length);
  });

  it("types every x- extension", () => {
    expect(op("ping")).toMatchObject({ authClass: "none", signed: false, weight: 1, apiKey: "none" });
    expect(op("recent_trades_list")).toMatchObject({ authClass: "market_data", apiKey: "optional" });
    expect(op("new_order")).toMatchObject({
      authClass: "trade",
      signed: true,
      apiKey: "required",
      parameterPlacement: "query-or-form-body",
      acceptsFormBody: true,
      parameterConditions: [{ when: "icebergQty", require: { timeInForce: "GTC" } }],
    });
    expect(op("new_order").orderTypeRules?.MARKET).toEqual({
      exactlyOneOf: [["quantity", "quoteOrderQty"]],
      forbidden: ["timeInForce", "price", "stopPrice", "trailingDelta", "icebergQty"],
    });
    expect(op("exchange_info")).toMatchObject({
      weight: 20,
      mutuallyExclusive: [["symbol", "symbols"]],
      exclusivePairs: [["symbol", "symbols"]],
    });
    expect(op("new_order").responseVariants).toMatchObject({
      parameter: "newOrderRespType",
      by: "value",
      default: "FULL",
      components: { ACK: "NewOrderAck", RESULT: "NewOrderResult", FULL: "NewOrderFull" },
    });
    expect(op("symbol_price_ticker").responseVariants).toMatchObject({ parameter: "symbol", by: "presence" });
  });

  it("states the signing facts: header, envelope names, limits, codes and test vectors", () => {
    expect(model.signing).toMatchObject({
      scheme: "signature",
      algorithm: "HMAC-SHA256",
      apiKeyHeader: "X-MBX-APIKEY",
      signatureParameter: "signature",
      timestampParameter: "timestamp",
      recvWindowParameter: "recvWindow",
      recvWindowDefault: 5000,
      recvWindowMaximum: 60000,
      aheadAllowedMs: 1000,
      invalidSignatureCode: -1022,
      invalidTimestampCode: -1021,
    });
    expect(op("new_order").signing).toBe(model.signing);
    expect(op("ping").signing).toBeUndefined();
    expect(model.signing?.testVectors.length).toBeGreaterThanOrEqual(2);
    for (const vector of model.signing?.testVectors ?? []) {
      const hmac = createHmac("sha256", vector.secret)
        .update(vector.query + vector.body)
        .digest("hex");
      expect(hmac).toBe(vector.signature);
    }
  });

  it("marks JSON-encoded parameters and keeps their examples", () => {
    const symbols = op("exchange_info").parameters.find((p) => p.name === "symbols");
    expect(symbols).toMatchObject({ encoding: "json", example: ["BTCUSDT", "ETHUSDT"] });
    expect(symbols?.schemaPointer).toBe(
      "/paths/~1api~1v3~1exchangeInfo/get/parameters/1/content/application~1json/schema",
    );
  });

  it("finds the response a status falls under: exact, range, default", () => {
    const responses = [{ status: "200" }, { status: "4XX" }, { status: "default" }];
    expect(responseFor({ responses }, 200)?.status).toBe("200");
    expect(responseFor({ responses }, 418)?.status).toBe("4XX");
    expect(responseFor({ responses }, 503)?.status).toBe("default");
    expect(responseFor({ responses: [{ status: "200" }] }, 500)).toBeUndefined();
    expect(responseFor(op("new_order"), 400)?.status).toMatch(/^4/);
  });
});

/** A copy of the bundled spec, edited. */
function edited(edit: (d: JsonObject) => void): JsonObject {
  const copy = structuredClone(document);
  edit(copy);
  return copy;
}
const ping = (d: JsonObject) => d.paths["/api/v3/ping"].get;
const newOrder = (d: JsonObject) => d.paths["/api/v3/order"].post;

describe("the timestamp's lead, read from x-signing's acceptance words", () => {
  const cases: { given: unknown; want: number | undefined }[] = [
    { given: "timestamp < serverTime + 1000 and serverTime - timestamp <= recvWindow", want: 1000 },
    { given: "timestamp<serverTime+250", want: 250 },
    { given: "serverTime - timestamp <= recvWindow", want: undefined },
    { given: undefined, want: undefined },
    { given: 1000, want: undefined },
  ];
  it.each(cases)("$given → $want", ({ given, want }) => expect(leadStatedBy(given)).toBe(want));
});

describe("the registry of extensions", () => {
  it("lists each key once, with a kebab-case module name, a typed reader and what it constrains", () => {
    expect(new Set(EXTENSIONS.map((e) => e.key)).size).toBe(EXTENSIONS.length);
    for (const extension of EXTENSIONS) {
      expect(extension.key).toBe(`x-${extension.name}`);
      expect(extension.name).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(typeof extension.read).toBe("function");
      expect(extension.constrains.length).toBeGreaterThan(0);
      if (extension.constrains.includes("docs")) expect(extension.constrains).toEqual(["docs"]);
      expect(extensionByKey(extension.key)).toBe(extension);
    }
    expect(extensionByKey("x-nope")).toBeUndefined();
  });

  it("reads the document-level and schema-level extensions into typed fields", () => {
    expect(model.filledFrom?.source).toMatch(/^Binance Spot REST API/);
    expect(model.filledFrom?.parts).toContain("parameter placement");
    const price = op("new_order").parameters.find((p) => p.name === "price");
    expect(price?.wirePattern).toBe(document.components.schemas.DecimalParameter["x-wire-pattern"]);
    expect(op("new_order").parameters.find((p) => p.name === "symbol")?.wirePattern).toBeUndefined();
  });
});

describe("buildSpecModel on edited specs", () => {
  it("merges path-level parameters, the operation's winning on the same name and place", () => {
    const model = buildSpecModel(
      edited((d) => {
        d.paths["/api/v3/ping"].parameters = [
          { name: "shared", in: "query", schema: { type: "string" } },
          { name: "both", in: "query", schema: { type: "string" }, description: "path level" },
        ];
        ping(d).parameters = [
          { name: "both", in: "query", schema: { type: "integer" }, description: "operation level" },
        ];
      }),
    );
    const parameters = operationById(model, "ping")?.parameters ?? [];
    expect(parameters.map((p) => [p.name, p.description])).toEqual([
      ["shared", undefined],
      ["both", "operation level"],
    ]);
    expect(parameters[0]?.pointer).toBe("/paths/~1api~1v3~1ping/parameters/0");
  });

  it("reads the signing rule from whichever scheme carries x-signing, with its own names", () => {
    const model = buildSpecModel(
      edited((d) => {
        const schemes = d.components.securitySchemes;
        schemes.hmac = schemes.signature;
        delete schemes.signature;
        schemes.apiKey.name = "X-OTHER-KEY";
        schemes.hmac["x-signing"].parameter = "sig";
        schemes.hmac["x-signing"].timestamp.parameter = "ts";
        for (const item of Object.values<JsonObject>(d.paths)) {
          for (const operation of Object.values<JsonObject>(item)) {
            for (const requirement of operation.security ?? []) {
              if (requirement.signature) {
                requirement.hmac = requirement.signature;
                delete requirement.signature;
              }
            }
          }
        }
      }),
    );
    expect(model.signing).toMatchObject({
      scheme: "hmac",
      apiKeyHeader: "X-OTHER-KEY",
      signatureParameter: "sig",
      timestampParameter: "ts",
    });
  });

  it("keeps only the named operations and the components they reach in a subset", () => {
    const subset = subsetDocument(document, new Set(["get /api/v3/ping", "get /api/v3/exchangeInfo"]));
    expect(Object.keys(subset.paths)).toEqual(["/api/v3/ping", "/api/v3/exchangeInfo"]);
    expect(subset.components.schemas.NewOrderFull).toBeUndefined();
    expect(subset.components.securitySchemes.signature).toBeDefined();
    expect(buildSpecModel(subset).operations.map((o) => o.operationId)).toEqual(["ping", "exchange_info"]);
    expect(document.paths["/api/v3/order"]).toBeDefined(); // the input is not changed
  });

  const faults: { given: string; edit: (d: JsonObject) => void; pointer: string; expected: RegExp }[] = [
    { given: "no paths", edit: (d) => delete d.paths, pointer: "/paths", expected: /paths object/ },
    {
      given: "an unknown auth class",
      edit: (d) => (ping(d)["x-auth-class"] = "admin"),
      pointer: "/paths/~1api~1v3~1ping/get/x-auth-class",
      expected: /one of none, market_data, trade, user_data/,
    },
    {
      given: "a negative weight",
      edit: (d) => (ping(d)["x-weight"] = -1),
      pointer: "/paths/~1api~1v3~1ping/get/x-weight",
      expected: /whole number/,
    },
    {
      given: "an unknown parameter placement",
      edit: (d) => (ping(d)["x-parameter-placement"] = "body-only"),
      pointer: "/paths/~1api~1v3~1ping/get/x-parameter-placement",
      expected: /query-or-form-body/,
    },
    {
      given: "an order type rule naming no parameter",
      edit: (d) => (newOrder(d)["x-order-type-rules"].MARKET.forbidden = ["nope"]),
      pointer: "/paths/~1api~1v3~1order/post/x-order-type-rules/MARKET/forbidden/0",
      expected: /parameter of the operation/,
    },
    {
      given: "an unknown order type rule key",
      edit: (d) => (newOrder(d)["x-order-type-rules"].MARKET.optional = ["price"]),
      pointer: "/paths/~1api~1v3~1order/post/x-order-type-rules/MARKET/optional",
      expected: /one of required, atLeastOneOf/,
    },
    {
      given: "a condition on no parameter",
      edit: (d) => (newOrder(d)["x-parameter-conditions"][0].when = "nope"),
      pointer: "/paths/~1api~1v3~1order/post/x-parameter-conditions/0/when",
      expected: /parameter of the operation/,
    },
    {
      given: "a mutually exclusive group of one",
      edit: (d) => (d.paths["/api/v3/exchangeInfo"].get["x-mutually-exclusive"] = [["symbol"]]),
      pointer: "/paths/~1api~1v3~1exchangeInfo/get/x-mutually-exclusive/0",
      expected: /at least two/,
    },
    {
      given: "a response variant that does not resolve",
      edit: (d) => (newOrder(d)["x-response-variant-by"].variants.ACK = "#/components/schemas/Nope"),
      pointer: "/paths/~1api~1v3~1order/post/x-response-variant-by/variants/ACK",
      expected: /reference that resolves/,
    },
    {
      given: "a signed operation whose security names no signing scheme",
      edit: (d) => (newOrder(d).security = [{ apiKey: [] }]),
      pointer: "/paths/~1api~1v3~1order/post/security",
      expected: /signing scheme \(signature\)/,
    },
    {
      given: "a signing rule without a timestamp parameter",
      edit: (d) => delete d.components.securitySchemes.signature["x-signing"].timestamp,
      pointer: "/components/securitySchemes/signature/x-signing/timestamp/parameter",
      expected: /parameter name/,
    },
    {
      given: "a test vector without a signature",
      edit: (d) => delete d.components.securitySchemes.signature["x-signing"].testVectors[0].signature,
      pointer: "/components/securitySchemes/signature/x-signing/testVectors/0",
      expected: /test vector/,
    },
    {
      given: "a wire pattern that is not a regular expression",
      edit: (d) => (d.components.schemas.DecimalParameter["x-wire-pattern"] = "(["),
      pointer: "/paths/~1api~1v3~1order/post/parameters/4/schema/x-wire-pattern",
      expected: /regular expression/,
    },
    {
      given: "an x-filled-from without a list of parts",
      edit: (d) => (d["x-filled-from"].parts = "all of it"),
      pointer: "/x-filled-from",
      expected: /source, parts/,
    },
    {
      given: "a parameter reference that does not resolve",
      edit: (d) => (ping(d).parameters = [{ $ref: "#/components/parameters/Nope" }]),
      pointer: "/paths/~1api~1v3~1ping/get/parameters/0",
      expected: /\$ref that resolves/,
    },
  ];
  it.each(faults)("names the fault: $given", ({ edit, pointer, expected }) => {
    try {
      buildSpecModel(edited(edit));
      expect.unreachable("buildSpecModel accepted a faulty spec");
    } catch (error) {
      expect(error).toBeInstanceOf(SpecModelError);
      expect((error as SpecModelError).pointer).toBe(pointer);
      expect((error as SpecModelError).expected).toMatch(expected);
    }
  });
});
