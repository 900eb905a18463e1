import { describe, expect, expectTypeOf, it } from "vitest";
import { type Endpoint, type EndpointTypes, isEndpoint, validateEndpoint } from "../src/index.js";
import { endpointSchema, faults, invalidEndpoints, validEndpoints } from "./support.js";

const minimal = {
  resourceType: "Endpoint",
  connectionType: { code: "hl7-fhir-rest" },
  payloadType: [{ text: "any" }],
};

describe("valid Endpoint fixtures", () => {
  const fixtures = validEndpoints();

  it("include the four FHIR R4 examples", () => {
    const ids = fixtures.map((f) => (f.data as { id?: string }).id);
    expect(ids).toEqual(
      expect.arrayContaining(["example", "example-iid", "example-wadors", "direct-endpoint"]),
    );
  });

  it.each(fixtures)("$file is valid", ({ data }) => {
    expect(validateEndpoint(data)).toEqual({ valid: true });
    expect(isEndpoint(data)).toBe(true);
  });
});

describe("invalid Endpoint fixtures", () => {
  const fixtures = invalidEndpoints();

  it("include the three R5-shaped examples", () => {
    expect(fixtures.filter((f) => f.file.startsWith("r5-")).map((f) => f.file)).toHaveLength(3);
  });

  it.each(fixtures)("$file fails at exactly its expected paths", ({ data, paths }) => {
    const result = validateEndpoint(data);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect([...new Set(result.errors.map((e) => e.path))].sort()).toEqual(paths);
    expect(isEndpoint(data)).toBe(false);
  });

  it.each(fixtures)(
    "$file: every error has a pointer, a rule and a message that names the place",
    ({ data }) => {
      const result = validateEndpoint(data);
      if (result.valid) throw new Error("expected invalid");
      for (const error of result.errors) {
        expect(error.path).toMatch(/^(\/[^/]*)*$/);
        expect(error.rule).toMatch(/^[a-zA-Z -]+$/);
        expect(error.message.startsWith(error.path === "" ? "the Endpoint " : `${error.path} `)).toBe(true);
      }
    },
  );
});

describe("messages", () => {
  it.each([
    {
      given: { ...minimal, payloadMimeType: [" application/fhir+json"] },
      want: {
        path: "/payloadMimeType/0",
        rule: "pattern",
        message: "/payloadMimeType/0 must be a media type without leading, trailing or repeated whitespace",
      },
    },
    {
      given: { ...minimal, connectionType: [{ code: "x" }] },
      want: { path: "/connectionType", rule: "type", message: "/connectionType must be an object" },
    },
    {
      given: { ...minimal, connectionType: { code: "x", text: "y" } },
      want: {
        path: "/connectionType/text",
        rule: "additionalProperties",
        message: "/connectionType/text is not a property of Coding",
      },
    },
    {
      given: { ...minimal, payload: [] },
      want: {
        path: "/payload",
        rule: "additionalProperties",
        message: "/payload is not a property of Endpoint",
      },
    },
    {
      given: { ...minimal, status: "retired" },
      want: {
        path: "/status",
        rule: "enum",
        message: '/status must be one of "active", "suspended", "error", "off", "entered-in-error" or "test"',
      },
    },
    {
      given: { ...minimal, resourceType: "Patient" },
      want: { path: "/resourceType", rule: "const", message: '/resourceType must be "Endpoint"' },
    },
    {
      given: { ...minimal, name: "" },
      want: { path: "/name", rule: "minLength", message: "/name must not be empty" },
    },
    {
      given: { ...minimal, id: "a b" },
      want: {
        path: "/id",
        rule: "pattern",
        message: "/id must be 1 to 64 characters from A-Z, a-z, 0-9, '-' and '.'",
      },
    },
    {
      given: [minimal],
      want: { path: "", rule: "type", message: "the Endpoint must be an object" },
    },
  ])("$want.message", ({ given, want }) => {
    expect(validateEndpoint(given)).toEqual({ valid: false, errors: faults([want]) });
  });

  it("reports a missing required field at the field's own pointer", () => {
    const { payloadType: _, ...rest } = minimal;
    expect(validateEndpoint(rest)).toEqual({
      valid: false,
      errors: faults([{ path: "/payloadType", rule: "required", message: "/payloadType is required" }]),
    });
  });

  it("reports every fault, not only the first", () => {
    const result = validateEndpoint({ ...minimal, name: "", payloadMimeType: ["a  b"], foo: 1 });
    expect(result.valid ? [] : result.errors.map((e) => e.path).sort()).toEqual([
      "/foo",
      "/name",
      "/payloadMimeType/0",
    ]);
  });

  it("escapes ~ and / in the pointers of unknown properties", () => {
    const result = validateEndpoint({ ...minimal, "a/b~c": 1 });
    expect(result.valid ? [] : result.errors.map((e) => e.path)).toEqual(["/a~1b~0c"]);
  });
});

describe("the Endpoint type", () => {
  it("narrows with isEndpoint", () => {
    const data: unknown = minimal;
    if (isEndpoint(data)) {
      expectTypeOf(data).toEqualTypeOf<Endpoint>();
      expect(data.connectionType.code).toBe("hl7-fhir-rest");
    } else {
      throw new Error("expected an Endpoint");
    }
  });

  // The property names of the schema, written out once: the type test below fails to compile
  // when the generated type drifts from this list, the run-time test when the schema does.
  const schemaProperties = [
    "resourceType",
    "id",
    "meta",
    "implicitRules",
    "_implicitRules",
    "language",
    "_language",
    "text",
    "contained",
    "extension",
    "modifierExtension",
    "identifier",
    "status",
    "_status",
    "connectionType",
    "name",
    "_name",
    "managingOrganization",
    "contact",
    "period",
    "payloadType",
    "payloadMimeType",
    "_payloadMimeType",
    "address",
    "_address",
    "header",
    "_header",
  ] as const;

  it("has exactly the schema's properties, required where the schema requires them", () => {
    expectTypeOf<keyof Endpoint>().toEqualTypeOf<(typeof schemaProperties)[number]>();
    expect(Object.keys(endpointSchema.properties).sort()).toEqual([...schemaProperties].sort());
    expectTypeOf<Endpoint["resourceType"]>().toEqualTypeOf<"Endpoint">();
    expectTypeOf<Endpoint["connectionType"]>().toEqualTypeOf<EndpointTypes.Coding>();
    expectTypeOf<Endpoint["payloadType"]>().toEqualTypeOf<EndpointTypes.CodeableConcept[]>();
    expectTypeOf<Endpoint["status"]>().toEqualTypeOf<
      "active" | "suspended" | "error" | "off" | "entered-in-error" | "test" | undefined
    >();
    expectTypeOf<Endpoint["payloadMimeType"]>().toEqualTypeOf<string[] | undefined>();
  });

  it("accepts the valid fixtures as typed values", () => {
    const typed: Endpoint[] = validEndpoints()
      .map((f) => f.data)
      .filter(isEndpoint);
    expect(typed).toHaveLength(validEndpoints().length);
  });
});
