// Positions read from the text without parsing: pointers in JSON text, and the declared version.
import { describe, expect, it } from "vitest";
import { declaredVersion, locateInJson } from "../src/text-scan.js";

const json = `{
  "openapi": "3.1.0",
  "info": {"title": "a \\"q\\" }", "version": "1"},
  "paths": {
    "/a/{id}": {"get": {"parameters": [{"name": "x"}, {"name": "id", "in": "path"}]}}
  }
}`;

describe("locateInJson", () => {
  it.each([
    { given: "/openapi", want: { line: 2, column: 3 } },
    { given: "/info/version", want: { line: 3, column: 34 } },
    { given: "/paths/~1a~1{id}/get/parameters/1/in", want: { line: 5, column: 70 } },
    { given: "/paths/~1a~1{id}/get/parameters/1", want: { line: 5, column: 55 } },
    { given: "/paths/~1a~1{id}/get/nothing", want: { line: 5, column: 17 } },
    { given: "", want: { line: 1, column: 1 } },
  ])("$given", ({ given, want }) => {
    expect(locateInJson(json, given)).toEqual(want);
  });
});

describe("declaredVersion", () => {
  it.each([
    { given: json, want: { field: "openapi", value: "3.1.0", line: 2, column: 3 } },
    {
      given: '{"info": {"openapi": "x"}, "swagger": "2.0"}',
      want: { field: "swagger", value: "2.0", line: 1, column: 28 },
    },
    {
      given: "info:\n  openapi: nested\nopenapi: '3.0.3' # comment\n",
      want: { field: "openapi", value: "3.0.3", line: 3, column: 1 },
    },
    { given: '"swagger": "2.0"\npaths: {}\n', want: { field: "swagger", value: "2.0", line: 1, column: 1 } },
    { given: "paths: {}\n", want: undefined },
  ])("$want.field $want.value", ({ given, want }) => {
    expect(declaredVersion(given)).toEqual(want);
  });
});
