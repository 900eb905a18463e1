// The spec against the source document's tables (test/data/seed-000.ts): operations, methods,
// paths, auth classes and every parameter's name, type, required flag and default. The
// comparison is test/support/seed-facts.ts, which `npm run api:check` runs too; a failure names
// the operation, the parameter and the fact, and says what to do.
import { describe, expect, it } from "vitest";
import { seedAuthClasses, seedOperations } from "./data/seed-000.js";
import { type Json, listOperations, loadSourceSpec, resolve } from "./support/openapi.js";
import { differencesMessage, seedDifferences, seedTypeOf } from "./support/seed-facts.js";

const spec = loadSourceSpec();
const operations = listOperations(spec);
const byId = new Map(operations.map((op) => [op.operation.operationId as string, op]));
const paramsOf = (id: string): Json[] => byId.get(id)?.operation.parameters ?? [];
const differences = seedDifferences(spec);
const seedIds = new Set(seedOperations.map((op) => op.operationId));

describe("operations", () => {
  it("has exactly the operations of the seed", () => {
    const extraOrMissing = differences.filter(
      (d) => !seedIds.has(d.operationId) || d.fact.startsWith("operation"),
    );
    expect(extraOrMissing, differencesMessage(extraOrMissing)).toEqual([]);
  });

  it.each(seedOperations.map((seed) => [seed.operationId] as const))(
    "%s: method, path, x-auth-class and every parameter's name, order, type, required flag and default",
    (id) => {
      const own = differences.filter((d) => d.operationId === id);
      expect(own, differencesMessage(own)).toEqual([]);
    },
  );

  it("the auth classes group the operations as section 5 of the seed does", () => {
    const grouped: Record<string, string[]> = {};
    for (const { operation } of operations) {
      const cls = operation["x-auth-class"] as string;
      grouped[cls] ??= [];
      grouped[cls].push(operation.operationId);
    }
    for (const cls of Object.keys(seedAuthClasses) as (keyof typeof seedAuthClasses)[]) {
      expect(grouped[cls]?.sort(), cls).toEqual([...seedAuthClasses[cls]].sort());
    }
  });

  it("security follows the auth class: none → [], market_data → key optional, trade/user_data → key + signature", () => {
    const want: Record<string, Json> = {
      none: [],
      market_data: [{}, { apiKey: [] }],
      trade: [{ apiKey: [], signature: [] }],
      user_data: [{ apiKey: [], signature: [] }],
    };
    // Where the signature may travel in the form body, a key-only alternative stands for that placement.
    const inForm = [{ apiKey: [], signature: [] }, { apiKey: [] }];
    for (const { operation } of operations) {
      const placement = operation["x-parameter-placement"] === "query-or-form-body";
      expect(operation.security, operation.operationId).toEqual(
        placement ? inForm : want[operation["x-auth-class"]],
      );
    }
  });
});

describe("parameters", () => {
  it("ids and epoch-ms times are int64", () => {
    for (const [id, name] of [
      ["historical_trades", "fromId"],
      ["aggTrades", "fromId"],
      ["cancel_order", "orderId"],
      ["query_order", "orderId"],
      ["all_orders", "orderId"],
      ["all_orders", "startTime"],
      ["all_orders", "endTime"],
      ["new_order", "recvWindow"],
    ] as const) {
      const parameter = paramsOf(id)
        .map((p) => resolve(spec, p))
        .find((p) => p.name === name);
      expect(resolve(spec, parameter.schema).format, `${id}.${name}`).toBe("int64");
    }
  });

  it("only new_order accepts recvWindow: no other operation has it as a parameter or in its form body", () => {
    const accepting = operations
      .filter(({ operation }) => {
        const names: string[] = (operation.parameters ?? []).map((p: Json) => resolve(spec, p).name);
        const body = operation.requestBody ? resolve(spec, operation.requestBody) : undefined;
        for (const media of Object.values<Json>(body?.content ?? {})) {
          names.push(...Object.keys(resolve(spec, media.schema)?.properties ?? {}));
        }
        return names.includes("recvWindow");
      })
      .map(({ operation }) => operation.operationId);
    expect(accepting).toEqual(["new_order"]);
  });

  it("x-signing does not make recvWindow part of every signed request", () => {
    const signing = spec.components.securitySchemes.signature["x-signing"];
    const claim: string = signing.recvWindow.acceptedBy;
    const named = operations.map(({ operation }) => operation.operationId).filter((id) => claim.includes(id));
    expect(named).toEqual(["new_order"]);
    expect(claim).toMatch(/not part of the envelope/);
    const text: string = spec.components.securitySchemes.signature.description;
    expect(text).toMatch(/only `new_order` accepts it/);
    expect(text).not.toMatch(/and optionally `recvWindow`/);
  });

  it("recent_trades_list.limit has no default but its description mentions 500", () => {
    const limit = resolve(spec, byId.get("recent_trades_list")?.operation.parameters[1]);
    expect(limit.schema.default).toBeUndefined();
    expect(limit.description).toMatch(/500/);
  });

  it("form bodies of POST/DELETE operations carry the same parameter names as the query", () => {
    for (const { operation, method } of operations) {
      if (method === "get") continue;
      expect(operation["x-parameter-placement"], operation.operationId).toBe("query-or-form-body");
      const body = resolve(spec, operation.requestBody);
      expect(body.required).toBe(false);
      const form = resolve(spec, body.content["application/x-www-form-urlencoded"].schema);
      // Header parameters travel as headers, never in the form body.
      const names = (operation.parameters as Json[])
        .map((p) => resolve(spec, p))
        .filter((p) => p.in !== "header")
        .map((p) => p.name);
      expect(Object.keys(form.properties)).toEqual(expect.arrayContaining(names));
      const extra = Object.keys(form.properties).filter((n) => !names.includes(n));
      expect(extra.sort(), operation.operationId).toEqual(
        ["signature", "timestamp"].filter((n) => !names.includes(n)),
      );
    }
  });
});

describe("gaps filled from the live API", () => {
  const enumOf = (name: string) => resolve(spec, { $ref: `#/components/schemas/${name}` }).enum;

  it.each([
    ["OrderSide", ["BUY", "SELL"]],
    [
      "OrderType",
      ["LIMIT", "MARKET", "STOP_LOSS", "STOP_LOSS_LIMIT", "TAKE_PROFIT", "TAKE_PROFIT_LIMIT", "LIMIT_MAKER"],
    ],
    ["TimeInForce", ["GTC", "IOC", "FOK"]],
    ["NewOrderResponseType", ["ACK", "RESULT", "FULL"]],
    [
      "OrderStatus",
      [
        "NEW",
        "PENDING_NEW",
        "PARTIALLY_FILLED",
        "FILLED",
        "CANCELED",
        "PENDING_CANCEL",
        "REJECTED",
        "EXPIRED",
        "EXPIRED_IN_MATCH",
      ],
    ],
  ])("%s enum", (name, want) => {
    expect(enumOf(name)).toEqual(want);
  });

  it("x-order-type-rules covers every order type and names only new_order parameters", () => {
    const op = byId.get("new_order")?.operation;
    const rules = op["x-order-type-rules"];
    expect(Object.keys(rules).sort()).toEqual([...enumOf("OrderType")].sort());
    const names = new Set((op.parameters as Json[]).map((p) => resolve(spec, p).name));
    for (const [type, rule] of Object.entries<Json>(rules)) {
      const mentioned = [
        ...(rule.required ?? []),
        ...(rule.forbidden ?? []),
        ...(rule.atLeastOneOf ?? []).flat(),
        ...(rule.exactlyOneOf ?? []).flat(),
      ];
      for (const name of mentioned) expect(names.has(name), `${type} names ${name}`).toBe(true);
    }
  });

  it("every operation answers 200 with a schema and an example, and 4xx/5xx with the ErrorPayload schema", () => {
    for (const { operation } of operations) {
      for (const [status, ref] of Object.entries<Json>(operation.responses)) {
        const response = resolve(spec, ref);
        const media = response.content["application/json"];
        expect(media.schema, `${operation.operationId} ${status}`).toBeDefined();
        expect(media.example, `${operation.operationId} ${status}`).toBeDefined();
        if (!status.startsWith("2")) expect(media.schema.$ref).toBe("#/components/schemas/ErrorPayload");
      }
    }
  });

  it("the seed/live-API disagreements are stated in the spec", () => {
    const description: string = spec.info.description;
    expect(description).toMatch(/aggTrades.*date_time.*filled from the live API.*epoch\s+milliseconds/is);
    expect(description).toMatch(/market_data.*filled from the live API.*accepted but not required/is);
    expect(description).toMatch(/Only `new_order` accepts `recvWindow`/);
    expect(byId.get("aggTrades")?.operation.description).toMatch(/epoch milliseconds/);
  });

  it("date_time stays a type distinct from all_orders' integer times", () => {
    const param = (id: string, name: string) =>
      paramsOf(id)
        .map((p) => resolve(spec, p))
        .find((p) => p.name === name);
    for (const name of ["startTime", "endTime"]) {
      expect(seedTypeOf(spec, param("aggTrades", name)), `aggTrades.${name}`).toBe("date_time");
      expect(seedTypeOf(spec, param("all_orders", name)), `all_orders.${name}`).toBe("integer");
    }
    expect(param("aggTrades", "startTime").schema.$ref).toBe("#/components/schemas/DateTime");
    expect(resolve(spec, param("all_orders", "startTime").schema).oneOf).toBeUndefined();
  });

  it("market_data: the API key is accepted but not required, as filled from the live API", () => {
    for (const id of ["recent_trades_list", "historical_trades"]) {
      const operation = byId.get(id)?.operation;
      expect(operation.security, id).toEqual([{}, { apiKey: [] }]);
      expect(operation.description, id).toMatch(/accepted but not required/);
      expect(operation.description, id).toMatch(/filled from the live API/);
      expect(operation.responses["401"], id).toBeUndefined();
    }
  });
});

describe("shapes third-party tools read right", () => {
  const schemas = spec.components.schemas;

  it("decimal parameters keep the seed's float type and state plain decimal notation in x-wire-pattern", () => {
    const decimal = schemas.DecimalParameter;
    expect(decimal).toMatchObject({ type: "number", format: "float" });
    const pattern = new RegExp(decimal["x-wire-pattern"], "u");
    const table = [
      { given: "0.0000001", want: true },
      { given: "30000", want: true },
      { given: "1e-7", want: false },
      { given: "1E-7", want: false },
      { given: "-1", want: false },
      { given: ".5", want: false },
    ];
    for (const { given, want } of table) expect(pattern.test(given), given).toBe(want);
  });

  it("a price level is two decimal strings in keywords every tool reads (no prefixItems, no items: false)", () => {
    expect(schemas.PriceLevel).toMatchObject({
      type: "array",
      items: { $ref: "#/components/schemas/Decimal" },
      minItems: 2,
      maxItems: 2,
    });
    expect(schemas.PriceLevel.prefixItems).toBeUndefined();
  });

  it("every filter tag has a type next to its const", () => {
    const tags = JSON.stringify(spec).match(/"filterType":\{[^}]*\}/g) ?? [];
    expect(tags.length).toBeGreaterThan(10);
    for (const tag of tags) expect(tag).toMatch(/"type":"string"/);
  });

  it("names no schema after a JavaScript built-in, and references no requestBodies component", () => {
    for (const name of ["Error", "Symbol", "Object", "Array", "Date", "Promise", "Map", "Set"]) {
      expect(schemas[name], name).toBeUndefined();
    }
    expect(spec.components.requestBodies).toBeUndefined();
  });

  it("the symbols parameter states its encoding with an example in its description", () => {
    const symbols = spec.components.parameters.Symbols;
    expect(symbols.description).toContain("symbols=%5B%22BTCUSDT%22%2C%22ETHUSDT%22%5D");
    expect(symbols.content["application/json"].schema.description).toContain("symbols=%5B");
  });
});
