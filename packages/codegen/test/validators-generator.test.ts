import { SpecError } from "@marketapi/spec-loader";
import { describe, expect, it } from "vitest";
import { fileHeader } from "../src/generated-file.js";
import { generateValidators } from "../src/validators/generate-validators.js";
import { expectationOf, humanize, schemaPathOf } from "../src/validators/message-hints.js";
import { cleanSchema } from "../src/validators/openapi-keywords.js";
import { compactErrorPushes } from "../src/validators/standalone.js";
import { FIXTURE_COMMAND, fixtureEndpointSchema, fixtureModel, fixtureText } from "./validators-support.js";

const context = { command: FIXTURE_COMMAND, strictSchemas: true };
const generateFixture = (text?: string) =>
  generateValidators(fixtureModel(text), context, { endpointSchema: fixtureEndpointSchema() });

function specErrorOf(run: () => unknown): SpecError {
  try {
    run();
  } catch (error) {
    if (error instanceof SpecError) return error;
    throw error;
  }
  throw new Error("expected a SpecError");
}

describe("output files", () => {
  const files = generateFixture();

  it("are named validators* or endpoint*, and each starts with the generated-file header", () => {
    const header = fileHeader("validators", "fixture.openapi.yaml", context);
    expect(files.map((f) => f.path).sort()).toEqual([
      "endpoint-validator.gen.ts",
      "endpoint.gen.ts",
      "validators-code.gen.ts",
      "validators-runtime.gen.ts",
      "validators.gen.ts",
    ]);
    for (const file of files) expect(file.contents.startsWith(header), file.path).toBe(true);
  });

  it("need nothing at run time but each other: no require, no ajv, no code evaluation", () => {
    for (const file of files) {
      expect(file.contents, file.path).not.toMatch(/\brequire\s*\(|\bnew Function\b|\beval\s*\(/);
      const imports = [...file.contents.matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
      expect(
        imports.every((i) => /^\.\/(validators|endpoint)[a-z-]*\.gen\.js$/.test(i!)),
        file.path,
      ).toBe(true);
    }
  });

  it("leave annotations and extensions out of the compiled code", () => {
    const code = files.find((f) => f.path === "validators-code.gen.ts")!.contents;
    for (const word of ["example", "deprecated", "x-note", "discriminator", "description", "mapping"]) {
      expect(code).not.toContain(`"${word}"`);
    }
  });

  it("write every error's schemaPath relative to the compiled document", () => {
    for (const name of ["validators-code.gen.ts", "endpoint-validator.gen.ts"]) {
      const code = files.find((f) => f.path === name)!.contents;
      const paths = [...code.matchAll(/schemaPath:"([^"]*)"/g)].map((m) => m[1]!);
      expect(paths.length).toBeGreaterThan(10);
      if (name === "validators-code.gen.ts")
        expect(paths.filter((p) => !p.startsWith("#/$defs/"))).toEqual([]);
      else
        expect(
          paths.filter((p) => !/^#\/(\$defs|properties|required|type|additionalProperties)/.test(p)),
        ).toEqual([]);
    }
  });

  it("record where union branches start, for anyOf and oneOf", () => {
    const code = files.find((f) => f.path === "validators-code.gen.ts")!.contents;
    expect(code).toMatch(
      /keyword:"oneOf",params:\{passingSchemas: passing\d+, branchErrors: \[errors - _branch\d+, errors - _branch\d+\]\}/,
    );
    expect(code).toMatch(
      /keyword:"anyOf",params:\{branchErrors: \[errors - _branch\d+, errors - _branch\d+\]\}/,
    );
  });
});

describe("ajv's error records, compacted", () => {
  const recorded = (read: string) =>
    `\nconst err0 = {keyword:"type"};\nif(vErrors === null){\nvErrors = [err0];\n}\nelse {\nvErrors.push(err0);\n}\nerrors++;${read}`;
  it.each([
    {
      given: "an error object used only where it is recorded",
      code: recorded(""),
      want: '\n(vErrors ??= []).push({keyword:"type"});\nerrors++;',
    },
    {
      given: "an error object read again afterwards",
      code: recorded("\nreport(err0);"),
      want: '\nconst err0 = {keyword:"type"};\n(vErrors ??= []).push(err0);\nerrors++;\nreport(err0);',
    },
  ])("$given", ({ code, want }) => {
    expect(compactErrorPushes(code)).toBe(want);
  });

  it("declare each export's type, so that TypeScript needs not infer it from the code", () => {
    for (const name of ["validators-code.gen.ts", "endpoint-validator.gen.ts"]) {
      const code = generateFixture().find((f) => f.path === name)!.contents;
      const exports = code.split("\n").filter((line) => line.startsWith("export "));
      expect(exports.length).toBeGreaterThan(0);
      expect(
        exports.filter((line) => !/^export const \w+: CompiledValidator = compiled\.\w+;$/.test(line)),
      ).toEqual([]);
    }
  });
});

describe("what the generator refuses, with a pointer into the spec", () => {
  it("reports every fault of the spec at once, not the first", () => {
    const text = fixtureText()
      .replace("      pattern: ^[A-Z]{2,10}$", "      pattern: ^[A-Z]{2,10}$\n      maxLenght: 3")
      .replace(
        "      required: [code]\n",
        "      required: [code]\n      minProperties: 1\n      maxPropertys: 3\n",
      );
    const error = specErrorOf(() => generateFixture(text));
    expect(error.all().map((fault) => fault.pointer)).toEqual([
      "/components/schemas/Symbol/maxLenght",
      "/components/schemas/Error/maxPropertys",
    ]);
  });

  it("takes a format it does not check (email) as an annotation, as JSON Schema 2020-12 does", () => {
    const files = generateFixture(fixtureText().replace("format: uuid", "format: email"));
    expect(files.find((f) => f.path === "validators-code.gen.ts")!.contents).not.toContain("email");
  });

  it.each([
    {
      given: "an OpenAPI 3.0 nullable",
      edit: (t: string) =>
        t.replace("      pattern: ^[A-Z]{2,10}$", "      pattern: ^[A-Z]{2,10}$\n      nullable: true"),
      pointer: "/components/schemas/Symbol/nullable",
    },
    {
      given: "an unknown keyword",
      edit: (t: string) =>
        t.replace("      pattern: ^[A-Z]{2,10}$", "      pattern: ^[A-Z]{2,10}$\n      maxLenght: 3"),
      pointer: "/components/schemas/Symbol/maxLenght",
    },
    {
      given: "an order-type rule naming an unknown parameter",
      edit: (t: string) => t.replace("required: [amount]", "required: [amuont]"),
      pointer: "/paths/~1orders/post/x-order-type-rules/A/required/0",
    },
    {
      given: "rules whose keys are no parameter's values",
      edit: (t: string) =>
        t.replace("        C:\n          exactlyOneOf", "        D:\n          exactlyOneOf"),
      pointer: "/paths/~1orders/post/x-order-type-rules",
    },
    {
      given: "a response variant that does not resolve",
      edit: (t: string) =>
        t.replace('LONG: "#/components/schemas/Long"', 'LONG: "#/components/schemas/Longer"'),
      pointer: "/paths/~1orders/post/x-response-variant-by/variants/LONG",
    },
    {
      given: "a $ref outside components.schemas",
      edit: (t: string) =>
        t.replace('$ref: "#/components/schemas/Amount"\n    Error', '$ref: "#/paths"\n    Error'),
      pointer: "/components/schemas/Long/allOf/1/properties/amount/$ref",
    },
    {
      given: "a schema ajv's strict mode rejects (required property not declared)",
      edit: (t: string) => t.replace("      required: [code]\n", "      required: [code, reason]\n"),
      pointer: "/components/schemas/Error",
    },
  ])("$given", ({ edit, pointer }) => {
    const text = edit(fixtureText());
    expect(text).not.toBe(fixtureText());
    const error = specErrorOf(() => generateFixture(text));
    expect(error.pointer).toBe(pointer);
    expect(error.message).toMatch(/^fixture\.openapi\.yaml#/);
  });
});

describe("keywords", () => {
  const options = { source: "s", pointer: "", rewriteRef: (ref: string) => ref };

  it("keeps properties named like annotations", () => {
    const schema = {
      type: "object",
      description: "d",
      properties: { description: { type: "string", example: "x" } },
    };
    expect(cleanSchema(schema, options)).toEqual({
      type: "object",
      properties: { description: { type: "string" } },
    });
  });

  it("keeps $id and $schema on a document root, refuses an $id elsewhere", () => {
    const root = {
      $id: "https://x.test/a",
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "string",
    };
    expect(cleanSchema(root, { ...options, root: true })).toEqual(root);
    const { $id: _, ...withoutId } = root;
    expect(cleanSchema(withoutId, options)).toEqual({ type: "string" });
    expect(() => cleanSchema({ properties: { a: root } }, { ...options, root: true })).toThrow(
      /no \$id here/,
    );
  });
});

describe("message hints", () => {
  it.each([
    { name: "ClientOrderId", want: "client order id" },
    { name: "dateTime", want: "date time" },
    { name: "uri", want: "URI" },
    { name: "PriceLevel", want: "price level" },
  ])("humanizes $name", ({ name, want }) => {
    expect(humanize(name)).toBe(want);
  });

  it.each([
    {
      node: {
        type: "string",
        pattern: "^[^\\s]+(?:\\s[^\\s]+)*$",
        description: "A media type, for example x/y.",
      },
      want: "a media type without leading, trailing or repeated whitespace",
    },
    {
      node: {
        type: "string",
        pattern: "^[a-z]{3}$",
        description: "FHIR thing: three lower-case letters. More.",
      },
      want: "three lower-case letters",
    },
    {
      node: { type: "string", pattern: "^[A-Z]+$", example: "ABC" },
      name: "Symbol",
      want: 'a symbol string such as "ABC"',
    },
    { node: { type: "string", pattern: "^[A-Z]+$" }, want: "a string matching ^[A-Z]+$" },
    {
      node: { type: "string", format: "date-time" },
      want: 'an RFC 3339 date-time such as "2024-01-01T00:00:00Z"',
    },
    { node: { type: "integer", example: 28 }, name: "OrderIdValue", want: "an order id value such as 28" },
    { node: { type: "integer", format: "int64" }, want: undefined },
    { node: { type: "object", example: {} }, want: undefined },
  ])("describes $node", ({ node, name, want }) => {
    expect(expectationOf(node, name)).toBe(want);
  });

  it("writes schema paths as ajv does: keywords as they are, property names escaped", () => {
    expect(schemaPathOf("#", ["$defs", "a.b", "properties", "x/y~", "items"])).toBe(
      "#/$defs/a.b/properties/x~1y~0/items",
    );
    expect(schemaPathOf("#", ["patternProperties", "^a(b|c)$", "allOf", 0])).toBe(
      "#/patternProperties/%5Ea(b%7Cc)%24/allOf/0",
    );
    expect(schemaPathOf("#", ["properties", "properties", "properties", "$defs"])).toBe(
      "#/properties/properties/properties/%24defs",
    );
  });
});
