// negative_data_rejection's repeated parameters: the cases that give one parameter twice, and the two values a schema allows, given/want.
import { describe, expect, it } from "vitest";
import { repeatCases, twoValidValues } from "../src/checks/negative-data-rejection.js";

const ORDER: Array<[string, string]> = [
  ["symbol", "BTCUSDT"],
  ["quantity", "0.001"],
  ["price", "12000"],
];

describe("repeatCases: a valid request with one parameter given twice, in the same part", () => {
  it.each([
    {
      name: "another value, then the same value, each right after the first",
      given: { params: ORDER, name: "quantity", other: "0.002" },
      want: [
        {
          label: "negative: quantity twice in the query (0.001, then 0.002)",
          params: [ORDER[0], ["quantity", "0.001"], ["quantity", "0.002"], ORDER[2]],
        },
        {
          label: "negative: quantity twice in the query (0.001 both times)",
          params: [ORDER[0], ["quantity", "0.001"], ["quantity", "0.001"], ORDER[2]],
        },
      ],
    },
    {
      name: "the last parameter repeated at the end",
      given: {
        params: [
          ["symbol", "BTCUSDT"],
          ["limit", "1"],
        ] as Array<[string, string]>,
        name: "limit",
        other: "2",
      },
      want: [
        {
          label: "negative: limit twice in the query (1, then 2)",
          params: [
            ["symbol", "BTCUSDT"],
            ["limit", "1"],
            ["limit", "2"],
          ],
        },
        {
          label: "negative: limit twice in the query (1 both times)",
          params: [
            ["symbol", "BTCUSDT"],
            ["limit", "1"],
            ["limit", "1"],
          ],
        },
      ],
    },
    {
      name: "a parameter the request does not send: no case",
      given: { params: ORDER, name: "limit", other: "2" },
      want: [],
    },
  ])("$name", ({ given, want }) => {
    const got = repeatCases(given.params, given.name, given.other, "the query");
    expect(got.map(({ label, params }) => ({ label, params }))).toEqual(want);
    for (const c of got) expect(c.what).toContain("x-refusals duplicate-parameter");
  });
});

describe("twoValidValues: two different values a parameter's schema allows", () => {
  it.each([
    {
      name: "an integer from 1 (order_book's limit)",
      given: { type: "integer", minimum: 1, maximum: 5000 },
      want: ["1", "2"],
    },
    { name: "an integer without a minimum", given: { type: "integer" }, want: ["1", "2"] },
    { name: "an exclusive minimum", given: { type: "integer", exclusiveMinimum: 0 }, want: ["1", "2"] },
    { name: "the first two of an enum", given: { enum: [5, 10, 20] }, want: ["5", "10"] },
    { name: "an enum of one: none", given: { enum: [5] }, want: undefined },
    {
      name: "one integer allowed: none",
      given: { type: "integer", minimum: 3, maximum: 3 },
      want: undefined,
    },
    { name: "text: none", given: { type: "string" }, want: undefined },
  ])("$name", ({ given, want }) => {
    expect(twoValidValues(given)).toEqual(want);
  });
});
