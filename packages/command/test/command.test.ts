import { describe, expect, it } from "vitest";
import {
  EXIT,
  EXIT_CODES_TABLE,
  InputFault,
  parseCommandLine,
  parseJsonFile,
  UsageError,
} from "../src/index.js";

const OPTIONS = { spec: { type: "string" }, out: { type: "string" }, check: { type: "boolean" } } as const;

describe("parseCommandLine: a wrong command line, in one line", () => {
  it.each([
    { given: ["--sepc", "a.yaml"], want: "unknown option --sepc; did you mean --spec?" },
    { given: ["--chekc"], want: "unknown option --chekc; did you mean --check?" },
    { given: ["--zzzzzz"], want: "unknown option --zzzzzz" },
    { given: ["--spec"], want: "--spec needs a value" },
    { given: ["--check=yes"], want: "Option '--check' does not take an argument" },
  ])("$given → $want", ({ given, want }) => {
    expect(() => parseCommandLine(given, OPTIONS)).toThrow(new UsageError(want));
  });

  it("reads a good one", () => {
    expect(parseCommandLine(["--spec", "a.yaml", "x"], OPTIONS)).toEqual({
      values: { spec: "a.yaml" },
      positionals: ["x"],
    });
  });
});

describe("parseJsonFile: a syntax error at its line and column", () => {
  it.each([
    { given: '{\n  "a": 1,\n  x\n}', want: "c.json (line 3, column 3): expected JSON, found a syntax error" },
    { given: "", want: "c.json (line 1, column 1): expected JSON, found a syntax error" },
    { given: '{"a": [1, 2', want: "c.json (line 1, column 12): expected JSON, found a syntax error" },
    {
      given: '{\n  "symbols": [\n  x\n}',
      want: "c.json (line 3, column 3): expected JSON, found a syntax error",
    },
    { given: "{ nope", want: "c.json (line 1, column 3): expected JSON, found a syntax error" },
    { given: '{"a": 1} x', want: "c.json (line 1, column 10): expected JSON, found a syntax error" },
    { given: '{"a": tru}', want: "c.json (line 1, column 10): expected JSON, found a syntax error" },
  ])("$given", ({ given, want }) => {
    expect(() => parseJsonFile(given, "c.json")).toThrow(InputFault);
    expect(() => parseJsonFile(given, "c.json")).toThrow(want);
  });
});

describe("the exit codes", () => {
  it("are the table's, each code once", () => {
    const codes = [...EXIT_CODES_TABLE.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(codes).toEqual(Object.values(EXIT));
  });
});
