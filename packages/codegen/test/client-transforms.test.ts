// The client generator's document transforms and source helpers, given/want style.

import type { OpenApiDocument } from "@marketapi/spec-loader";
import { describe, expect, it } from "vitest";
import { exposeJsonParameterSchemas } from "../src/client/json-parameters.js";
import { docComment, propertyKey, stringArray } from "../src/client/typescript-source.js";
import { selectOperations, subsetDocument } from "../src/spec-input/select-operations.js";
import { buildModel } from "../src/spec-input/spec-model.js";

const ok = { "200": { description: "ok" } };
const op = (operationId: string, extra: OpenApiDocument = {}) => ({
  operationId,
  "x-auth-class": "none",
  responses: ok,
  ...extra,
});

describe("subsetDocument", () => {
  const document: OpenApiDocument = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/a": {
        summary: "path item fields stay",
        get: op("a", {
          responses: {
            "200": {
              description: "ok",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Pet" } } },
            },
          },
        }),
        post: op("a_post", { requestBody: { $ref: "#/components/requestBodies/Form" } }),
      },
      "/b": { get: op("b", { parameters: [{ $ref: "#/components/parameters/P" }] }) },
    },
    components: {
      securitySchemes: { key: { type: "apiKey", in: "header", name: "K" } },
      parameters: { P: { name: "p", in: "query", schema: { $ref: "#/components/schemas/Str" } } },
      requestBodies: { Form: { content: { "application/json": { schema: { type: "object" } } } } },
      schemas: {
        Pet: {
          oneOf: [{ $ref: "#/components/schemas/Cat" }],
          discriminator: { propertyName: "kind", mapping: { dog: "#/components/schemas/Dog" } },
        },
        Cat: { type: "object", properties: { owner: { $ref: "#/components/schemas/Person" } } },
        Dog: { type: "object" },
        Person: { type: "object" },
        Str: { type: "string" },
      },
    },
  };
  const model = buildModel({ source: "t", document });

  it("returns an equal copy when every operation is kept", () => {
    const copy = subsetDocument(model);
    expect(copy).toEqual(document);
    expect(copy).not.toBe(document);
  });

  it("keeps the selected methods and what they reach through $refs and discriminator mappings", () => {
    const subset = subsetDocument(selectOperations(model, ["a"]));
    expect(Object.keys(subset.paths)).toEqual(["/a"]);
    expect(Object.keys(subset.paths["/a"])).toEqual(["summary", "get"]);
    expect(Object.keys(subset.components.schemas).sort()).toEqual(["Cat", "Dog", "Person", "Pet"]);
    expect(subset.components.parameters).toBeUndefined();
    expect(subset.components.requestBodies).toBeUndefined();
    expect(subset.components.securitySchemes).toEqual(document.components.securitySchemes);
  });

  it("follows parameters to their schemas", () => {
    const subset = subsetDocument(selectOperations(model, ["b"]));
    expect(Object.keys(subset.components.schemas)).toEqual(["Str"]);
    expect(Object.keys(subset.components.parameters)).toEqual(["P"]);
  });
});

describe("exposeJsonParameterSchemas", () => {
  it("gives content parameters their schema, wherever they are declared", () => {
    const array = { type: "array", items: { type: "string" } };
    const json = (name: string) => ({
      name,
      in: "query",
      content: { "application/json": { schema: array } },
    });
    const document: OpenApiDocument = {
      paths: {
        "/a": { parameters: [json("onPath")], get: { parameters: [json("onOperation"), { $ref: "#/x" }] } },
      },
      components: { parameters: { Shared: json("shared") } },
    };
    exposeJsonParameterSchemas(document);
    expect(document.paths["/a"].parameters[0]).toEqual({ name: "onPath", in: "query", schema: array });
    expect(document.paths["/a"].get.parameters).toEqual([
      { name: "onOperation", in: "query", schema: array },
      { $ref: "#/x" },
    ]);
    expect(document.components.parameters.Shared).toEqual({ name: "shared", in: "query", schema: array });
  });
});

describe("source helpers", () => {
  it.each([
    ["order_book", "order_book"],
    ["$ok", "$ok"],
    ["with-dash", '"with-dash"'],
    ["1st", '"1st"'],
  ])("propertyKey(%j) is %s", (given, want) => {
    expect(propertyKey(given)).toBe(want);
  });

  it("defuses comment terminators and keeps empty lines in doc comments", () => {
    expect(docComment(["a */ b", "", "c"], "  ")).toBe("  /**\n   * a *\\/ b\n   *\n   * c\n   */");
  });

  it("breaks string arrays that do not fit on one line, as Biome does", () => {
    expect(stringArray(["a", "b"], "  list: ", ",")).toBe('  list: ["a", "b"],');
    const long = Array.from({ length: 12 }, (_, i) => `parameter${i}`);
    expect(stringArray(long, "  list: ", ",").split("\n")).toEqual([
      "  list: [",
      ...long.map((v) => `    "${v}",`),
      "  ],",
    ]);
  });
});
