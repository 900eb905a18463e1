// Parameter values on the wire: plain decimals, dates, JSON-encoded parameters, omitted undefined.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeParams, formatDecimal, formatValue, percentEncode } from "../src/runtime/wire-encoding.js";

describe("formatDecimal", () => {
  it.each([
    [0.0000001, "0.0000001"],
    [1e-7, "0.0000001"],
    [0.00000015, "0.00000015"],
    [1.5e-10, "0.00000000015"],
    [5e-324, `0.${"0".repeat(323)}5`],
    [0.000001, "0.000001"],
    [123.456, "123.456"],
    [5, "5"],
    [0, "0"],
    [-0, "0"],
    [-1e-7, "-0.0000001"],
    [0.1, "0.1"],
    [1e21, "1000000000000000000000"],
    [1.2345e25, "12345000000000000000000000"],
    [-2.5e22, "-25000000000000000000000"],
    [123456789012345680000, "123456789012345680000"],
    [Number.MAX_SAFE_INTEGER, "9007199254740991"],
  ])("%s → %s", (value, text) => {
    expect(formatDecimal(value)).toBe(text);
  });

  it("never uses exponent notation and reads back as the same number", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = formatDecimal(value);
        expect(text).toMatch(/^-?[0-9]+(\.[0-9]+)?$/);
        expect(Number(text)).toBe(value === 0 ? 0 : value);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])("refuses %s", (value) => {
    expect(() => formatDecimal(value)).toThrow(RangeError);
  });
});

describe("formatValue", () => {
  it("writes dates as RFC 3339 in UTC and passes RFC 3339 strings through", () => {
    expect(formatValue("startTime", new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)), false)).toBe(
      "2024-01-02T03:04:05.006Z",
    );
    expect(formatValue("startTime", "2024-01-01T00:00:00+02:00", false)).toBe("2024-01-01T00:00:00+02:00");
  });

  it("names the parameter of an invalid date", () => {
    expect(() => formatValue("startTime", new Date("nope"), false)).toThrow(/"startTime" is an invalid Date/);
  });

  it("writes booleans and bigints as text", () => {
    expect(formatValue("a", true, false)).toBe("true");
    expect(formatValue("a", 12345678901234567890n, false)).toBe("12345678901234567890");
  });

  it("writes JSON-encoded parameters as compact JSON", () => {
    expect(formatValue("symbols", ["BTCUSDT", "ETHUSDT"], true)).toBe('["BTCUSDT","ETHUSDT"]');
  });

  it("refuses an array for a parameter that is not JSON-encoded", () => {
    expect(() => formatValue("symbol", ["A"], false)).toThrow(
      /"symbol" must be a string, number, boolean or Date/,
    );
  });
});

// Any Unicode text without lone surrogates (which no URL can carry).
const codePoints = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0x10ffff })), {
    maxLength: 16,
  })
  .map((points) => String.fromCodePoint(...points));

describe("encodeParams", () => {
  it("leaves out undefined and null, keeping the order of the rest", () => {
    expect(encodeParams({ symbol: "BTCUSDT", limit: undefined, fromId: null, side: "BUY" }, [])).toBe(
      "symbol=BTCUSDT&side=BUY",
    );
    expect(encodeParams(undefined, [])).toBe("");
    expect(encodeParams({ limit: undefined }, [])).toBe("");
  });

  it("encodes symbols as one JSON array value, as the spec documents it", () => {
    expect(encodeParams({ symbols: ["BTCUSDT", "ETHUSDT"] }, ["symbols"])).toBe(
      "symbols=%5B%22BTCUSDT%22%2C%22ETHUSDT%22%5D",
    );
  });

  it("writes numbers in plain decimal notation", () => {
    expect(encodeParams({ quantity: 1e-7, price: 1e21 }, [])).toBe(
      "quantity=0.0000001&price=1000000000000000000000",
    );
  });

  it("percent-encodes every reserved character, including !'()*", () => {
    expect(percentEncode("a b&c=d/é'()*!~")).toBe("a%20b%26c%3Dd%2F%C3%A9%27%28%29%2A%21~");
    fc.assert(
      fc.property(codePoints, (text) => {
        const encoded = percentEncode(text);
        expect(encoded).toMatch(/^[A-Za-z0-9\-_.~%]*$/);
        expect(decodeURIComponent(encoded)).toBe(text);
      }),
    );
  });
});
