// The code-sample generator on its own: the wire rules (table-driven), what it reads from the spec,
// the requests and their order, and the samples themselves as golden text. Running the samples
// for real is samples.run.test.ts.

import { percentEncode, queryPart } from "@marketapi/client/wire";
import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel, operationEntries } from "@marketapi/spec/model";
import { describe, expect, it } from "vitest";
import { parseCommand } from "../src/cli.js";
import { type JsonObject, objectAt } from "../src/json.js";
import {
  addCodeSamples,
  CODE_SAMPLES_SECTION_TITLE,
  REDOC_CODE_SAMPLES,
  SAMPLE_LANGUAGES,
  type SampleOptions,
} from "../src/samples/code-samples.js";
import {
  DEFAULT_SCENARIO,
  encodedArguments,
  planRequests,
  type SampleScenario,
  SampleScenarioError,
  sampleSequence,
  wireText,
} from "../src/samples/sample-requests.js";
import { readSampleSpec, type SampleParameter, SampleSpecError } from "../src/samples/sample-spec.js";
import { COMMENT_WIDTH, commentLines } from "../src/samples/sample-text.js";

/** How many operations the spec has: tests count from the model, never a literal. */
const operationCount = buildSpecModel(loadOpenApi()).operations.length;

const source = loadOpenApi();
const spec = readSampleSpec(source);
const requests = planRequests(spec);
const request = (id: string) => {
  const found = requests.find((r) => r.operation.operationId === id);
  if (!found) throw new Error(`no request for ${id}`);
  return found;
};

/** A copy of the source spec changed by `edit`. */
function edited(edit: (document: JsonObject) => void): JsonObject {
  const copy = structuredClone(source);
  edit(copy);
  return copy;
}

function samplesOf(document: JsonObject): Map<string, { label: string; source: string }[]> {
  return new Map(
    operationEntries(document).map(({ operation }) => [
      String(operation.operationId),
      operation["x-codeSamples"] as { label: string; source: string }[],
    ]),
  );
}

describe("percentEncode", () => {
  it.each([
    { given: '["BTCUSDT","ETHUSDT"]', want: "%5B%22BTCUSDT%22%2C%22ETHUSDT%22%5D" },
    { given: "0.001", want: "0.001" },
    { given: "docs-sample-order", want: "docs-sample-order" },
    { given: "A-Z a-z_0.9~", want: "A-Z%20a-z_0.9~" },
    { given: "!'()*", want: "%21%27%28%29%2A" },
    { given: "é&=+/", want: "%C3%A9%26%3D%2B%2F" },
  ])("$given → $want", ({ given, want }) => {
    expect(percentEncode(given)).toBe(want);
  });

  it("writes parameters as the client does: a JSON parameter as one encoded value", () => {
    expect(
      [
        queryPart({ name: "symbols", in: "query", json: true }, ["A"]),
        queryPart({ name: "limit", in: "query" }, 5),
      ].join("&"),
    ).toBe("symbols=%5B%22A%22%5D&limit=5");
  });
});

describe("wireText", () => {
  type WireParameter = Pick<SampleParameter, "kind" | "enum" | "wirePattern">;
  const parameter = (kind: SampleParameter["kind"], more: Partial<WireParameter> = {}): WireParameter => ({
    kind,
    ...more,
  });
  const decimal = parameter("decimal", { wirePattern: "^[0-9]+(\\.[0-9]+)?$" });
  it.each([
    { kind: "decimal", parameter: decimal, given: "0.001", want: "0.001" },
    { kind: "decimal", parameter: decimal, given: "0.0000001", want: "0.0000001" },
    { kind: "integer", parameter: parameter("integer"), given: 5, want: "5" },
    {
      kind: "json",
      parameter: parameter("json"),
      given: ["BTCUSDT", "ETHUSDT"],
      want: '["BTCUSDT","ETHUSDT"]',
    },
    { kind: "enum", parameter: parameter("string", { enum: ["BUY", "SELL"] }), given: "SELL", want: "SELL" },
  ])("$kind $given → $want", ({ parameter, given, want }) => {
    expect(wireText("op.p", parameter, given)).toBe(want);
  });

  it.each([
    { kind: "a decimal as a number", parameter: decimal, given: 0.001, message: /op\.p: expected a decimal/ },
    { kind: "exponent notation", parameter: decimal, given: "1e-7", message: /op\.p: expected a decimal/ },
    { kind: "a negative decimal", parameter: decimal, given: "-1", message: /x-wire-pattern/ },
    {
      kind: "a fractional integer",
      parameter: parameter("integer"),
      given: 1.5,
      message: /expected an integer/,
    },
    {
      kind: "a JSON value as text",
      parameter: parameter("json"),
      given: "A,B",
      message: /expected an array/,
    },
    {
      kind: "a value off the enum",
      parameter: parameter("string", { enum: ["BUY"] }),
      given: "HOLD",
      message: /one of BUY/,
    },
    { kind: "whitespace", parameter: parameter("string"), given: "a b", message: /without whitespace/ },
  ])("refuses $kind", ({ parameter, given, message }) => {
    expect(() => wireText("op.p", parameter, given)).toThrow(message);
  });
});

describe("readSampleSpec", () => {
  it("reads every operation, the signing rule from x-signing and the key header from its scheme", () => {
    expect(spec.operations).toHaveLength(operationCount);
    expect(spec.baseUrl).toBe("http://127.0.0.1:8080");
    const signing = {
      algorithm: "HMAC-SHA256",
      signatureParameter: "signature",
      timestampParameter: "timestamp",
      words: { timestampUnit: "epoch milliseconds" },
    };
    const credentials = Object.fromEntries(spec.operations.map((op) => [op.operationId, op.credentials]));
    expect(credentials).toMatchObject({
      ping: { kind: "none" },
      recent_trades_list: { kind: "key-accepted", header: "X-MBX-APIKEY" },
      new_order: { kind: "signed", header: "X-MBX-APIKEY", signing },
      cancel_order: { kind: "signed", header: "X-MBX-APIKEY", signing },
      query_order: { kind: "signed", header: "X-MBX-APIKEY", signing },
    });
    const symbols = spec.operations.find((op) => op.operationId === "exchange_info")?.queryParameters[1];
    expect(symbols).toMatchObject({ name: "symbols", kind: "json", example: ["BTCUSDT", "ETHUSDT"] });
  });

  it("takes every name it writes from the spec: rename them there and the samples follow", () => {
    const renamed = edited((document) => {
      const schemes = objectAt(objectAt(document.components).securitySchemes);
      objectAt(schemes.apiKey).name = "X-OTHER-KEY";
      const signing = objectAt(objectAt(schemes.signature)["x-signing"]);
      signing.parameter = "sig";
      objectAt(signing.timestamp).parameter = "ts";
      const [server] = document.servers as JsonObject[];
      objectAt(server).variables = { base_url: { default: "http://127.0.0.1:9999" } };
    });
    for (const [id, samples] of samplesOf(addCodeSamples(renamed))) {
      for (const { label, source: text } of samples) {
        const where = `${id} ${label}`;
        expect(text, where).not.toContain("X-MBX-APIKEY");
        expect(text, where).not.toContain("8080");
        expect(text, where).toContain("http://127.0.0.1:9999");
        if (label === "TypeScript") continue; // the client reads its own operation table
        if (request(id).operation.credentials.kind === "signed") {
          expect(text, where).toContain("X-OTHER-KEY");
          expect(text, where).toMatch(/\bts=|"ts":/);
          expect(text, where).toMatch(/&sig=/);
          expect(text, where).not.toMatch(/\btimestamp\b|&signature=/);
        }
      }
    }
  });

  it.each([
    {
      fault: "an unknown signing algorithm",
      edit: (d: JsonObject) => {
        objectAt(
          objectAt(objectAt(objectAt(d.components).securitySchemes).signature)["x-signing"],
        ).algorithm = "Ed25519";
      },
      message: /x-signing\.algorithm: expected HMAC-SHA1\/224\/256\/384\/512, found "Ed25519"/,
    },
    {
      fault: "timestamps in seconds",
      edit: (d: JsonObject) => {
        const signing = objectAt(
          objectAt(objectAt(objectAt(d.components).securitySchemes).signature)["x-signing"],
        );
        objectAt(signing.timestamp).unit = "epoch seconds";
      },
      message: /x-signing\.timestamp\.unit: expected epoch milliseconds, found "epoch seconds"/,
    },
    {
      fault: "no signing rule",
      edit: (d: JsonObject) => {
        delete objectAt(objectAt(objectAt(d.components).securitySchemes).signature)["x-signing"];
      },
      message:
        /query_order: security \[\{"apiKey":\[\],"signature":\[\]\}\] is not one the code samples write/,
    },
    {
      fault: "a path parameter without an example",
      edit: (d: JsonObject) => {
        objectAt(d.paths)["/api/v3/ping/{id}"] = objectAt(d.paths)["/api/v3/ping"];
        delete objectAt(d.paths)["/api/v3/ping"];
        const ping = objectAt(objectAt(objectAt(d.paths)["/api/v3/ping/{id}"]).get);
        ping.parameters = [{ name: "id", in: "path", required: true, schema: { type: "string" } }];
      },
      message:
        /ping\.id: no sample value \(give the parameter an example in the spec, or the scenario a value\)/,
      kind: SampleScenarioError,
    },
    {
      fault: "a key in a place OpenAPI does not have",
      edit: (d: JsonObject) => {
        const schemes = objectAt(objectAt(d.components).securitySchemes);
        schemes.bodyKey = { type: "apiKey", in: "body", name: "key" };
        objectAt(objectAt(objectAt(d.paths)["/api/v3/trades"]).get).security = [{ bodyKey: [] }];
      },
      message:
        /recent_trades_list: security \[\{"bodyKey":\[\]\}\] is not one the code samples write \(bodyKey: an API key in "body"\)/,
    },
    {
      fault: "mutual TLS alone",
      edit: (d: JsonObject) => {
        objectAt(objectAt(d.components).securitySchemes).tls = { type: "mutualTLS" };
        objectAt(objectAt(objectAt(d.paths)["/api/v3/trades"]).get).security = [{ tls: [] }];
      },
      message:
        /recent_trades_list: security \[\{"tls":\[\]\}\] is not one the code samples write \(tls: mutual TLS/,
    },
  ])("names the spec's fault: $fault", ({ edit, message, kind }) => {
    expect(() => addCodeSamples(edited(edit))).toThrow(message);
    try {
      addCodeSamples(edited(edit));
    } catch (error) {
      expect(error).toBeInstanceOf(kind ?? SampleSpecError);
    }
  });
});

it("serves a spec without signed operations or order placement: the public operations alone", () => {
  const publicOnly = edited((document) => {
    const paths = objectAt(document.paths);
    for (const path of Object.keys(paths)) {
      const item = objectAt(paths[path]);
      for (const method of Object.keys(item)) {
        const security = objectAt(item[method]).security;
        if (!Array.isArray(security) || security.length > 0) delete item[method];
      }
      if (Object.keys(item).length === 0) delete paths[path];
    }
    delete objectAt(objectAt(document.components).securitySchemes).signature;
    // The relations name operations removed above (subsetDocument would prune them; this edit drops them).
    delete document["x-relations"];
  });
  const samples = samplesOf(addCodeSamples(publicOnly));
  expect([...samples.keys()]).toContain("order_book");
  expect(samples.size).toBeGreaterThan(5);
  expect(samples.has("new_order")).toBe(false);
});

describe("planRequests", () => {
  it("places a LIMIT GTC order that satisfies x-order-type-rules, in a form body", () => {
    const placing = request("new_order");
    expect(placing.placement).toBe("body");
    expect(encodedArguments(placing)).toBe(
      "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=20000&newClientOrderId=docs-sample-order",
    );
  });

  it("finds the order by its client order id, and sends the form body wherever the spec allows it", () => {
    expect(encodedArguments(request("query_order"))).toBe(
      "symbol=BTCUSDT&origClientOrderId=docs-sample-order",
    );
    expect(encodedArguments(request("cancel_order"))).toBe(
      "symbol=BTCUSDT&origClientOrderId=docs-sample-order",
    );
    for (const r of requests) {
      expect(r.placement, r.operation.operationId).toBe(r.operation.acceptsFormBody ? "body" : "query");
    }
  });

  it("sends one parameter of a mutually exclusive group: the JSON-encoded symbols", () => {
    expect(encodedArguments(request("exchange_info"))).toBe("symbols=%5B%22BTCUSDT%22%2C%22ETHUSDT%22%5D");
  });

  it("sends every required parameter", () => {
    for (const r of requests) {
      const sent = r.arguments.map((arg) => arg.parameter.name);
      for (const p of r.operation.parameters.filter((p) => p.required)) {
        expect(sent, `${r.operation.operationId} sends ${p.name}`).toContain(p.name);
      }
    }
  });

  const scenario = (order: Record<string, string | undefined>): SampleScenario => ({
    ...DEFAULT_SCENARIO,
    order: {
      ...DEFAULT_SCENARIO.order,
      params: { ...(order as Record<string, string>), newClientOrderId: "x" },
    },
  });
  it.each([
    {
      fault: "a LIMIT order without price",
      order: { side: "BUY", type: "LIMIT", timeInForce: "GTC", quantity: "1" },
      message: "new_order: the scenario's LIMIT order breaks x-order-type-rules: price is required",
    },
    {
      fault: "a MARKET order with both quantities",
      order: { side: "BUY", type: "MARKET", quantity: "1", quoteOrderQty: "1" },
      message: "exactly one of quantity, quoteOrderQty is required",
    },
    {
      fault: "an order type the rules do not know",
      order: { side: "BUY", type: "OCO" },
      message: 'the scenario\'s order type "OCO" has no entry in x-order-type-rules',
    },
    {
      fault: "a parameter the operation does not declare",
      order: { side: "BUY", type: "LIMIT", leverage: "10" },
      message: "new_order: the scenario's order sends leverage, which the operation does not declare",
    },
    {
      fault: "a price in exponent notation",
      order: { side: "BUY", type: "LIMIT", timeInForce: "GTC", quantity: "1", price: "2e4" },
      message: 'new_order.price: expected a decimal written as plain text, such as "0.001", found "2e4"',
    },
  ])("refuses $fault, saying what is wrong", ({ order, message }) => {
    expect(() => planRequests(spec, scenario(order))).toThrow(SampleScenarioError);
    expect(() => planRequests(spec, scenario(order))).toThrow(message);
  });
});

describe("sampleSequence", () => {
  const steps = sampleSequence(requests);
  const ids = steps.map((step) => `${step.request.operation.operationId}${step.repeat ? " (again)" : ""}`);

  it("runs every operation, the unsigned ones first, then the order's life", () => {
    expect(new Set(steps.map((s) => s.request.operation.operationId))).toEqual(
      new Set(spec.operations.map((op) => op.operationId)),
    );
    // Read from the spec, not listed: a new operation takes its place by what it is.
    const signed = (s: (typeof steps)[number]) => s.request.operation.credentials.kind === "signed";
    const placing = (s: (typeof steps)[number]) => s.request.operation.orderTypeRules !== undefined;
    const firstSigned = steps.findIndex((s) => signed(s) || placing(s));
    expect(
      steps.slice(firstSigned).every((s) => signed(s) || placing(s)),
      ids.join(", "),
    ).toBe(true);
    // The order is placed before anything reads or cancels it.
    expect(placing(steps[firstSigned]!), ids.join(", ")).toBe(true);
    // What names the order by its id runs while it rests; what acts on every open order runs after
    // the order is placed again.
    const again = steps.findIndex((s) => s.repeat);
    const namesOrder = (s: (typeof steps)[number]) =>
      s.request.arguments.some((a) => a.parameter.name === DEFAULT_SCENARIO.order.lookupParameter);
    for (const [i, step] of steps.entries()) {
      if (!signed(step) || placing(step)) continue;
      const reads = step.request.operation.method === "get";
      if (reads || namesOrder(step))
        expect(i, `${ids[i]} before the repeat`).toBeLessThan(again < 0 ? Infinity : again);
      else expect(i, `${ids[i]} after the order is placed again`).toBeGreaterThan(again);
    }
    expect(ids, "this spec's sequence").toContain("new_order (again)");
  });
});

describe("addCodeSamples", () => {
  const document = addCodeSamples(source);

  it("leaves its input untouched", () => {
    expect(loadOpenApi()).toEqual(source);
  });

  it("gives every operation one sample per language, in the order of Redoc's language menu", () => {
    expect(REDOC_CODE_SAMPLES.languages.map((l) => l.label)).toEqual(["curl", "TypeScript", "Python"]);
    for (const [id, samples] of samplesOf(document)) {
      expect(
        samples.map((s) => s.label),
        id,
      ).toEqual(SAMPLE_LANGUAGES.map((l) => l.label));
      for (const sample of samples) {
        expect(sample.source, `${id} ${sample.label}`).toMatch(/\n$/);
        // No number in exponent notation in the code (comments may warn about it).
        const code = sample.source
          .split("\n")
          .filter((line) => !/^\s*(#|\/\/)/.test(line))
          .map((line) => line.replace(/ {2}# .*$/, ""));
        expect(code.join("\n"), `${id} ${sample.label}`).not.toMatch(/\d[eE][+-]?\d/);
        for (const line of sample.source.split("\n").filter((l) => /^\s*(#|\/\/)/.test(l))) {
          if (!line.includes("Sends "))
            expect(line.length, `${id}: ${line}`).toBeLessThanOrEqual(COMMENT_WIDTH);
        }
      }
    }
  });

  it("explains the samples and their order after the operations overview", () => {
    const description = String(objectAt(document.info).description);
    expect(description).toContain(`## ${CODE_SAMPLES_SECTION_TITLE}`);
    expect(description).toContain("`new_order` (again) → `cancel_all_orders`");
  });

  it("matches the golden samples", async () => {
    const text = [...samplesOf(document)]
      .flatMap(([id, samples]) =>
        samples.map(({ label, source: code }) => `## ${id} · ${label}\n\n\`\`\`\n${code}\`\`\`\n`),
      )
      .join("\n");
    await expect(
      `# Code samples (generated; update with \`npx vitest run -u test/samples\`)\n\n${text}`,
    ).toMatchFileSnapshot("./golden/code-samples.md");
  });
});

describe("commentLines", () => {
  it.each([
    { given: ["short"], want: ["# short"] },
    { given: ["a ".repeat(40).trim()], want: [`# ${"a ".repeat(29).trim()}`, `# ${"a ".repeat(11).trim()}`] },
    { given: ["one", "two"], want: ["# one", "# two"] },
  ])("$given.0 → $want.length lines", ({ given, want }) => {
    expect(commentLines("#", given)).toEqual(want);
  });
});

describe("TypeScript samples of a spec other than this repository's", () => {
  const fork = edited((document) => {
    objectAt(document.paths)["/api/v3/notes/{noteId}"] = {
      get: {
        operationId: "notes.get",
        parameters: [{ name: "noteId", in: "path", required: true, schema: { type: "integer" }, example: 7 }],
        responses: { "200": { description: "The note." } },
      },
    };
  });
  const typescriptOf = (options: SampleOptions) =>
    samplesOf(addCodeSamples(fork, DEFAULT_SCENARIO, { languages: ["TypeScript"], ...options }))
      .get("notes.get")
      ?.at(0)?.source ?? "";

  it.each([
    { given: {}, want: "./generated/client.gen.js" },
    { given: { typescriptClient: "./api/client.gen.js" }, want: "./api/client.gen.js" },
  ])("import the generated client from $want", ({ given, want }) => {
    const source = typescriptOf({ tested: false, ...given });
    expect(source).toContain(`import { spotApi } from "${want}";`);
    expect(source).toContain("createApiClient(spotApi, {");
    expect(source).toContain("await client.notesGet({ noteId: 7 })");
  });

  it("this repository's build calls the spot client instead", () => {
    expect(typescriptOf({ tested: true })).toContain("createSpotClient({");
  });
});

describe("marketapi-docs build --client-module", () => {
  it.each([
    { given: [], want: undefined },
    { given: ["--client-module", "./api/client.gen.js"], want: "./api/client.gen.js" },
  ])("$given → $want", ({ given, want }) => {
    const options = parseCommand(["build", "--spec", "s.yaml", "--out", "site", ...given]);
    expect(options).not.toBe("help");
    expect(options === "help" ? undefined : options.clientModule).toBe(want);
  });
});
