// buildModel: what the generators rely on, and the error (pointer, expected, found) for each fault.

import { parseSpecText, SpecError } from "@marketapi/spec-loader";
import { describe, expect, it } from "vitest";
import { selectOperations } from "../src/spec-input/select-operations.js";
import { buildModel } from "../src/spec-input/spec-model.js";

const minimal = () => ({
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {
    "/api/v3/ping": {
      get: { operationId: "ping", "x-auth-class": "none", responses: { "200": { description: "ok" } } },
    },
  },
});

type Mutation = (doc: ReturnType<typeof minimal> & Record<string, unknown>) => void;

const faults: { name: string; given: Mutation; want: { pointer: string; expected: RegExp } }[] = [
  {
    name: "OpenAPI 3.0 document",
    given: (d) => {
      d.openapi = "3.0.3";
    },
    want: { pointer: "/openapi", expected: /OpenAPI 3\.1/ },
  },
  {
    name: "missing paths",
    given: (d) => {
      delete (d as Record<string, unknown>).paths;
    },
    want: { pointer: "/paths", expected: /paths object/ },
  },
  {
    name: "missing operationId",
    given: (d) => {
      (d.paths["/api/v3/ping"].get as Record<string, unknown>).operationId = 12;
    },
    want: { pointer: "/paths/~1api~1v3~1ping/get/operationId", expected: /operationId/ },
  },
  {
    name: "an operationId of blanks",
    given: (d) => {
      d.paths["/api/v3/ping"].get.operationId = "  ";
    },
    want: { pointer: "/paths/~1api~1v3~1ping/get/operationId", expected: /an operationId/ },
  },
  {
    name: "unknown x-auth-class",
    given: (d) => {
      d.paths["/api/v3/ping"].get["x-auth-class"] = "admin";
    },
    want: {
      pointer: "/paths/~1api~1v3~1ping/get/x-auth-class",
      expected: /none, market_data, trade, user_data/,
    },
  },
  {
    name: "signed operation whose security does not name the signing scheme",
    given: (d) => {
      d.components = {
        securitySchemes: {
          signature: {
            type: "apiKey",
            in: "query",
            name: "signature",
            "x-signing": {
              algorithm: "HMAC-SHA256",
              parameter: "signature",
              timestamp: { parameter: "timestamp" },
            },
          },
        },
      };
      d.paths["/api/v3/ping"].get["x-auth-class"] = "user_data";
    },
    want: { pointer: "/paths/~1api~1v3~1ping/get/security", expected: /signing scheme \(signature\)/ },
  },
  {
    name: "duplicate operationId",
    given: (d) => {
      (d.paths as Record<string, unknown>)["/api/v3/time"] = { get: { ...d.paths["/api/v3/ping"].get } };
    },
    want: { pointer: "/paths/~1api~1v3~1time/get/operationId", expected: /not used elsewhere/ },
  },
  {
    name: "unresolvable parameter $ref",
    given: (d) => {
      (d.paths["/api/v3/ping"].get as Record<string, unknown>).parameters = [
        { $ref: "#/components/parameters/Nope" },
      ];
    },
    want: { pointer: "/paths/~1api~1v3~1ping/get/parameters/0", expected: /\$ref that resolves/ },
  },
  {
    name: "bad status code",
    given: (d) => {
      (d.paths["/api/v3/ping"].get.responses as Record<string, unknown>)["20"] = { description: "x" };
    },
    want: { pointer: "/paths/~1api~1v3~1ping/get/responses/20", expected: /status code/ },
  },
];

describe("buildModel faults", () => {
  it.each(faults)("$name", ({ given, want }) => {
    const document = minimal();
    given(document);
    try {
      buildModel({ source: "spec.yaml", document });
      expect.unreachable("buildModel accepted a faulty spec");
    } catch (error) {
      expect(error).toBeInstanceOf(SpecError);
      const e = error as SpecError;
      expect(e.pointer).toBe(want.pointer);
      expect(e.expected).toMatch(want.expected);
      expect(e.message.startsWith(`spec.yaml#${want.pointer}: expected `)).toBe(true);
    }
  });
});

describe("buildModel on a good spec", () => {
  it("models operations, parameters and responses", () => {
    const document = minimal();
    Object.assign(document.paths["/api/v3/ping"].get, {
      parameters: [
        { name: "symbol", in: "query", required: true, schema: { type: "string" } },
        { name: "symbols", in: "query", content: { "application/json": { schema: { type: "array" } } } },
      ],
    });
    const model = buildModel({ source: "s", document });
    expect(model.operations).toHaveLength(1);
    const [op] = model.operations;
    expect(op).toMatchObject({ operationId: "ping", method: "get", path: "/api/v3/ping", authClass: "none" });
    expect(op?.parameters.map((p) => [p.name, p.required, p.encoding])).toEqual([
      ["symbol", true, "plain"],
      ["symbols", false, "json"],
    ]);
    expect(op?.responses.map((r) => r.status)).toEqual(["200"]);
  });

  it("selectOperations keeps the named ones and names unknown ones", () => {
    const model = buildModel({ source: "s", document: minimal() });
    expect(selectOperations(model, ["ping"]).operations).toHaveLength(1);
    expect(() => selectOperations(model, ["nope", "pnig"])).toThrow(
      '--operations: s has no operation "nope", no operation "pnig" (did you mean "ping"?); its operationIds: ping',
    );
  });
});

describe("parseSpecText", () => {
  it.each([
    ["openapi: [", /syntax error/],
    ["42", /OpenAPI 3.1 object at the top level, found 42/],
    ["a: 1\na: 2", /syntax error/],
  ])("%j is rejected", (text, want) => {
    expect(() => parseSpecText("x.yaml", text)).toThrow(want);
  });
});
