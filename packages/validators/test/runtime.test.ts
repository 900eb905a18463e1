// The run-time helpers replace ajv's and ajv-formats' at run time: they must mean the same.
// Each is checked side by side with the original on generated inputs, and the whole validators
// against ajv compiling the same schemas at run time.
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvEqual from "ajv/dist/runtime/equal.js";
import ajvUcs2length from "ajv/dist/runtime/ucs2length.js";
import addFormatsModule from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  duplicateItems,
  equal,
  runtimeFormats,
  ucs2length,
} from "../src/generated/validators-runtime.gen.js";
import { validateEndpoint, validateSchema } from "../src/index.js";
import { endpointSchema, openapi, responseExamples, validEndpoints } from "./support.js";

const addFormats = addFormatsModule.default;

/** A CommonJS module's `exports.default`, whether the loader already unwrapped it or not. */
function cjsDefault<T>(imported: unknown): T {
  return (typeof imported === "function" ? imported : (imported as { default: T }).default) as T;
}
const theirUcs2length = cjsDefault<(text: string) => number>(ajvUcs2length);
const theirEqual = cjsDefault<(a: unknown, b: unknown) => boolean>(ajvEqual);
const utf16 = fc
  .array(
    fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0xd800, 0xdbff, 0xdc00, 0xdfff, 0x61)),
    {
      maxLength: 12,
    },
  )
  .map((units) => String.fromCharCode(...units));

describe("helpers", () => {
  it("ucs2length counts like ajv's (lone surrogates included)", () => {
    fc.assert(
      fc.property(fc.oneof(utf16, fc.string({ unit: "grapheme" })), (text) => {
        expect(ucs2length(text)).toBe(theirUcs2length(text));
      }),
      { numRuns: 3_000 },
    );
  });

  const pairs = fc
    .jsonValue()
    .chain((a) => fc.tuple(fc.constant(a), fc.oneof(fc.constant(structuredClone(a)), fc.jsonValue())));

  /** ajv's equal (fast-deep-equal), or undefined where it throws: on objects with a "valueOf" or "toString" member. */
  function theirs(a: unknown, b: unknown): boolean | undefined {
    try {
      return theirEqual(a, b);
    } catch {
      return undefined;
    }
  }

  it("equal agrees with ajv's deep equality on JSON values", () => {
    fc.assert(
      fc.property(pairs, ([a, b]) => {
        const expected = theirs(a, b);
        if (expected !== undefined) expect(equal(a, b)).toBe(expected);
      }),
      { numRuns: 3_000 },
    );
    expect(equal({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(equal({ a: undefined }, { b: undefined })).toBe(false);
    expect(equal([1], { 0: 1 })).toBe(false);
    expect(equal(Number.NaN, Number.NaN)).toBe(true);
  });

  it("equal does not throw where ajv's does (JSON objects with valueOf or toString members)", () => {
    const a = JSON.parse('{"valueOf":null,"toString":1}');
    expect(theirs(a, structuredClone(a))).toBeUndefined();
    expect(equal(a, structuredClone(a))).toBe(true);
  });

  it("duplicateItems finds the pair ajv's pairwise uniqueItems loop finds", () => {
    /** ajv's loop: the last item with an equal item before it, and the nearest such item. */
    function pairwise(items: unknown[]): [number, number] | null | undefined {
      try {
        for (let i = items.length; i--; )
          for (let j = i; j--; ) if (theirEqual(items[i], items[j])) return [i, j];
        return null;
      } catch {
        return undefined;
      }
    }
    const small = fc.oneof(
      fc.constantFrom(0, -0, 1, "1", null, true, [], {}, [1], { a: 1 }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    fc.assert(
      fc.property(fc.array(small, { maxLength: 12 }), (items) => {
        const expected = pairwise(items);
        if (expected !== undefined) expect(duplicateItems(items)).toEqual(expected);
      }),
      { numRuns: 3_000 },
    );
    expect(duplicateItems([{ a: 1, b: [2] }, 3, { b: [2], a: 1 }])).toEqual([2, 0]);
    expect(duplicateItems(["1", 1, [1], ["1"]])).toBeNull();
  });
});

describe("formats mean what ajv-formats' full mode means", () => {
  const digits = (n: number) =>
    fc.integer({ min: 0, max: 10 ** n - 1 }).map((v) => String(v).padStart(n, "0"));
  const zone = fc.oneof(
    fc.constantFrom("Z", "z", "", "+00:00", "-23:59", "+24:00", "+05", "+0530", "-12:60"),
    fc
      .tuple(fc.constantFrom("+", "-"), digits(2), fc.constantFrom(":", ""), digits(2))
      .map((p) => p.join("")),
  );
  const time = fc
    .tuple(digits(2), digits(2), digits(2), fc.constantFrom("", ".5", ".123456"), zone)
    .map(([h, m, s, f, z]) => `${h}:${m}:${s}${f}${z}`);
  const date = fc
    .tuple(fc.constantFrom("2024", "2023", "1900", "2000", "0000"), digits(2), digits(2))
    .map(([y, m, d]) => `${y}-${m}-${d}`);
  const near = {
    date: fc.oneof(date, fc.string()),
    time: fc.oneof(
      time,
      fc.constantFrom("23:59:60Z", "23:59:60+01:00", "00:59:60+01:00", "12:00:60Z"),
      fc.string(),
    ),
    "date-time": fc.oneof(
      fc.tuple(date, fc.constantFrom("T", "t", " ", "\u00a0", "x", "TT"), time).map((p) => p.join("")),
      fc.string(),
    ),
    byte: fc.oneof(fc.base64String(), fc.string(), fc.constantFrom("QUJD\n!!", "QQ==", "QQ=")),
  } as const;

  it.each(Object.keys(near) as (keyof typeof near)[])("%s", (name) => {
    const theirs = fullFormats[name] as { validate: (s: string) => boolean } | ((s: string) => boolean);
    const check = typeof theirs === "function" ? theirs : theirs.validate;
    fc.assert(
      fc.property(near[name], (text) => {
        expect(runtimeFormats[name].validate(text)).toBe(check(text));
      }),
      { numRuns: 3_000 },
    );
  });

  it.each(["int32", "int64", "float", "double"] as const)("%s", (name) => {
    const theirs = fullFormats[name] as { validate: (n: number) => boolean };
    const numbers = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.constantFrom(2 ** 31, -(2 ** 31), 2 ** 31 - 1, 2 ** 53, 0.5),
    );
    fc.assert(
      fc.property(numbers, (n) => {
        expect(runtimeFormats[name].validate(n)).toBe(theirs.validate(n));
      }),
      { numRuns: 1_000 },
    );
  });
});

describe("the precompiled validators give ajv's verdicts", () => {
  function ajv() {
    const instance = new Ajv2020({ strict: false, allErrors: true });
    addFormats(instance);
    return instance;
  }

  it("on Endpoints with random members", () => {
    const reference = ajv().compile(endpointSchema);
    const fixtures = validEndpoints().map((f) => f.data as Record<string, unknown>);
    const keys = [...Object.keys(endpointSchema.properties), "foo"];
    fc.assert(
      fc.property(
        fc.constantFrom(...fixtures),
        fc.constantFrom(...keys),
        fc.jsonValue(),
        (fixture, key, value) => {
          const data = { ...fixture, [key]: value };
          expect(validateEndpoint(data).valid).toBe(reference(data));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("on orders, order books and exchange information with random members", () => {
    const components = JSON.parse(
      JSON.stringify(openapi.components.schemas).replaceAll("#/components/schemas/", "#/$defs/"),
    );
    const instance = ajv();
    instance.addSchema({ $id: "https://test.invalid/api", $defs: components });
    const cases = [
      { schema: "Order", example: responseExamples().find((e) => e.operationId === "query_order")!.body },
      { schema: "OrderBook", example: responseExamples().find((e) => e.operationId === "order_book")!.body },
      {
        schema: "ExchangeInfo",
        example: responseExamples().find((e) => e.operationId === "exchange_info")!.body,
      },
      {
        schema: "NewOrderFull",
        example: responseExamples().find((e) => e.operationId === "new_order")!.body,
      },
    ];
    for (const { schema, example } of cases) {
      const reference = instance.getSchema(`https://test.invalid/api#/$defs/${schema}`)!;
      const keys = [...Object.keys(example as object), "extra"];
      fc.assert(
        fc.property(fc.constantFrom(...keys), fc.jsonValue(), (key, value) => {
          const data = { ...(example as object), [key]: value };
          expect(validateSchema(schema, data).valid).toBe(reference(data));
        }),
        { numRuns: 500 },
      );
    }
  });
});
