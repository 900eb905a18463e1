// The path to a new operation (docs/architecture.md, "How to add an operation"), enforced: every
// operation of the spec is known to each hand-written place that must know it, and every place
// that is derived from the spec handles it. A dummy operation added to a scratch copy of the spec
// shows each failure: the test names every place still missing, as the extension-completeness test
// does for extensions, and the number of hand-written files the doc states is the number it finds.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { planRequests } from "../../packages/docs/src/samples/sample-requests.js";
import { readSampleSpec } from "../../packages/docs/src/samples/sample-spec.js";
import { createHandlers } from "../../packages/reference-server/src/http/handlers.js";
import { buildSpecModel, type Operation } from "../../packages/spec/src/model/index.js";
import { seedOperations } from "../../packages/spec/test/data/seed-000.js";
import { planRequest } from "../../packages/toolchain-compat/src/drivers/driver.js";
import { root } from "../workspace-packages.mjs";

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked generically
type Document = any;

/** A hand-written place a new operation must be added to, and how to tell whether it is. */
interface HandWrittenPlace {
  file: string;
  /** What to add there. */
  add: string;
  knows(operation: Operation): boolean;
}

const handlerIds = new Set(Object.keys(createHandlers({ exchange: {}, rateLimiter: {} } as never)));
const serverClientTest = readFileSync(join(root, "packages/reference-server/test/client.test.ts"), "utf8");

const HAND_WRITTEN: readonly HandWrittenPlace[] = [
  {
    file: "packages/spec/test/data/seed-000.ts",
    add: "its row of the source document's tables (an operation the source does not list cannot be added; see specs/README.md)",
    knows: (op) => seedOperations.some((seed) => seed.operationId === op.operationId),
  },
  {
    file: "packages/reference-server/src/http/handlers.ts",
    add: "its handler in createHandlers (new exchange behaviour goes in src/engine/); without one the server refuses to start",
    knows: (op) => handlerIds.has(op.operationId),
  },
  {
    file: "packages/reference-server/test/client.test.ts",
    add: 'a call through @marketapi/client ("called every operation of the spec" fails without it)',
    knows: (op) => serverClientTest.includes(`.${op.operationId}(`),
  },
];

/**
 * Places derived from the spec: each must handle any operation; a failure says what it lacks (its
 * own message names the operation and the parameter).
 */
const DERIVED: readonly {
  name: string;
  handles(document: Document, model: ReturnType<typeof buildSpecModel>): void;
}[] = [
  {
    name: "toolchain-compat's generic drivers (src/drivers/driver.ts planRequest)",
    handles: (_document, model) => {
      const context = { baseUrl: "", apiKey: "", apiSecret: "", symbol: "BTCUSDT", orderId: 1 };
      for (const operation of model.operations) planRequest(operation, context);
    },
  },
  {
    name: "the docs' code samples (src/samples/sample-requests.ts planRequests)",
    handles: (document) => void planRequests(readSampleSpec(document)),
  },
];

/** Everything still missing for the operations of `document`, one line each. */
function operationProblems(document: Document): string[] {
  const model = buildSpecModel(document);
  const problems: string[] = [];
  for (const operation of model.operations) {
    for (const place of HAND_WRITTEN) {
      if (!place.knows(operation))
        problems.push(`${operation.operationId}: add to ${place.file}: ${place.add}`);
    }
  }
  for (const place of DERIVED) {
    try {
      place.handles(document, model);
    } catch (error) {
      problems.push(`${place.name} cannot handle the spec: ${(error as Error).message}`);
    }
  }
  return [...new Set(problems)];
}

const source: Document = parse(readFileSync(join(root, "specs", "spot-api.openapi.yaml"), "utf8"));

/** A scratch copy of the spec with one more operation: GET /api/v3/dummyThing, a market-data read. */
function withDummyOperation(): Document {
  const document = structuredClone(source);
  const depth = document.paths["/api/v3/depth"].get;
  document.paths["/api/v3/dummyThing"] = {
    get: {
      operationId: "dummy_thing",
      summary: "A dummy operation",
      tags: depth.tags,
      "x-auth-class": "none",
      "x-weight": 1,
      security: [],
      parameters: [{ $ref: "#/components/parameters/SymbolRequired" }],
      responses: {
        "200": {
          description: "The server time, as a stand-in answer.",
          content: {
            "application/json": {
              schema: { $ref: "#/components/schemas/ServerTime" },
              example: { serverTime: 1499827319559 },
            },
          },
        },
        "400": depth.responses["400"],
      },
    },
  };
  return document;
}

describe("the operations of the spec", () => {
  it("are each known to every hand-written place that must know them, and handled by every derived one", () => {
    expect(operationProblems(source)).toEqual([]);
  });

  it("a dummy operation in a scratch copy of the spec: the test names every place still missing", () => {
    expect(operationProblems(withDummyOperation())).toEqual([
      "dummy_thing: add to packages/spec/test/data/seed-000.ts: its row of the source document's tables (an operation the source does not list cannot be added; see specs/README.md)",
      "dummy_thing: add to packages/reference-server/src/http/handlers.ts: its handler in createHandlers (new exchange behaviour goes in src/engine/); without one the server refuses to start",
      'dummy_thing: add to packages/reference-server/test/client.test.ts: a call through @marketapi/client ("called every operation of the spec" fails without it)',
    ]);
  });

  it("a derived place that cannot handle an operation says so, naming it (a required parameter without an example)", () => {
    const document = withDummyOperation();
    document.paths["/api/v3/dummyThing"].get.parameters.push({
      name: "level",
      in: "query",
      required: true,
      schema: { type: "integer" },
    });
    const derived = operationProblems(document).filter((line) => line.includes("cannot handle"));
    expect(derived).toEqual([
      "toolchain-compat's generic drivers (src/drivers/driver.ts planRequest) cannot handle the spec: dummy_thing: no value for level: give the parameter an example in the spec",
      expect.stringMatching(
        /^the docs' code samples .* cannot handle the spec: dummy_thing\.level: no sample value/,
      ),
    ]);
  });

  it("docs/architecture.md states as many hand-written files as the path has: the spec, each place above, a changeset", () => {
    const doc = readFileSync(join(root, "docs", "architecture.md"), "utf8");
    const stated = /### How to add an operation \((\d+) files/.exec(doc)?.[1];
    expect(Number(stated)).toBe(1 + HAND_WRITTEN.length + 1);
    expect(Number(stated)).toBeLessThanOrEqual(8);
    for (const place of HAND_WRITTEN) expect(doc, place.file).toContain(place.file);
  });
});
