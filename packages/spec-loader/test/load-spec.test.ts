import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  escapeSegment,
  InputError,
  loadSpec,
  MAX_NESTING_DEPTH,
  maxInputBytes,
  parseSpecText,
  SpecError,
  segmentsOf,
  specFromText,
  valueAt,
} from "../src/index.js";
import { checkJsonDepth, decodeText, findTooDeep, firstInvalidUtf8 } from "../src/input.js";

const work = mkdtempSync(join(tmpdir(), "spec-loader-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const fault = (run: () => unknown): SpecError => {
  try {
    run();
  } catch (error) {
    if (error instanceof SpecError) return error;
    throw error;
  }
  throw new Error("no SpecError");
};

describe("parseSpecText refuses what no reader should meet, located", () => {
  const cases: { given: string; want: string }[] = [
    {
      given: '{"a": [1, 2',
      want: "s# (line 1, column 12): expected a YAML or JSON document, found a syntax error",
    },
    { given: "a: b\na: c\n", want: "s# (line 2, column 1): expected a YAML or JSON document" },
    { given: "- 1\n- 2\n", want: "s#: expected an OpenAPI 3.1 object at the top level, found [1,2]" },
    {
      given: `{"x": ${"[".repeat(200)}${"]".repeat(200)}}`,
      want: "s# (line 1, column 134): expected arrays and objects nested at most 128 deep, found deeper nesting",
    },
    {
      given: `x: ${"{a: ".repeat(200)}1${"}".repeat(200)}\n`,
      want: "s# (line 1, column 516): expected arrays and objects nested at most 128 deep",
    },
    {
      given: `x:\n${Array.from({ length: 140 }, (_, i) => `${" ".repeat(i + 1)}k:`).join("\n")} 1\n`,
      want: "s#/x/k/k/k",
    },
    {
      given: "a: &x\n  b: *x\n",
      want: "s#/a/b (line 2, column 3): expected a tree of values, found a YAML alias inside the node it names",
    },
  ];
  it.each(cases)("$want", ({ given, want }) => {
    expect(fault(() => parseSpecText("s", given)).message).toContain(want);
  });

  it("reads JSON strings holding brackets and escaped quotes without counting them", () => {
    const text = JSON.stringify({ openapi: "3.1.0", note: `${"[".repeat(500)}\\"{` });
    expect(parseSpecText("s", text).note).toHaveLength(503);
  });

  it("accepts a document the model would refuse (no paths, no operationIds)", () => {
    expect(specFromText("s", "openapi: 3.1.0\ninfo: {}\n").document).toEqual({ openapi: "3.1.0", info: {} });
  });

  it("locates a pointer at its key", () => {
    const spec = specFromText("s", "openapi: 3.1.0\npaths:\n  /a:\n    get: {}\n");
    expect(spec.locate?.("/paths/~1a/get")).toEqual({ line: 4, column: 5 });
  });
});

describe("decodeText", () => {
  const cases: { given: number[]; want: string | RegExp }[] = [
    { given: [0x61, 0xff, 0x62], want: "the byte 0xff at byte offset 1" },
    { given: [0x61, 0x0a, 0xc3, 0x28], want: /\(line 2, column 1\).*0xc3 at byte offset 2/ },
    { given: [0xe2, 0x82], want: "the byte 0xe2 at byte offset 0" },
    { given: [0xed, 0xa0, 0x80], want: "the byte 0xed at byte offset 0" },
    { given: [0xc0, 0xaf], want: "the byte 0xc0 at byte offset 0" },
    { given: [0x61, 0x00], want: "U+0000 (NUL) at byte offset 1" },
    { given: [0xef, 0xbb, 0xbf, 0x61, 0x1b], want: "U+001B at byte offset 4" },
  ];
  it.each(cases)("refuses %j", ({ given, want }) => {
    expect(() => decodeText(Uint8Array.from(given), "f")).toThrow(want);
  });

  it("keeps tab, line feed, carriage return and any valid UTF-8, and drops a byte order mark", () => {
    const text = "a\tb\r\nc é € 𝄞";
    expect(decodeText(Buffer.from(`\ufeff${text}`), "f")).toBe(text);
    expect(firstInvalidUtf8(Buffer.from(text))).toBe(Buffer.byteLength(text));
  });
});

describe("limits", () => {
  it("reads no more than the cap from an endless device, and names the setting", () => {
    expect(() => loadSpec("/dev/zero", { maxBytes: 1024 })).toThrow(
      "/dev/zero#: expected at most 1024 bytes (raise the cap with --max-input-bytes or MARKETAPI_MAX_INPUT_BYTES), found more",
    );
  });

  it("refuses YAML of more tokens than one per 8 bytes of the cap; the same data as JSON passes", () => {
    const file = join(work, "tokens.yaml");
    writeFileSync(file, `openapi: 3.1.0\nx: [${"1, ".repeat(400)}1]\n`);
    expect(() => loadSpec(file, { maxBytes: 4096 })).toThrow(
      /: expected at most 512 YAML tokens .*, found more$/,
    );
    const json = join(work, "tokens.json");
    writeFileSync(json, JSON.stringify({ openapi: "3.1.0", x: Array(401).fill(1) }));
    expect(loadSpec(json, { maxBytes: 4096 }).document.x).toHaveLength(401);
  });

  it("refuses a file over the cap by its size", () => {
    const file = join(work, "big.yaml");
    writeFileSync(file, `openapi: 3.1.0\nx: ${"a".repeat(5000)}\n`);
    expect(() => loadSpec(file, { maxBytes: 4096 })).toThrow(/found 5019 bytes$/);
    expect(loadSpec(file, { maxBytes: 8192 }).document.openapi).toBe("3.1.0");
  });

  const settings: { given: { flag?: string; env?: string }; want: number | string }[] = [
    { given: {}, want: 16 * 1024 * 1024 },
    { given: { env: "1000" }, want: 1000 },
    { given: { flag: "2000", env: "1000" }, want: 2000 },
    {
      given: { env: "1e6" },
      want: 'MARKETAPI_MAX_INPUT_BYTES: expected a positive whole number of bytes, found "1e6"',
    },
    { given: { flag: "0" }, want: '--max-input-bytes: expected a positive whole number of bytes, found "0"' },
  ];
  it.each(settings)("maxInputBytes(%j)", ({ given, want }) => {
    const read = () => maxInputBytes(given.flag, { MARKETAPI_MAX_INPUT_BYTES: given.env });
    if (typeof want === "number") expect(read()).toBe(want);
    else expect(read).toThrow(want);
  });

  it("counts JSON depth on the text, and finds the pointer of a deep parsed node", () => {
    expect(() => checkJsonDepth("[[[]]]", "t", 3)).not.toThrow();
    expect(() => checkJsonDepth("[[[[]]]]", "t", 3)).toThrow(InputError);
    let deep: unknown = 1;
    for (let i = 0; i < MAX_NESTING_DEPTH + 1; i++) deep = { k: deep };
    expect(findTooDeep(deep)).toEqual({ pointer: `/k`.repeat(MAX_NESTING_DEPTH), cycle: false });
  });

  it("names a directory and a missing file", () => {
    expect(fault(() => loadSpec(work)).message).toBe(`${work}#: expected a file, found a directory`);
    expect(fault(() => loadSpec(join(work, "none.yaml"))).message).toMatch(
      /none\.yaml#: expected a readable YAML or JSON file, found an error: ENOENT/,
    );
  });
});

describe("package specs and pointers", () => {
  it("loads @marketapi/spec by name, and names an unknown package", () => {
    expect(loadSpec().document.openapi).toMatch(/^3\.1\./);
    expect(fault(() => loadSpec("@marketapi/no-such-package")).message).toBe(
      '@marketapi/no-such-package#: expected a file, or an installed package that exports "@marketapi/no-such-package/openapi.json", found neither',
    );
  });

  const pointers: { given: string; want: string[] }[] = [
    { given: "", want: [] },
    { given: "/paths/~1api~1v3/get", want: ["paths", "/api/v3", "get"] },
    { given: "#/components/schemas/a%20b", want: ["components", "schemas", "a b"] },
    { given: "/a~01", want: ["a~1"] },
  ];
  it.each(pointers)("segmentsOf($given)", ({ given, want }) => {
    expect(segmentsOf(given)).toEqual(want);
  });

  it("escapes a segment and reads a value", () => {
    expect(escapeSegment("/a~b")).toBe("~1a~0b");
    expect(valueAt({ a: [{ b: 1 }] }, "/a/0/b")).toBe(1);
    expect(valueAt({ a: 1 }, "/b")).toBeUndefined();
  });
});

describe('openApi30: "upgrade" (the readers of 3.1 and 3.0: codegen, docs)', () => {
  const yaml30 =
    'openapi: 3.0.3\ninfo: { title: t, version: "1" }\ncomponents:\n  schemas:\n    S: { type: string, nullable: true }\n';
  it.each([
    { given: yaml30, want: { openapi: "3.1.0", upgradedFrom: "3.0.3", S: { type: ["string", "null"] } } },
    {
      given: '{"openapi": "3.1.0", "components": {"schemas": {"S": {"type": "string"}}}}',
      want: { openapi: "3.1.0", upgradedFrom: undefined, S: { type: "string" } },
    },
  ])("reads $want.openapi (upgraded from $want.upgradedFrom)", ({ given, want }) => {
    const spec = specFromText("s", given, { openApi30: "upgrade" });
    expect({
      openapi: spec.document.openapi,
      upgradedFrom: spec.upgradedFrom,
      S: spec.document.components.schemas.S,
    }).toEqual(want);
    // The upgrade keeps the pointers: faults are still located in the text as written.
    expect(spec.locate?.("/components/schemas/S")).toEqual(
      specFromText("s", given).locate?.("/components/schemas/S"),
    );
  });

  it.each([
    {
      given: 'swagger: "2.0"\ninfo: {}\n',
      want: /^s#\/swagger \(line 1, column 1\): expected an OpenAPI 3\.1 document .*npx swagger2openapi.*found Swagger "2\.0"$/,
    },
    {
      given: "info: {}\nopenapi: 3.2.0\n",
      want: /^s#\/openapi \(line 2, column 1\): expected .*found "3\.2\.0"$/,
    },
    {
      given: '{\n  "openapi": "2.9"\n}',
      want: /^s#\/openapi \(line 2, column 3\): expected .*found "2\.9"$/,
    },
  ])("refuses $given, located, before parsing", ({ given, want }) => {
    expect(fault(() => specFromText("s", given, { openApi30: "upgrade" })).message).toMatch(want);
  });

  it("leaves a 3.0 document as parsed without the option", () => {
    const spec = specFromText("s", yaml30);
    expect(spec.document.openapi).toBe("3.0.3");
    expect(spec.upgradedFrom).toBeUndefined();
  });

  it("loadSpec passes the option on", () => {
    const file = join(work, "v30.yaml");
    writeFileSync(file, yaml30);
    expect(loadSpec(file, { openApi30: "upgrade" }).upgradedFrom).toBe("3.0.3");
  });
});
