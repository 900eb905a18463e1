// Every style and explode of OpenAPI 3.1's style table, on its own example values: the primitive
// "blue", the array ["blue", "black", "brown"] and the object { R: 100, G: 200, B: 150 }.
import { describe, expect, it } from "vitest";
import {
  cookiePair,
  headerValue,
  type ParameterWire,
  pathSegment,
  queryPart,
} from "../src/runtime/parameter-styles.js";
import { chooseRequirement, type SchemeWire } from "../src/runtime/security.js";

const primitive = "blue";
const array = ["blue", "black", "brown"];
const object = { R: 100, G: 200, B: 150 };

const wire = (at: ParameterWire["in"], style?: string, explode?: boolean): ParameterWire => ({
  name: "color",
  in: at,
  ...(style ? { style } : {}),
  ...(explode === undefined ? {} : { explode }),
});

const paths: { given: ParameterWire; value: unknown; want: string }[] = [
  { given: wire("path"), value: primitive, want: "blue" },
  { given: wire("path"), value: array, want: "blue,black,brown" },
  { given: wire("path"), value: object, want: "R,100,G,200,B,150" },
  { given: wire("path", "simple", true), value: object, want: "R=100,G=200,B=150" },
  { given: wire("path", "label"), value: primitive, want: ".blue" },
  { given: wire("path", "label"), value: array, want: ".blue,black,brown" },
  { given: wire("path", "label", true), value: array, want: ".blue.black.brown" },
  { given: wire("path", "label", true), value: object, want: ".R=100.G=200.B=150" },
  { given: wire("path", "matrix"), value: primitive, want: ";color=blue" },
  { given: wire("path", "matrix"), value: array, want: ";color=blue,black,brown" },
  { given: wire("path", "matrix", true), value: array, want: ";color=blue;color=black;color=brown" },
  { given: wire("path", "matrix"), value: object, want: ";color=R,100,G,200,B,150" },
  { given: wire("path", "matrix", true), value: object, want: ";R=100;G=200;B=150" },
  { given: wire("path"), value: "a/b c", want: "a%2Fb%20c" },
];

const queries: { given: ParameterWire; value: unknown; want: string }[] = [
  { given: wire("query"), value: primitive, want: "color=blue" },
  { given: wire("query"), value: array, want: "color=blue&color=black&color=brown" },
  { given: wire("query", "form", false), value: array, want: "color=blue,black,brown" },
  { given: wire("query"), value: object, want: "R=100&G=200&B=150" },
  { given: wire("query", "form", false), value: object, want: "color=R,100,G,200,B,150" },
  { given: wire("query", "spaceDelimited", false), value: array, want: "color=blue%20black%20brown" },
  { given: wire("query", "pipeDelimited", false), value: array, want: "color=blue|black|brown" },
  { given: wire("query", "deepObject", true), value: object, want: "color[R]=100&color[G]=200&color[B]=150" },
  { given: { name: "q", in: "query", allowReserved: true }, value: "a/b?c", want: "q=a/b?c" },
  { given: { name: "q", in: "query" }, value: "a/b?c", want: "q=a%2Fb%3Fc" },
  { given: { name: "q", in: "query", json: true }, value: ["A"], want: "q=%5B%22A%22%5D" },
  { given: { name: "q", in: "query" }, value: undefined, want: "" },
];

describe("path segments", () => {
  it.each(paths)("$given.style $given.explode $value", ({ given, value, want }) => {
    expect(pathSegment(given, value)).toBe(want);
  });
});

describe("query parts", () => {
  it.each(queries)("$given.style $given.explode $value", ({ given, value, want }) => {
    expect(queryPart(given, value)).toBe(want);
  });
});

describe("headers and cookies", () => {
  it.each([
    { given: wire("header"), value: array, want: "blue,black,brown" },
    { given: wire("header"), value: object, want: "R,100,G,200,B,150" },
    { given: wire("header", "simple", true), value: object, want: "R=100,G=200,B=150" },
  ])("header $given.explode $value", ({ given, value, want }) => {
    expect(headerValue(given, value)).toBe(want);
  });
  it.each([
    { given: wire("cookie"), value: primitive, want: "color=blue" },
    { given: wire("cookie"), value: "a b;", want: "color=a%20b%3B" },
  ])("cookie $value", ({ given, value, want }) => {
    expect(cookiePair(given, value)).toBe(want);
  });
});

describe("choosing a security requirement", () => {
  const schemes: Record<string, SchemeWire> = {
    key: { type: "apiKey", in: "header", name: "X-KEY" },
    sig: { type: "signing" },
    bearer: { type: "http", scheme: "bearer" },
    basic: { type: "http", scheme: "basic" },
  };
  const none = { auth: {}, apiKey: undefined, bearerToken: undefined, hasSecret: false };
  it.each([
    {
      given: "an optional key, with a key",
      alternatives: [[], ["key"]],
      has: { apiKey: "k" },
      want: { chosen: ["key"] },
    },
    { given: "an optional key, without one", alternatives: [[], ["key"]], has: {}, want: { chosen: [] } },
    { given: "no requirement", alternatives: [], has: {}, want: { chosen: [] } },
    {
      given: "key and signature, without the secret",
      alternatives: [["key", "sig"]],
      has: { apiKey: "k" },
      want: { missing: ["apiSecret"] },
    },
    {
      given: "bearer or basic, with basic",
      alternatives: [["bearer"], ["basic"]],
      has: { auth: { basic: { username: "u", password: "p" } } },
      want: { chosen: ["basic"] },
    },
    {
      given: "bearer, without a token",
      alternatives: [["bearer"]],
      has: {},
      want: { missing: ["bearerToken"] },
    },
    {
      given: "basic, without credentials",
      alternatives: [["basic"]],
      has: {},
      want: { missing: ["auth.basic"] },
    },
  ])("$given", ({ alternatives, has, want }) => {
    expect(chooseRequirement(alternatives, schemes, { ...none, ...has })).toEqual(want);
  });
});
