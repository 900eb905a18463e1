import { loadOpenApi } from "@marketapi/spec";
import {
  buildSpecModel,
  type Operation,
  operationById,
  operationEntries,
  SpecModelError,
} from "@marketapi/spec/model";
import { describe, expect, it } from "vitest";
import { type JsonObject, objectAt, stringAt } from "../src/json.js";
import {
  credentialsMarkdown,
  orderTypeRulesMarkdown,
  parameterConditionsMarkdown,
  RELATIONS_SECTION_TITLE,
  relationsMarkdown,
  responseVariantsMarkdown,
  SIGNING_SECTION_TITLE,
  surfaceVendorExtensions,
} from "../src/vendor-extensions.js";

const spec = loadOpenApi();
const surfaced = surfaceVendorExtensions(spec);
const model = buildSpecModel(spec);
const byId = (id: string): Operation => operationById(model, id) ?? expect.unreachable(`no ${id}`);

function operation(document: JsonObject, path: string, method: string): JsonObject {
  return objectAt(objectAt(objectAt(document.paths)[path])[method]);
}

describe("surfaceVendorExtensions", () => {
  it("leaves its input untouched and keeps every x- extension in the copy", () => {
    expect(loadOpenApi()).toEqual(spec);
    for (const { path, method, operation: original } of operationEntries(spec)) {
      const copy = operation(surfaced, path, method);
      for (const key of Object.keys(original).filter((k) => k.startsWith("x-"))) {
        expect(copy[key], `${path} ${method} ${key}`).toEqual(original[key]);
      }
    }
  });

  it("starts every operation's description with its x-auth-class, credentials and x-weight", () => {
    const depth = operationEntries(surfaced).find((e) => e.path === "/api/v3/depth")!;
    expect(stringAt(depth.operation.description)).toContain(
      "- **Request weight:** 5 for `limit` 1–100, 25 for `limit` 101–500, 50 for `limit` 501–1000, 250 for `limit` 1001–5000\n",
    );
    const openOrders = operationEntries(surfaced).find(
      (e) => e.path === "/api/v3/openOrders" && e.method === "get",
    )!;
    expect(stringAt(openOrders.operation.description)).toContain(
      "- **Request weight:** 6 with `symbol`, 80 without it\n",
    );
    const operations = operationEntries(surfaced);
    expect(operations).toHaveLength(model.operations.length);
    for (const { path, method, operation: op } of operations) {
      const description = stringAt(op.description) ?? "";
      const where = `${method.toUpperCase()} ${path}`;
      expect(description, where).toMatch(
        /^- \*\*Authentication class:\*\* `(none|market_data|trade|user_data)`\n/,
      );
      expect(description, where).toContain(`- **Authentication class:** \`${String(op["x-auth-class"])}\``);
      expect(description, where).toContain("- **Credentials:** ");
      const weight = op["x-weight"];
      if (typeof weight === "number")
        expect(description, where).toContain(`- **Request weight:** ${weight}\n`);
      else expect(description, where).toMatch(/- \*\*Request weight:\*\* \d+ (for|with) `\w+`/);
      // The hand-written description follows, unchanged.
      const original = stringAt(operation(spec, path, method).description)?.trim() ?? "";
      expect(description, where).toContain(original);
    }
  });

  it("adds an auth badge to the operations that need credentials, and none to the public ones", () => {
    for (const { path, method, operation: op } of operationEntries(surfaced)) {
      const badges = op["x-badges"];
      if (op["x-auth-class"] === "none") expect(badges, `${method} ${path}`).toBeUndefined();
      else
        expect(badges, `${method} ${path}`).toEqual([
          { name: `auth: ${op["x-auth-class"]}`, position: "after" },
        ]);
    }
  });

  it("states the credentials of each class from the security requirements", () => {
    expect(credentialsMarkdown(byId("ping"), model)).toBe("none (no API key, no signature)");
    // market_data: the key is accepted, not required (security [{}, {apiKey: []}]).
    expect(credentialsMarkdown(byId("recent_trades_list"), model)).toBe(
      "none required; an API key in the `X-MBX-APIKEY` header is accepted (optional)",
    );
    const signed = credentialsMarkdown(byId("new_order"), model);
    expect(signed).toContain("`X-MBX-APIKEY` header");
    expect(signed).toContain(
      `HMAC-SHA256 signature in the \`signature\` parameter (see ${SIGNING_SECTION_TITLE})`,
    );
    // The key-only alternative of the operations that take a form body: the signature is in the body.
    expect(signed).toContain(
      `; or an API key in the \`X-MBX-APIKEY\` header and an HMAC-SHA256 signature in the \`signature\` field of the form body (see ${SIGNING_SECTION_TITLE})`,
    );
    expect(credentialsMarkdown(byId("query_order"), model)).not.toContain("form body");
    expect(credentialsMarkdown({ security: undefined, acceptsFormBody: false }, model)).toBe(
      "not stated by the spec",
    );
  });

  it("shows the tickers' x-response-variant-by by presence of symbol", () => {
    const description = stringAt(operation(surfaced, "/api/v3/ticker/price", "get").description) ?? "";
    expect(description).toContain("**Response shape by `symbol`** (`x-response-variant-by`)");
    expect(description).toMatch(/\| sent +\| `PriceTicker` +\|/);
    expect(description).toMatch(/\| not sent +\| `PriceTickerList` +\|/);
  });

  it("shows new_order's x-order-type-rules, x-parameter-conditions and x-response-variant-by", () => {
    const newOrder = operation(surfaced, "/api/v3/order", "post");
    const description = stringAt(newOrder.description) ?? "";
    const rules = objectAt(newOrder["x-order-type-rules"]);
    expect(Object.keys(rules)).toHaveLength(7);
    expect(description).toContain("**Parameters per order type** (`x-order-type-rules`)");
    expect(description).toContain("| Order type | Required | Forbidden |");
    for (const type of Object.keys(rules)) {
      expect(description).toMatch(new RegExp(`^\\| ${type.replace(/_/g, "\\\\_")} \\|`, "m"));
    }
    expect(description).toContain("| MARKET | exactly one of quantity, quoteOrderQty | timeInForce, price,");
    expect(description).toContain(
      "| STOP\\_LOSS\\_LIMIT | timeInForce, quantity, price; at least one of stopPrice, trailingDelta | quoteOrderQty |",
    );
    expect(description).toContain("When `icebergQty` is sent, `timeInForce` must be `GTC`.");
    expect(description).toContain("| `ACK` | `NewOrderAck` |");
  });

  it("adds the operations overview, the auth classes and the x-signing rule to info.description", () => {
    const description = stringAt(objectAt(surfaced.info).description) ?? "";
    const overview = description.slice(
      description.indexOf("## Operations"),
      description.indexOf("## Sources"),
    );
    expect(overview.match(/^\| .* \| \*\*(GET|POST|DELETE)\*\* `\/api\/v3\/[^`]*` \|$/gm)).toHaveLength(
      model.operations.length,
    );
    expect(description).toContain("## Authentication classes");
    expect(description).toMatch(
      /^- `user_data`: an API key .*\. Operations: `query_order`, `open_orders`, `all_orders`\.$/m,
    );
    expect(description).toContain("- `none`: none (no API key, no signature). Operations: `ping`, ");
    const signing = objectAt(
      objectAt(objectAt(objectAt(spec.components).securitySchemes).signature)["x-signing"],
    );
    expect(description).toContain(`## ${SIGNING_SECTION_TITLE}`);
    expect(description).toContain("| Algorithm | HMAC-SHA256 |");
    expect(description).toContain("| Accepted when | timestamp \\< serverTime + 1000");
    for (const vector of signing.testVectors as JsonObject[])
      expect(description).toContain(String(vector.signature));
    expect(description).toContain("## Filled from the live API");
    expect(description).toContain(`## ${RELATIONS_SECTION_TITLE}`);
    expect(description).toContain(
      "- best bid and ask, which moves with the book: `order_book` bidPrice `/bids/0/0`, ",
    );
    expect(description).toContain(
      "- last price, which moves with the trades: `recent_trades_list` (the last item) price `/price`; ",
    );
    expect(description).toContain("`/weightedAvgPrice` is Σ quoteQty / Σ qty");
    expect(description).toContain(
      "- aggregate trades, `aggTrades`: trade ids `/f` to `/l`; the same on every trade: price `/p`, time `/T`, buyerMaker `/m`, bestMatch `/M`; sums: qty `/q`.",
    );
    expect(description).toMatch(
      /`open_orders` lists exactly the orders whose status is `NEW` or `PARTIALLY_FILLED`/,
    );
    expect(relationsMarkdown({ relations: undefined })).toBeUndefined();
  });

  it("escapes markup in values, and refuses what the spec model refuses, naming the node", () => {
    const rules = orderTypeRulesMarkdown({ orderTypeRules: { "<b>ODD|TYPE": { required: ["a"] } } }) ?? "";
    expect(rules).toContain("| \\<b\\>ODD\\|TYPE | a | – |");
    expect(orderTypeRulesMarkdown({})).toBeUndefined();
    expect(parameterConditionsMarkdown({ parameterConditions: [] })).toBeUndefined();
    expect(responseVariantsMarkdown({})).toBeUndefined();
    const document = (placement?: string) => ({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {
        "/x": {
          get: {
            operationId: "x",
            summary: "<script>alert(1)</script>",
            "x-auth-class": "none",
            ...(placement ? { "x-parameter-placement": placement } : {}),
            security: [],
            responses: { "200": { description: "ok" } },
          },
        },
      },
    });
    const weird = surfaceVendorExtensions(document());
    expect(stringAt(objectAt(weird.info).description)).toContain("\\<script\\>alert(1)\\</script\\>");
    expect(() => surfaceVendorExtensions(document("body-only"))).toThrow(SpecModelError);
    expect(() => surfaceVendorExtensions(document("body-only"))).toThrow(
      '#/paths/~1x/get/x-parameter-placement: expected "query-or-form-body"',
    );
  });
});

describe("a spec that does not use this API's extensions, in its own words", () => {
  // A vendor's spec: security schemes of its own, no x-auth-class, no x-weight, no x-signing.
  const vendor: JsonObject = {
    openapi: "3.1.0",
    info: { title: "Vendor", version: "1", description: "The vendor's API." },
    components: {
      securitySchemes: { token: { type: "http", scheme: "bearer" } },
    },
    paths: {
      "/items": {
        get: {
          operationId: "listItems",
          security: [{ token: [] }],
          responses: { "200": { description: "ok" } },
        },
        post: { operationId: "ping", security: [], responses: { "204": { description: "ok" } } },
      },
    },
  };
  const shown = surfaceVendorExtensions(vendor);
  const text = JSON.stringify(shown);

  it.each([
    ["an authentication class", "Authentication class"],
    ["the classes' section", "Authentication classes"],
    ["a class badge", "auth: "],
    ["a request weight", "Request weight"],
    ["a signature", "signature"],
  ])("says nothing of %s", (_, words) => {
    expect(text).not.toContain(words);
  });

  it("states each operation's credentials from its security requirement", () => {
    expect(stringAt(operation(shown, "/items", "get").description)).toContain(
      "- **Credentials:** HTTP bearer authentication",
    );
    expect(stringAt(operation(shown, "/items", "post").description)).toBe("- **Credentials:** none");
  });

  it("shows the class and weight where a spec writes them", () => {
    const own = structuredClone(vendor);
    const get = operation(own, "/items", "get");
    get["x-auth-class"] = "user_data";
    get["x-weight"] = 5;
    const description = stringAt(operation(surfaceVendorExtensions(own), "/items", "get").description) ?? "";
    expect(description).toContain("- **Authentication class:** `user_data`");
    expect(description).toContain("- **Request weight:** 5");
  });
});
