import { describe, expect, it } from "vitest";
import {
  EXIT,
  EXIT_CODES_TABLE,
  InputFault,
  parseCommandLine,
  parseJsonFile,
  UsageError,
  wholeNumberOption,
  withNegativeValuesJoined,
} from "../src/index.js";

const OPTIONS = { spec: { type: "string" }, out: { type: "string" }, check: { type: "boolean" } } as const;

describe("parseCommandLine: a wrong command line, in one line", () => {
  it.each([
    { given: ["--sepc", "a.yaml"], want: "unknown option --sepc; did you mean --spec?" },
    { given: ["--chekc"], want: "unknown option --chekc; did you mean --check?" },
    { given: ["--zzzzzz"], want: "unknown option --zzzzzz" },
    { given: ["--spec"], want: "--spec needs a value" },
    { given: ["--check=yes"], want: "Option '--check' does not take an argument" },
    {
      given: ["--spec", ""],
      want: `--spec needs a value; got "" (an empty word, such as an unset variable)`,
    },
    { given: ["--out="], want: `--out needs a value; got "" (an empty word, such as an unset variable)` },
    {
      given: ["--spec", "a.yaml", "--out", ""],
      want: `--out needs a value; got "" (an empty word, such as an unset variable)`,
    },
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

describe("withNegativeValuesJoined: a negative number after an option that takes a value is its value", () => {
  it.each([
    { given: ["--spec", "-1"], want: ["--spec=-1"] },
    { given: ["--spec", "-x"], want: ["--spec", "-x"] },
    { given: ["--check", "-1"], want: ["--check", "-1"] },
    { given: ["--out", "-2.5", "a"], want: ["--out=-2.5", "a"] },
  ])("$given → $want", ({ given, want }) => {
    expect(withNegativeValuesJoined(given, OPTIONS)).toEqual(want);
  });

  it("so parseCommandLine reads it as the value", () => {
    expect(parseCommandLine(["--out", "-3"], OPTIONS).values).toEqual({ out: "-3" });
  });
});

describe("wholeNumberOption", () => {
  it.each([
    { given: ["7", 0, undefined], want: 7 },
    { given: ["0", 0, undefined], want: 0 },
    { given: ["0", 1, undefined], want: '--n takes a whole number, 1 or more; got "0"' },
    { given: ["-1", 0, undefined], want: '--n takes a whole number, 0 or more; got "-1"' },
    { given: ["1.5", 0, undefined], want: '--n takes a whole number, 0 or more; got "1.5"' },
    { given: ["1e3", 0, undefined], want: '--n takes a whole number, 0 or more; got "1e3"' },
    { given: ["70000", 0, 65535], want: '--n takes a whole number, from 0 to 65535; got "70000"' },
    { given: ["99999999999999999999", 0, undefined], want: /got "99999999999999999999"/ },
  ] as const)("$given → $want", ({ given: [text, min, max], want }) => {
    if (typeof want === "number") expect(wholeNumberOption("--n", text, min, max)).toBe(want);
    else expect(() => wholeNumberOption("--n", text, min, max)).toThrow(want);
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
