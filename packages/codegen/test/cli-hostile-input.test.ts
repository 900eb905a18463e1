// Hostile specs against the real command: every one ends with exit 2, a first line that names the
// file and where in it, no stack trace, and a peak RSS far below what reading or building the
// input without bounds takes. Each command runs under /usr/bin/time (peak RSS) and an address-space
// limit of 3 GB, so that an unbounded read fails here instead of exhausting the machine.
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanScratch, LAUNCHER, scratchDir } from "./cli-support.js";

const root = scratchDir("hostile");
afterAll(() => cleanScratch(root));

const TIME = "/usr/bin/time";

const spec = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  openapi: "3.1.0",
  info: { title: "Hostile", version: "1" },
  paths,
  ...extra,
});
const operation = (id: string, schema: unknown = { type: "string" }) => ({
  get: {
    operationId: id,
    "x-auth-class": "none",
    responses: { "200": { description: "ok", content: { "application/json": { schema } } } },
  },
});
const manyOperations = (count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`/p${i}`, operation(`op_${i}`)]));
const good = JSON.stringify(spec({ "/a": operation("a") }));

interface Case {
  name: string;
  /** The spec file's name in the scratch folder, and its contents; or a path used as it is. */
  file?: string;
  input: string | Buffer | { path: string };
  /** The first line of stderr after "marketapi-codegen: ". */
  want: RegExp;
  /** Peak RSS bound in MB. */
  maxMb?: number;
}

const cases: Case[] = [
  {
    name: "/dev/zero: refused at the cap",
    input: { path: "/dev/zero" },
    want: /^(\.\.\/)*dev\/zero#: expected at most 16777216 bytes \(raise the cap with --max-input-bytes or MARKETAPI_MAX_INPUT_BYTES\), found more$/,
    maxMb: 250,
  },
  {
    name: "a 20 MB description: refused by its size before parsing",
    file: "big.json",
    input: JSON.stringify(spec({ "/a": { ...operation("a"), description: "x".repeat(20_000_000) } })),
    want: /^big\.json#: expected at most 16777216 bytes .*found 20000\d{3} bytes$/,
    maxMb: 250,
  },
  {
    name: "JSON nested 10,000 deep",
    file: "deep.json",
    input: good.replace(/}$/, `,"x-deep":${"[".repeat(10_000)}${"]".repeat(10_000)}}`),
    want: /^deep\.json# \(line 1, column \d+\): expected arrays and objects nested at most 128 deep, found deeper nesting$/,
  },
  {
    name: "YAML flow collections nested 100,000 deep",
    file: "deep-flow.yaml",
    input: `openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths: {}\nx-deep: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`,
    want: /^deep-flow\.yaml# \(line 4, column 137\): expected arrays and objects nested at most 128 deep/,
    maxMb: 250,
  },
  {
    name: "a YAML alias inside the node it names",
    file: "alias.yaml",
    input: 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths: {}\nx-loop: &loop\n  again: *loop\n',
    want: /^alias\.yaml#\/x-loop\/again \(line 5, column 3\): expected a tree of values, found a YAML alias inside the node it names$/,
  },
  {
    name: "a schema that is a $ref to itself",
    file: "self-ref.json",
    input: JSON.stringify(
      spec(
        { "/a": operation("a", { $ref: "#/components/schemas/A" }) },
        { components: { schemas: { A: { $ref: "#/components/schemas/A" } } } },
      ),
    ),
    want: /^self-ref\.json#\/components\/schemas\/A\/\$ref \(line 1, column \d+\): expected a reference that leads to a value, found a loop of references: #\/components\/schemas\/A → #\/components\/schemas\/A$/,
  },
  {
    name: "two schemas that refer to each other",
    file: "ref-loop.json",
    input: JSON.stringify(
      spec(
        { "/a": operation("a", { $ref: "#/components/schemas/A" }) },
        {
          components: {
            schemas: { A: { $ref: "#/components/schemas/B" }, B: { $ref: "#/components/schemas/A" } },
          },
        },
      ),
    ),
    want: /^ref-loop\.json#\/components\/schemas\/A\/\$ref .*found a loop of references: #\/components\/schemas\/A → #\/components\/schemas\/B → #\/components\/schemas\/A$/,
  },
  {
    name: "9,000 operations",
    file: "many.json",
    input: JSON.stringify(spec(manyOperations(9000))),
    want: /^many\.json#\/paths \(line 1, column \d+\): expected at most 2000 operations in one run .*found 9000$/,
    maxMb: 1000,
  },
  {
    name: "invalid UTF-8",
    file: "bad-utf8.json",
    input: Buffer.concat([
      Buffer.from(good.slice(0, 40)),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(good.slice(40)),
    ]),
    want: /^bad-utf8\.json# \(line 1, column 41\): expected UTF-8 text, found the byte 0xc3 at byte offset 40, which is not valid UTF-8 there$/,
  },
  {
    // The version is read from the text before anything is parsed: GitHub's 13 MB description took
    // 644 MB and a minute to be refused at line 2 while the whole document was parsed for positions.
    name: "a 13 MB Swagger 2.0 document: refused at its version, before parsing",
    file: "swagger.json",
    input: `{\n  "swagger": "2.0",\n  "info": {"title": "t", "version": "1"},\n  "paths": {},\n  "x-pad": "${"x".repeat(13_000_000)}"\n}\n`,
    want: /^swagger\.json#\/swagger \(line 2, column 3\): expected an OpenAPI 3\.1 document .*swagger2openapi.*, found Swagger "2\.0"$/,
    maxMb: 150,
  },
  {
    name: "a 13 MB OpenAPI 3.2 document: refused at its version, before parsing",
    file: "three-two.yaml",
    input: `openapi: 3.2.0 # not yet\ninfo: {title: t, version: "1"}\npaths: {}\nx-pad: "${"x".repeat(13_000_000)}"\n`,
    want: /^three-two\.yaml#\/openapi \(line 1, column 1\): expected an OpenAPI 3\.1 document .*, found "3\.2\.0"$/,
    maxMb: 150,
  },
  {
    name: "a NUL byte",
    file: "nul.json",
    input: good.replace('"Hostile"', '"Host\u0000ile"'),
    want: /^nul\.json# \(line 1, column \d+\): expected text without control characters, found U\+0000 \(NUL\) at byte offset \d+$/,
  },
];

/** Runs the command under an address-space limit and /usr/bin/time: exit code, stderr, peak RSS. */
function runBounded(
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stderr: string; peakMb: number }> {
  const command = `ulimit -v 3000000; exec ${TIME} -f peak-rss-kb=%M "$@"`;
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", command, "sh", process.execPath, LAUNCHER, ...args], { cwd });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdout.resume();
    child.on("close", (code) => {
      const peak = Number(/peak-rss-kb=(\d+)/.exec(stderr)?.[1]) / 1024;
      const own = stderr.split("\n").filter((line) => !/^(peak-rss-kb=|Command exited)/.test(line));
      resolve({ code, stderr: own.join("\n"), peakMb: peak });
    });
  });
}

describe.skipIf(!existsSync(TIME)).concurrent("marketapi-codegen on hostile specs", () => {
  it.each(cases)("$name: exit 1, located, no stack trace", async ({ file, input, want, maxMb = 200 }) => {
    let path: string;
    if (typeof input === "object" && "path" in input) path = input.path;
    else {
      path = file!;
      writeFileSync(join(root, path), input);
    }
    const run = await runBounded(["--spec", path, "--out", "out", "--check"], root);
    expect(run.code, run.stderr).toBe(1);
    const first = run.stderr.split("\n")[0]!;
    expect(first.replace(/^marketapi-codegen: /, "")).toMatch(want);
    expect(run.stderr).not.toMatch(/\n\s+at |Error:/);
    expect(run.peakMb).toBeLessThan(maxMb);
  });
});
