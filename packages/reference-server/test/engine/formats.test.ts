// A symbol's formatters remember the last values they formatted; whatever the sequence of values,
// each answer is what dec.format gives.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { decimal as dec } from "../../src/engine/index.js";
import { recentlyFormatted } from "../../src/engine/views.js";

const v = (text: string) => dec.parse(text);

describe("recentlyFormatted", () => {
  test.each([
    { given: ["70000.01", "70000.01", "0.001", "70000.01"], decimals: 8 },
    { given: ["1", "2", "3", "4", "5", "1", "5", "2", "0", "0"], decimals: 2 },
    { given: ["0.1", "0.10", "0.100000001", "0.1"], decimals: 8 },
    { given: ["1.23456789", "1.23456789", "1.2345678"], decimals: 3 },
  ])("$given with $decimals decimals: as dec.format", ({ given, decimals }) => {
    const format = recentlyFormatted(decimals);
    const values = given.map(v);
    expect(values.map(format)).toEqual(values.map((value) => dec.format(value, decimals)));
  });

  test("a negative value and its magnitude are told apart", () => {
    const format = recentlyFormatted(8);
    expect([format(v("2.5")), format(-v("2.5")), format(v("2.5"))]).toEqual([
      "2.50000000",
      "-2.50000000",
      "2.50000000",
    ]);
  });

  test("property: any sequence drawn from a few values formats as dec.format", () => {
    const pool = [
      "0",
      "1",
      "0.5",
      "70000.12345678",
      "0.00000001",
      "99999999999999999999.99999999999999999999",
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pool), { maxLength: 40 }),
        fc.integer({ min: 0, max: 20 }),
        (texts, decimals) => {
          const format = recentlyFormatted(decimals);
          for (const text of texts) expect(format(v(text))).toBe(dec.format(v(text), decimals));
        },
      ),
    );
  });
});
