// The OpenAPI 3.0 to 3.1 rules, one schema at a time.
import { describe, expect, it } from "vitest";
import { upgradeOpenApi30 } from "../src/upgrade-3.0.js";

const upgradeSchema = (schema: unknown) =>
  upgradeOpenApi30({ openapi: "3.0.3", components: { schemas: { S: schema } } }).components.schemas.S;

describe("upgradeOpenApi30", () => {
  it.each([
    { given: { type: "string", nullable: true }, want: { type: ["string", "null"] } },
    { given: { type: "string", nullable: false }, want: { type: "string" } },
    {
      given: { type: "string", enum: ["A", "B"], nullable: true },
      want: { type: ["string", "null"], enum: ["A", "B", null] },
    },
    {
      given: { $ref: "#/components/schemas/T", nullable: true, description: "d" },
      want: { description: "d", anyOf: [{ $ref: "#/components/schemas/T" }, { type: "null" }] },
    },
    {
      given: { allOf: [{ $ref: "#/components/schemas/T" }], nullable: true },
      want: { anyOf: [{ allOf: [{ $ref: "#/components/schemas/T" }] }, { type: "null" }] },
    },
    {
      given: { type: "number", minimum: 0, exclusiveMinimum: true },
      want: { type: "number", exclusiveMinimum: 0 },
    },
    { given: { type: "number", maximum: 9, exclusiveMaximum: false }, want: { type: "number", maximum: 9 } },
    {
      given: { type: "object", properties: { nullable: { type: "boolean" } }, example: { nullable: true } },
      want: { type: "object", properties: { nullable: { type: "boolean" } }, example: { nullable: true } },
    },
    {
      given: { type: "string", "x-vendor": { nullable: true } },
      want: { type: "string", "x-vendor": { nullable: true } },
    },
  ])("$given", ({ given, want }) => {
    expect(upgradeSchema(given)).toEqual(want);
  });

  it("declares 3.1.0 and leaves the input as it was", () => {
    const input = {
      openapi: "3.0.1",
      paths: {},
      components: { schemas: { S: { type: "string", nullable: true } } },
    };
    const before = structuredClone(input);
    expect(upgradeOpenApi30(input).openapi).toBe("3.1.0");
    expect(input).toEqual(before);
  });
});
