// Values the samples make for a spec without examples meet the spec's own constraints, so that a
// server checking requests by the spec (Prism) accepts them: patterns (Twilio's AccountSid),
// formats, enums and bounds; a stated example that breaks them is not used; a pattern no string is
// found for, or any other fault of one operation, lists that operation with why and ends nothing.
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../src/json.js";
import { planCodeSamples } from "../src/samples/code-samples.js";
import { stringMatching } from "../src/samples/pattern-values.js";
import { declaredPartOf, meetsSchema, sampleValueOf } from "../src/samples/sample-values.js";

describe("stringMatching: a string the pattern matches, within the lengths", () => {
  it.each([
    ["^AC[0-9a-fA-F]{32}$", 34, 34],
    ["^[A-Z]{2,3}$", 0, Number.POSITIVE_INFINITY],
    ["^\\d{4}-\\d{2}$", 0, Number.POSITIVE_INFINITY],
    ["^(foo|bar)+baz?$", 0, Number.POSITIVE_INFINITY],
    ["[a-z]+", 10, 12],
    ["^\\+?[1-9]\\d{1,14}$", 0, Number.POSITIVE_INFINITY],
    ["^(?!0)\\d+$", 0, Number.POSITIVE_INFINITY],
    ["^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$", 0, Number.POSITIVE_INFINITY],
    ["^\\p{L}+$", 3, 5],
    ["^urn:[a-z0-9][a-z0-9-]{0,31}:[a-z0-9()+,\\-.:=@;$_!*'%/?#]+$", 0, Number.POSITIVE_INFINITY],
    ["^[\\w.-]+$", 0, Number.POSITIVE_INFINITY],
    ["^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==)?$", 8, 8],
  ])("%s (%d to %d characters)", (pattern, min, max) => {
    const got = stringMatching(pattern, min, max);
    expect(got).toBeDefined();
    expect(new RegExp(pattern, "u").test(got!)).toBe(true);
    expect([...got!].length).toBeGreaterThanOrEqual(min);
    expect([...got!].length).toBeLessThanOrEqual(max);
  });

  it.each([["^(a)\\1$"], ["^[a-z]{3}$"]])(
    "gives up on %s when nothing fits (a back-reference; 5 characters of 3)",
    (pattern) => {
      expect(stringMatching(pattern, 5, 5)).toBeUndefined();
    },
  );
});

describe("sampleValueOf and meetsSchema", () => {
  it.each([
    [{ type: "string", pattern: "^AC[0-9a-fA-F]{32}$", minLength: 34, maxLength: 34 }],
    [{ type: "string", pattern: "^AC[0-9a-f]{32}$", example: "AC123" }],
    [{ type: "string", format: "uuid", example: "not-a-uuid" }],
    [{ type: "integer", minimum: 10, maximum: 20, example: 5 }],
    [{ type: "string", enum: ["a", "b"], default: "c" }],
    [{ type: "number", exclusiveMinimum: 0, multipleOf: 0.5 }],
  ])("made for %j meets it", (schema) => {
    const value = sampleValueOf({}, schema);
    expect(meetsSchema(schema, value), JSON.stringify(value)).toBe(true);
  });
});

/** A spec of one operation with a path parameter of `schema`, and a second with a nested form body. */
function vendorSpec(schema: JsonObject): JsonObject {
  return {
    openapi: "3.1.0",
    info: { title: "Vendor", version: "1" },
    servers: [{ url: "https://api.vendor.example" }],
    paths: {
      "/Accounts/{AccountSid}/Calls": {
        get: {
          operationId: "listCalls",
          parameters: [{ name: "AccountSid", in: "path", required: true, schema }],
          responses: { "200": { description: "ok" } },
        },
      },
      "/cardholders": {
        post: {
          operationId: "createCardholder",
          requestBody: {
            required: true,
            content: {
              "application/x-www-form-urlencoded": {
                schema: {
                  type: "object",
                  required: ["billing"],
                  properties: {
                    billing: {
                      type: "object",
                      required: ["address"],
                      properties: {
                        address: {
                          type: "object",
                          required: ["city"],
                          properties: { city: { type: "string" } },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          responses: { "200": { description: "ok" } },
        },
      },
    },
  };
}

describe("the samples of a vendor's spec", () => {
  const curlOf = (planned: ReturnType<typeof planCodeSamples>, pointer: string) =>
    planned.samples.get(pointer)?.samples.find((s) => s.label === "curl")?.source ?? "";
  const LIST = "/paths/~1Accounts~1{AccountSid}~1Calls/get";

  it("send a path parameter that meets its pattern and length (Twilio's AccountSid)", () => {
    const planned = planCodeSamples(
      vendorSpec({ type: "string", minLength: 34, maxLength: 34, pattern: "^AC[0-9a-fA-F]{32}$" }),
      undefined,
      { tested: false, languages: ["curl"] },
    );
    const sid = /BASE_URL\/Accounts\/([^/]+)\/Calls/.exec(curlOf(planned, LIST))?.[1];
    expect(sid).toMatch(/^AC[0-9a-fA-F]{32}$/);
  });

  it("list, with why, an operation whose pattern no string is found for", () => {
    const planned = planCodeSamples(vendorSpec({ type: "string", pattern: "^(a)\\1$" }), undefined, {
      tested: false,
      languages: ["curl"],
    });
    expect(planned.samples.has(LIST)).toBe(false);
    expect(planned.skipped.find((s) => s.operationId === "listCalls")?.reason).toMatch(
      /pattern "\^\(a\)\\\\1\$"/,
    );
  });

  it("never end the build on one operation: a nested form body is written or listed with why", () => {
    const planned = planCodeSamples(vendorSpec({ type: "string" }), undefined, {
      tested: false,
      languages: ["curl"],
    });
    const written = planned.samples.has("/paths/~1cardholders/post");
    const listed = planned.skipped.find((s) => s.operationId === "createCardholder");
    expect(written || listed !== undefined).toBe(true);
    if (listed) expect(listed.reason).not.toBe("");
  });
});

describe("declaredPartOf: the spec's example as the generated client can send it", () => {
  const closed = {
    type: "object",
    properties: {
      field: { type: "string" },
      meta: { type: "object", properties: { note: { type: "string" } } },
    },
  };
  const open = { ...closed, additionalProperties: true };
  it.each([
    [
      "leaves out what the schema does not declare, at every depth",
      closed,
      { field: "id", datatype: "x", meta: { note: "n", old: 1 } },
      { field: "id", meta: { note: "n" } },
    ],
    [
      "keeps everything where the schema allows more",
      open,
      { field: "id", extra: 1 },
      { field: "id", extra: 1 },
    ],
  ])("%s", (_, schema, given, want) => {
    expect(declaredPartOf({}, schema, given)).toEqual(want);
  });
});
