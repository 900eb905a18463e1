// Values nested deeper than an OpenAPI style defines (deepObject's one level, an exploded form's
// properties), written in the bracket convention: Stripe's form bodies and deepObject queries are
// the model (`billing[address][city]`, `line_items[0][price]`, `expand[]`).
import { describe, expect, it } from "vitest";
import { encodeBody, type ParameterWire, queryPart } from "../src/wire.js";

const deep = (name: string): ParameterWire => ({ name, in: "query", style: "deepObject", explode: true });
const form = (name: string, explode = true): ParameterWire => ({ name, in: "query", style: "form", explode });

const queries: { given: ParameterWire; value: unknown; want: string }[] = [
  { given: deep("expand"), value: ["customer", "invoice"], want: "expand[]=customer&expand[]=invoice" },
  { given: deep("created"), value: { gt: 1, lte: 5 }, want: "created[gt]=1&created[lte]=5" },
  { given: deep("created"), value: 7, want: "created=7" },
  {
    given: deep("billing"),
    value: { address: { city: "Paris", line1: "1 rue" }, name: undefined },
    want: "billing[address][city]=Paris&billing[address][line1]=1%20rue",
  },
  {
    given: deep("items"),
    value: [{ price: "p_1", quantity: 2 }, { price: "p_2" }],
    want: "items[0][price]=p_1&items[0][quantity]=2&items[1][price]=p_2",
  },
  { given: deep("grid"), value: [[1, 2], [3]], want: "grid[0][]=1&grid[0][]=2&grid[1][]=3" },
  { given: deep("f"), value: { tags: ["a", "b"], on: true }, want: "f[tags][]=a&f[tags][]=b&f[on]=true" },
  { given: deep("n[a]"), value: { "k&y": "v=w" }, want: "n%5Ba%5D[k%26y]=v%3Dw" },
  { given: deep("empty"), value: {}, want: "" },
  { given: form("filter"), value: { status: "open", range: { gt: 1 } }, want: "status=open&range[gt]=1" },
  { given: form("rows"), value: [{ id: 1 }, { id: 2 }], want: "rows[0][id]=1&rows[1][id]=2" },
  { given: form("ids"), value: [1, 2], want: "ids=1&ids=2" },
  { given: form("ids", false), value: [1, 2], want: "ids=1,2" },
];

describe("nested query values", () => {
  it.each(queries)("$given.name $given.style $value", ({ given, value, want }) => {
    expect(queryPart(given, value)).toBe(want);
  });
});

describe("a form body whose encoding says deepObject", () => {
  it("writes nested objects and arrays in brackets, as Stripe reads them", () => {
    const encoding = {
      billing: { style: "deepObject", explode: true },
      line_items: { style: "deepObject", explode: true },
      expand: { style: "deepObject", explode: true },
    };
    const body = encodeBody(
      { mediaType: "application/x-www-form-urlencoded", required: true, encoding },
      {
        billing: { address: { city: "Paris" } },
        line_items: [{ price: "price_1", quantity: 2 }],
        expand: ["customer"],
        mode: "payment",
      },
    );
    expect(body.text).toBe(
      "billing[address][city]=Paris&line_items[0][price]=price_1&line_items[0][quantity]=2&expand[]=customer&mode=payment",
    );
  });
});
