import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { endpointSchema } from "../src/generated/endpoint.gen.js";
import { operationIds, operations } from "../src/generated/validators.gen.js";
import type { CompiledValidator } from "../src/generated/validators-runtime.gen.js";
import {
  check,
  parseRequest,
  type ValidationResult,
  validateEndpoint,
  validateRequest,
  validateResponse,
  validateSchema,
} from "../src/index.js";
import { readCounter } from "./read-counter.js";
import { faults, validEndpoints } from "./support.js";

/** A result of the documented shape; errors with a pointer, a rule and a non-empty message. */
function wellFormed(result: ValidationResult): boolean {
  if (result.valid) return Object.keys(result).length === 1;
  return (
    result.errors.length > 0 &&
    result.errors.every(
      (e) =>
        typeof e.path === "string" &&
        /^(\/[^/]*)*$/.test(e.path) &&
        typeof e.rule === "string" &&
        e.rule !== "" &&
        typeof e.message === "string" &&
        e.message.length > 0,
    )
  );
}

const statuses = fc.oneof(
  fc.integer({ min: 100, max: 599 }),
  fc.constantFrom("200", "4XX", "5XX", "default", "abc", ""),
  fc.integer(),
);

describe("random values never throw and always give a well-formed result", () => {
  it("10,000 JSON values through validateEndpoint, validateRequest and validateResponse", () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.constantFrom(...operationIds),
        statuses,
        (value, operationId, status) => {
          expect(wellFormed(validateEndpoint(value))).toBe(true);
          expect(wellFormed(validateRequest(operationId, value))).toBe(true);
          expect(wellFormed(validateResponse(operationId, status, value))).toBe(true);
          expect(wellFormed(validateResponse(operationId, 200, value, { variant: "FULL" }))).toBe(true);
        },
      ),
      { numRuns: 10_000 },
    );
  });

  it("2,000 arbitrary JavaScript values (undefined, null prototypes, boxed values)", () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBoxedValues: true }), (value) => {
        expect(wellFormed(validateEndpoint(value))).toBe(true);
        expect(wellFormed(validateRequest("new_order", value))).toBe(true);
        expect(wellFormed(validateResponse("exchange_info", 200, value))).toBe(true);
        expect(wellFormed(validateSchema("SymbolFilter", value))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it("2,000 random query strings through parseRequest", () => {
    const names = [...new Set(Object.values(operations).flatMap((o) => o.parameters.map((p) => p.name)))];
    const pair = fc.tuple(
      fc.oneof(fc.constantFrom(...names), fc.string()),
      fc.oneof(
        fc.string(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
      ),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...operationIds),
        fc.array(pair, { maxLength: 8 }),
        (operationId, pairs) => {
          const text = new URLSearchParams(pairs.map(([k, v]) => [k, v])).toString();
          const parsed = parseRequest(operationId, text);
          expect(parsed.valid ? true : wellFormed({ valid: false, errors: parsed.errors })).toBe(true);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("2,000 Endpoints with one member replaced by a random value: errors point into the data", () => {
    const fixtures = validEndpoints().map((f) => f.data as Record<string, unknown>);
    fc.assert(
      fc.property(fc.constantFrom(...fixtures), fc.jsonValue(), fc.nat(), (fixture, value, pick) => {
        const data = structuredClone(fixture);
        const keys = Object.keys(data);
        data[keys[pick % keys.length]!] = value;
        const result = validateEndpoint(data);
        expect(wellFormed(result)).toBe(true);
        if (!result.valid) for (const e of result.errors) expect(parentExists(data, e.path)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});

/** Whether the value that holds the fault (the pointer's parent) exists in `data`. */
function parentExists(data: unknown, pointer: string): boolean {
  const tokens = pointer
    .split("/")
    .slice(1, -1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  let node: unknown = data;
  for (const token of tokens) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, token)) return false;
    node = (node as Record<string, unknown>)[token];
  }
  return true;
}

describe("prototype-polluting keys", () => {
  const minimal = '"resourceType":"Endpoint","connectionType":{"code":"x"},"payloadType":[{"text":"a"}]';

  it.each(["__proto__", "constructor", "prototype"])(
    "%s is an unknown property, and pollutes nothing",
    (key) => {
      const data = JSON.parse(`{${minimal},"${key}":{"polluted":true,"resourceType":"Endpoint"}}`);
      expect(validateEndpoint(data)).toEqual({
        valid: false,
        errors: faults([
          { path: `/${key}`, rule: "additionalProperties", message: `/${key} is not a property of Endpoint` },
        ]),
      });
      const nested = JSON.parse(`{${minimal.replace('"code":"x"', `"code":"x","${key}":1`)}}`);
      expect(validateEndpoint(nested)).toMatchObject({
        valid: false,
        errors: [{ path: `/connectionType/${key}` }],
      });
      expect(
        validateRequest("order_book", JSON.parse(`{"symbol":"BTCUSDT","${key}":{"limit":1}}`)),
      ).toMatchObject({
        valid: false,
        errors: faults([{ path: `/${key}`, rule: "additionalProperties" }]),
      });
      expect(validateResponse("server_time", 200, JSON.parse(`{"${key}":{"serverTime":1}}`))).toMatchObject({
        valid: false,
        errors: faults([{ path: "/serverTime", rule: "required" }]),
      });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty("polluted");
    },
  );

  it("an Endpoint whose own __proto__ property holds valid fields is still missing them", () => {
    const data = JSON.parse(
      '{"__proto__":{"resourceType":"Endpoint","connectionType":{},"payloadType":[{}]}}',
    );
    const result = validateEndpoint(data);
    expect(result.valid ? [] : result.errors.map((e) => e.path).sort()).toEqual([
      "/__proto__",
      "/connectionType",
      "/payloadType",
      "/resourceType",
    ]);
  });
});

describe("adversarial sizes", () => {
  const base = { resourceType: "Endpoint", connectionType: { code: "x" }, payloadType: [{ text: "a" }] };

  // A pattern that backtracks would take hours on these 1 MB items; the linear one takes
  // milliseconds. No clock is read: a super-linear pattern shows as a test that never finishes.
  it.each([
    { given: "1 MB of one token plus two spaces", item: `${"a".repeat(1 << 20)}  `, valid: false },
    {
      given: "1 MB of tokens separated by single spaces",
      item: "ab ".repeat(349_525).trimEnd(),
      valid: true,
    },
    { given: "1 MB of tokens ending in a tab run", item: `${"a b".repeat(349_525)}\t\t`, valid: false },
  ])("a payloadMimeType item of $given is judged by a pattern that finishes", ({ item, valid }) => {
    const result = validateEndpoint({ ...base, payloadMimeType: [item] });
    expect(result.valid).toBe(valid);
    if (!result.valid) expect(result.errors.map((e) => e.path)).toEqual(["/payloadMimeType/0"]);
  });

  it("an extension chain too deep for the stack is an error result, not a throw", () => {
    let extension: Record<string, unknown> = { url: "https://example.org/leaf" };
    for (let i = 0; i < 100_000; i++) extension = { url: "https://example.org/x", extension: [extension] };
    const result = validateEndpoint({ ...base, extension: [extension] });
    expect(result).toEqual({
      valid: false,
      errors: faults([{ path: "", rule: "depth", message: "the Endpoint is nested too deeply to validate" }]),
    });
  });

  it("a value whose getter throws is an error result", () => {
    const data = {
      ...base,
      get name(): string {
        throw new Error("no");
      },
    };
    expect(validateEndpoint(data)).toEqual({
      valid: false,
      errors: faults([{ path: "", rule: "error", message: "the Endpoint could not be read: no" }]),
    });
  });

  // Work is counted as reads of the validated value (and of the raw errors) at two sizes: a
  // linear validator does twice the work on twice the items, a pairwise one four times. The sizes
  // are small so that a quadratic regression fails on the ratio, quickly, rather than on a timeout.
  const growth = (work: (n: number) => number, n: number) => work(2 * n) / work(n);

  it("uniqueItems reads each item a bounded number of times (linear, not pairwise)", () => {
    const readsOf = (n: number) => {
      const counter = readCounter();
      const symbols = counter.wrap(Array.from({ length: n }, (_, i) => ({ n: i })));
      const result = validateRequest("exchange_info", { symbols });
      expect(result.valid ? [] : [...new Set(result.errors.map((e) => e.rule))].sort()).toEqual([
        "maxItems",
        "type",
      ]);
      return counter.reads;
    };
    expect(growth(readsOf, 2_000)).toBeLessThan(2.1);
    expect(readsOf(4_000) / 4_000).toBeLessThan(40);
    const withDuplicate = validateRequest("exchange_info", {
      symbols: [...Array.from({ length: 4_000 }, (_, i) => ({ n: i })), { n: 7 }],
    });
    expect(withDuplicate.valid ? [] : withDuplicate.errors.map((e) => e.rule)).toContain("uniqueItems");
    const repeated = validateRequest("exchange_info", { symbols: ["BTCUSDT", "ETHUSDT", "BTCUSDT"] });
    expect(repeated.valid ? [] : repeated.errors.map((e) => e.message)).toEqual([
      "/symbols must not contain duplicates (items 0 and 2 are equal)",
    ]);
  });

  it("100,000 invalid items give 100,000 errors, with work linear in their number", () => {
    const readsOf = (n: number) => {
      const counter = readCounter();
      const validate: CompiledValidator = (data) => {
        const valid = endpointSchema.validate(data);
        validate.errors = counter.wrap(endpointSchema.validate.errors);
        return valid;
      };
      const data = { ...base, payloadMimeType: counter.wrap(Array.from({ length: n }, () => " x")) };
      const result = check({ ...endpointSchema, validate }, data);
      expect(result.valid ? 0 : result.errors.length).toBe(n);
      return counter.reads;
    };
    expect(growth(readsOf, 2_000)).toBeLessThan(2.1);
    const large = validateEndpoint({ ...base, payloadMimeType: Array.from({ length: 100_000 }, () => " x") });
    expect(large.valid ? 0 : large.errors.length).toBe(100_000);
  });
});
