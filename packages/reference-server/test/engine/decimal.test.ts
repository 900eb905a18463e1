import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { decimal as dec } from "../../src/engine/index.js";

describe("parse and format", () => {
  const roundTrips: [text: string, decimals: number, formatted: string][] = [
    ["0", 8, "0.00000000"],
    ["0", 0, "0"],
    ["0.000", 1, "0.0"],
    ["0", 20, "0.00000000000000000000"],
    ["0", 24, "0.00000000000000000000"],
    ["0.1", 8, "0.10000000"],
    ["0.00010000", 8, "0.00010000"],
    ["60000", 2, "60000.00"],
    ["60000.5", 0, "60000"],
    ["1.23456789", 8, "1.23456789"],
    ["1.234567891", 8, "1.23456789"],
    ["1.99999999999", 3, "1.999"],
    ["00012.5", 1, "12.5"],
    ["99999999999999999999.99999999999999999999", 20, "99999999999999999999.99999999999999999999"],
  ];
  test.each(roundTrips)("format(parse(%j), %i) = %j", (text, decimals, formatted) => {
    expect(dec.format(dec.parse(text), decimals)).toBe(formatted);
  });

  const rejected = [
    "",
    ".5",
    "5.",
    "-1",
    "+1",
    "1e5",
    "1E-8",
    " 1",
    "1 ",
    "1,5",
    "0x10",
    "NaN",
    "Infinity",
    "1.2.3",
    "123456789012345678901",
    "0.123456789012345678901",
  ];
  test.each(rejected)("rejects %j", (text) => {
    expect(dec.tryParse(text)).toBeUndefined();
    expect(() => dec.parse(text)).toThrow(RangeError);
  });

  test("negative values format with a sign (price changes can be negative)", () => {
    expect(dec.format(dec.sub(dec.parse("1"), dec.parse("3.5")), 8)).toBe("-2.50000000");
    expect(dec.format(-dec.parse("0.000000019"), 8)).toBe("-0.00000001");
  });

  test("toPlain / fromPlain are exact and minimal", () => {
    const cases: [string, string][] = [
      ["0.10000000", "0.1"],
      ["60000", "60000"],
      ["0.00000000000000000001", "0.00000000000000000001"],
      ["0", "0"],
    ];
    for (const [text, plain] of cases) {
      expect(dec.toPlain(dec.parse(text))).toBe(plain);
      expect(dec.fromPlain(plain)).toBe(dec.parse(text));
    }
    expect(dec.fromPlain("-1.5")).toBe(-dec.parse("1.5"));
  });
});

describe("arithmetic", () => {
  const d = dec.parse;
  const binary: [name: string, op: (a: bigint, b: bigint) => bigint, a: string, b: string, want: string][] = [
    ["add", dec.add, "0.1", "0.2", "0.3"],
    ["sub", dec.sub, "1", "0.00000001", "0.99999999"],
    ["mul", dec.mul, "60000.01", "0.00001", "0.6000001"],
    ["mul keeps 16 decimals exactly", dec.mul, "0.12345678", "0.87654321", "0.1082152022374638"],
    ["mul rounds down past 20 decimals", dec.mul, "0.00000000001", "0.00000000001", "0"],
    ["div rounds down", dec.div, "1", "3", "0.33333333333333333333"],
    ["div exact", dec.div, "100", "0.05", "2000"],
  ];
  test.each(binary)("%s: %s ∘ %s", (_name, op, a, b, want) => {
    expect(dec.toPlain(op(d(a), d(b)))).toBe(want);
  });

  test("compare, min, max", () => {
    expect(dec.compare(d("1.0"), d("1"))).toBe(0);
    expect(dec.compare(d("0.99999999"), d("1"))).toBe(-1);
    expect(dec.compare(d("2"), d("1"))).toBe(1);
    expect(dec.min(d("2"), d("1"))).toBe(d("1"));
    expect(dec.max(d("2"), d("1"))).toBe(d("2"));
  });

  const steps: [value: string, step: string, floored: string, onStep: boolean][] = [
    ["0.123456", "0.00001", "0.12345", false],
    ["0.12345", "0.00001", "0.12345", true],
    ["60000.015", "0.01", "60000.01", false],
    ["7", "0", "7", true],
  ];
  test.each(steps)("floorToStep(%s, %s) = %s", (value, step, floored, onStep) => {
    expect(dec.toPlain(dec.floorToStep(d(value), d(step)))).toBe(floored);
    expect(dec.isOnStep(d(value), 0n, d(step))).toBe(onStep);
  });

  test("division by zero throws", () => {
    expect(() => dec.div(d("1"), 0n)).toThrow(RangeError);
  });

  test("fitsDecimals / truncate", () => {
    expect(dec.fitsDecimals(d("0.12345678"), 8)).toBe(true);
    expect(dec.fitsDecimals(d("0.123456789"), 8)).toBe(false);
    expect(dec.toPlain(dec.truncate(d("0.123456789"), 8))).toBe("0.12345678");
  });

  test("property: format(parse(x), 20) round-trips every valid wire decimal", () => {
    const digits = (min: number, max: number) =>
      fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: min, maxLength: max });
    fc.assert(
      fc.property(digits(1, 20), digits(1, 20), (whole, fraction) => {
        const text = `${whole}.${fraction}`;
        const value = dec.parse(text);
        expect(dec.parse(dec.format(value, 20))).toBe(value);
        expect(dec.fromPlain(dec.toPlain(value))).toBe(value);
      }),
      { numRuns: 300 },
    );
  });

  test("property: (a × b) ÷ b recovers a for 8-decimal values", () => {
    const eight = fc.bigInt({ min: 1n, max: 10n ** 16n }).map((n) => n * 10n ** 12n);
    fc.assert(
      fc.property(eight, eight, (a, b) => {
        expect(dec.div(dec.mul(a, b), b)).toBe(a);
      }),
      { numRuns: 300 },
    );
  });
});
