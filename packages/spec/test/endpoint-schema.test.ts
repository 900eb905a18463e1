import { describe, expect, it } from "vitest";
import {
  compileEndpointValidator,
  createAjv,
  faultPointers,
  LINEAR_MIME_TYPE_PATTERN,
  loadEndpointSchema,
  loadInvalidFixtures,
  loadValidFixtures,
  resolveLocalRef,
  type SchemaNode,
  shapeOf,
  walkSchema,
} from "./support/endpoint-schema-support.js";

const schema = loadEndpointSchema();
const properties = schema.properties as Record<string, SchemaNode>;
const defs = schema.$defs as Record<string, SchemaNode>;
const validate = compileEndpointValidator();

// The source document's field table (section 2), transcribed once. `type` uses the
// document's own words: "string", a datatype name, or "X[]" for "array of X".
const SEED_FIELDS: ReadonlyArray<{ field: string; type: string; required: boolean }> = [
  { field: "resourceType", type: "string", required: true },
  { field: "identifier", type: "Identifier[]", required: false },
  { field: "status", type: "string", required: false },
  { field: "connectionType", type: "Coding", required: true },
  { field: "name", type: "string", required: false },
  { field: "managingOrganization", type: "Reference", required: false },
  { field: "contact", type: "ContactPoint[]", required: false },
  { field: "period", type: "Period", required: false },
  { field: "payloadType", type: "CodeableConcept[]", required: true },
  { field: "payloadMimeType", type: "string[]", required: false },
  { field: "address", type: "string", required: false },
  { field: "header", type: "string[]", required: false },
];
const SEED_COMPANIONS: ReadonlyArray<{ field: string; type: string }> = [
  { field: "_status", type: "Element" },
  { field: "_name", type: "Element" },
  { field: "_address", type: "Element" },
  { field: "_payloadMimeType", type: "Element[]" },
  { field: "_header", type: "Element[]" },
];
const SEED_STATUS_VALUES = ["active", "suspended", "error", "off", "entered-in-error", "test"];

// Inherited from FHIR R4 Resource/DomainResource (not in the source document).
const INHERITED_FIELDS: ReadonlyArray<{ field: string; type: string }> = [
  { field: "id", type: "string" },
  { field: "meta", type: "Meta" },
  { field: "implicitRules", type: "string" },
  { field: "_implicitRules", type: "Element" },
  { field: "language", type: "string" },
  { field: "_language", type: "Element" },
  { field: "text", type: "Narrative" },
  { field: "contained", type: "object[]" },
  { field: "extension", type: "Extension[]" },
  { field: "modifierExtension", type: "Extension[]" },
];

const DATATYPES = [
  "Identifier",
  "Coding",
  "CodeableConcept",
  "Reference",
  "ContactPoint",
  "Period",
  "Element",
  "Extension",
  "Meta",
  "Narrative",
];

describe("document header", () => {
  it("declares 2020-12, an https $id, a title and an honest description", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$id).toBe("https://marketapi.dev/schemas/endpoint.schema.json");
    expect(schema.title).toBe("Endpoint");
    const description = schema.description as string;
    expect(description).toMatch(/R4\/R4B/);
    expect(description).toMatch(/STU3\/R4/);
    expect(description).toMatch(/R5-shaped .* rejected/);
    expect(description).toMatch(/public definitions/);
  });

  it("is a closed object", () => {
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
  });
});

describe("fidelity to the source document", () => {
  it.each(SEED_FIELDS)("declares $field as $type", ({ field, type }) => {
    const property = properties[field];
    expect(property, `${field} is declared`).toBeDefined();
    expect(shapeOf(schema, property!)).toBe(type);
  });

  it("requires exactly the source document's required fields", () => {
    const want = SEED_FIELDS.filter((f) => f.required)
      .map((f) => f.field)
      .sort();
    expect([...(schema.required as string[])].sort()).toEqual(want);
  });

  it('fixes resourceType to the single value "Endpoint"', () => {
    expect(properties.resourceType).toMatchObject({ type: "string", const: "Endpoint" });
  });

  it("enumerates exactly the six status values, entered-in-error included", () => {
    expect(properties.status!.enum).toEqual(SEED_STATUS_VALUES);
    expect(properties.status!.description).toMatch(/only five/);
  });

  it("keeps status and address out of required and says why", () => {
    expect(schema.required).not.toContain("status");
    expect(schema.required).not.toContain("address");
    expect(properties.status!.description).toMatch(/_status/);
    expect(properties.address!.description).toMatch(/_address/);
  });

  it.each(SEED_COMPANIONS)("declares the companion $field as $type", ({ field, type }) => {
    expect(properties[field], `${field} is declared`).toBeDefined();
    expect(shapeOf(schema, properties[field]!)).toBe(type);
  });

  it("anchors the payloadMimeType item pattern and documents the source pattern", () => {
    const items = properties.payloadMimeType!.items as SchemaNode;
    expect(items.pattern).toBe(LINEAR_MIME_TYPE_PATTERN);
    expect(items.description).toContain("[^\\s]+([\\s]?[^\\s]+)*");
    expect(items.description).toMatch(/backtrack/);
  });

  it.each(INHERITED_FIELDS)("declares the inherited field $field as $type", ({ field, type }) => {
    expect(properties[field], `${field} is declared`).toBeDefined();
    expect(shapeOf(schema, properties[field]!)).toBe(type);
  });

  it("declares nothing beyond the source fields, their companions and the inherited fields", () => {
    const want = [...SEED_FIELDS, ...SEED_COMPANIONS, ...INHERITED_FIELDS].map((f) => f.field).sort();
    expect(Object.keys(properties).sort()).toEqual(want);
  });

  it.each(["description", "environmentType", "payload"])("does not declare the R5-only field %s", (field) => {
    expect(properties[field]).toBeUndefined();
  });
});

describe("datatypes", () => {
  it.each(DATATYPES)("$defs.%s is a closed object with described members", (name) => {
    const def = defs[name]!;
    expect(def, `${name} is defined`).toBeDefined();
    expect(def.type).toBe("object");
    expect(def.additionalProperties).toBe(false);
    const members = def.properties as Record<string, SchemaNode>;
    expect(members.id, `${name}.id`).toBeDefined();
    expect(members.extension, `${name}.extension`).toBeDefined();
  });

  it.each([
    { given: "Identifier.use", want: ["usual", "official", "temp", "secondary", "old"] },
    { given: "ContactPoint.system", want: ["phone", "fax", "email", "pager", "url", "sms", "other"] },
    { given: "ContactPoint.use", want: ["home", "work", "temp", "old", "mobile"] },
    { given: "Narrative.status", want: ["generated", "extensions", "additional", "empty"] },
  ])("$given is the FHIR R4 enumeration", ({ given, want }) => {
    const [type, member] = given.split(".") as [string, string];
    const members = defs[type]!.properties as Record<string, SchemaNode>;
    expect(members[member]!.enum).toEqual(want);
  });

  it.each([
    { given: "Identifier", want: ["use", "type", "system", "value", "period", "assigner"] },
    { given: "Coding", want: ["system", "version", "code", "display", "userSelected"] },
    { given: "CodeableConcept", want: ["coding", "text"] },
    { given: "Reference", want: ["reference", "type", "identifier", "display"] },
    { given: "ContactPoint", want: ["system", "value", "use", "rank", "period"] },
    { given: "Period", want: ["start", "end"] },
    { given: "Meta", want: ["versionId", "lastUpdated", "source", "profile", "security", "tag"] },
    { given: "Narrative", want: ["status", "div"] },
    { given: "Element", want: [] },
  ])("$given has the FHIR R4 members", ({ given, want }) => {
    const members = Object.keys(defs[given]!.properties as object).filter((k) => !k.startsWith("_"));
    expect(members.sort()).toEqual(["id", "extension", ...want].sort());
  });

  it("Extension has a url and the required value[x] choices", () => {
    const members = defs.Extension!.properties as Record<string, SchemaNode>;
    expect(defs.Extension!.required).toEqual(["url"]);
    for (const choice of [
      "valueString",
      "valueCode",
      "valueBoolean",
      "valueInteger",
      "valueDecimal",
      "valueUri",
      "valueUrl",
      "valueDateTime",
      "valueCoding",
      "valueCodeableConcept",
      "valueReference",
      "valuePeriod",
      "valueIdentifier",
    ]) {
      expect(members[choice], choice).toBeDefined();
    }
  });

  it("every array forbids emptiness, every complex node is typed, every property is described", () => {
    const problems: string[] = [];
    walkSchema(schema, (node, path) => {
      if (node.type === "array" && node.minItems !== 1) problems.push(`${path}: array without minItems 1`);
      if ((node.properties || node.patternProperties) && node.type !== "object") {
        problems.push(`${path}: properties without type object`);
      }
      for (const keyword of ["properties", "patternProperties"]) {
        for (const [name, child] of Object.entries((node[keyword] as Record<string, SchemaNode>) ?? {})) {
          const described = typeof child.description === "string" && child.description.trim().length > 0;
          if (!described) problems.push(`${path}/${keyword}/${name}: no description`);
        }
      }
    });
    expect(problems).toEqual([]);
  });

  it("every $defs entry is described", () => {
    const undescribed = Object.entries(defs)
      .filter(([, def]) => typeof def.description !== "string" || def.description.trim() === "")
      .map(([name]) => name);
    expect(undescribed).toEqual([]);
  });

  it("every local $ref resolves", () => {
    const refs: string[] = [];
    walkSchema(schema, (node) => {
      if (typeof node.$ref === "string") refs.push(node.$ref);
    });
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(() => resolveLocalRef(schema, ref)).not.toThrow();
  });
});

describe("ajv strict mode", () => {
  it("compiles with every strict option as a logged warning, and logs nothing", () => {
    const { ajv, logs } = createAjv({
      strict: "log",
      strictSchema: "log",
      strictNumbers: "log",
      strictTypes: "log",
      strictTuples: "log",
      strictRequired: "log",
    });
    ajv.compile(loadEndpointSchema());
    expect(logs).toEqual({ log: [], warn: [], error: [] });
  });

  it("compiles with strict: true and strictTypes: true (violations would throw)", () => {
    const { ajv, logs } = createAjv({ strict: true, strictTypes: true, allErrors: true });
    expect(() => ajv.compile(loadEndpointSchema())).not.toThrow();
    expect(logs).toEqual({ log: [], warn: [], error: [] });
  });
});

describe("valid fixtures", () => {
  const fixtures = loadValidFixtures();

  it("include the four FHIR R4 examples and at least three template entries", () => {
    const ids = fixtures.map((f) => (f.data as { id?: string }).id);
    expect(ids).toEqual(
      expect.arrayContaining(["example", "example-iid", "example-wadors", "direct-endpoint"]),
    );
    expect(fixtures.filter((f) => f.file.startsWith("r4-template-")).length).toBeGreaterThanOrEqual(3);
  });

  it.each(fixtures)("$file validates", ({ data }) => {
    const ok = validate(data);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });
});

describe("invalid fixtures", () => {
  const fixtures = loadInvalidFixtures();

  it("include the three R5-shaped examples", () => {
    expect(fixtures.filter((f) => f.file.startsWith("r5-")).length).toBe(3);
  });

  it.each(fixtures)("$file is rejected at '$expectedPath'", ({ data, expectedPath, otherPaths }) => {
    expect(validate(data)).toBe(false);
    expect(faultPointers(validate.errors)).toEqual([...new Set([expectedPath, ...otherPaths])].sort());
  });
});

describe("FHIR JSON semantics", () => {
  const minimal = {
    resourceType: "Endpoint",
    connectionType: { code: "hl7-fhir-rest" },
    payloadType: [{ text: "any" }],
  };

  it.each([
    { given: "only the required fields", data: minimal, want: true },
    { given: "status only through _status", data: { ...minimal, _status: { id: "s" } }, want: true },
    { given: "address only through _address", data: { ...minimal, _address: { id: "a" } }, want: true },
    ...SEED_STATUS_VALUES.map((status) => ({
      given: `status ${status}`,
      data: { ...minimal, status },
      want: true,
    })),
    {
      given: "a DICOM variant mime type (single spaces)",
      data: { ...minimal, payloadMimeType: ["application/dicom; variant=DICOM WADO-RS"] },
      want: true,
    },
    { given: "a tab between tokens", data: { ...minimal, payloadMimeType: ["a\tb"] }, want: true },
    { given: "a newline and a space", data: { ...minimal, payloadMimeType: ["a\n b"] }, want: false },
  ])("$given → valid: $want", ({ data, want }) => {
    expect(validate(data)).toBe(want);
  });
});
