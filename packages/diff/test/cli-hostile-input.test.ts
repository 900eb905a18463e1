// Hostile documents against the real command: exit 1 (the document is at fault), a first line
// naming the file and where in it (which tells it from a breaking change), no stack trace, and a bounded peak RSS. The command runs
// under /usr/bin/time and a 3 GB address-space limit, so an unbounded read fails here instead of
// exhausting the machine.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const TIME = "/usr/bin/time";
const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "marketapi-diff.js");
const work = mkdtempSync(join(tmpdir(), "marketapi-diff-hostile-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const good = JSON.stringify({ openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {} });
writeFileSync(join(work, "good.json"), good);

const cases: { name: string; file: string; input: string | Buffer; want: RegExp }[] = [
  {
    name: "/dev/zero: refused at the cap",
    file: "/dev/zero",
    input: "",
    want: /^\/dev\/zero#: expected at most 16777216 bytes \(raise the cap with --max-input-bytes or MARKETAPI_MAX_INPUT_BYTES\), found more$/,
  },
  {
    name: "a 20 MB description: refused by its size",
    file: "big.json",
    input: good.replace("}}", `, "description": "${"x".repeat(20_000_000)}"}}`),
    want: /^big\.json#: expected at most 16777216 bytes .*found 20000\d{3} bytes$/,
  },
  {
    name: "JSON nested 10,000 deep",
    file: "deep.json",
    input: good.replace(/}$/, `,"x-deep":${"[".repeat(10_000)}${"]".repeat(10_000)}}`),
    want: /^deep\.json# \(line 1, column 202\): expected arrays and objects nested at most 128 deep, found deeper nesting$/,
  },
  {
    name: "YAML flow collections nested 100,000 deep",
    file: "deep.yaml",
    input: `openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths: {}\nx-deep: ${"{a: ".repeat(100_000)}1${"}".repeat(100_000)}\n`,
    want: /^deep\.yaml# \(line 4, column \d+\): expected arrays and objects nested at most 128 deep/,
  },
  {
    name: "a 15 MB YAML list of small maps (18 million tokens; 4.3 GB when parsed)",
    file: "many-nodes.yaml",
    input: `openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths: {}\nx-many:\n${"  - {a: 1, b: [x, y]}\n".repeat(700_000)}`,
    want: /^many-nodes\.yaml# \(line \d+, column \d+\): expected at most 2097152 YAML tokens .*, found more$/,
  },
  {
    name: "a YAML alias inside the node it names",
    file: "alias.yaml",
    input: 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\npaths: {}\nx-loop: &loop\n  - *loop\n',
    want: /^alias\.yaml#\/x-loop\/0 \(line 5, column 5\): expected a tree of values, found a YAML alias inside the node it names$/,
  },
  {
    name: "invalid UTF-8",
    file: "bad-utf8.json",
    input: Buffer.concat([Buffer.from(good.slice(0, 30)), Buffer.from([0xff]), Buffer.from(good.slice(30))]),
    want: /^bad-utf8\.json# \(line 1, column 31\): expected UTF-8 text, found the byte 0xff at byte offset 30, which is not valid UTF-8 there$/,
  },
  {
    name: "a NUL byte",
    file: "nul.yaml",
    input: 'openapi: 3.1.0\ninfo: {title: "t\u0000", version: "1"}\npaths: {}\n',
    want: /^nul\.yaml# \(line 2, column 17\): expected text without control characters, found U\+0000 \(NUL\) at byte offset 31$/,
  },
];

function runBounded(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; peakMb: number }> {
  const command = `ulimit -v 3000000; exec ${TIME} -f peak-rss-kb=%M "$@"`;
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", command, "sh", process.execPath, LAUNCHER, ...args], { cwd: work });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => {
      const peakMb = Number(/peak-rss-kb=(\d+)/.exec(stderr)?.[1]) / 1024;
      const own = stderr.split("\n").filter((line) => !/^(peak-rss-kb=|Command exited)/.test(line));
      resolve({ code, stdout, stderr: own.join("\n"), peakMb });
    });
  });
}

describe.skipIf(!existsSync(TIME)).concurrent("marketapi-diff on hostile documents", () => {
  it.each(cases)("$name: exit 1, located, no stack trace", async ({ file, input, want }) => {
    if (!file.startsWith("/")) writeFileSync(join(work, file), input);
    const run = await runBounded(["good.json", file]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.split("\n")[0]!.replace(/^marketapi-diff: /, "")).toMatch(want);
    expect(run.stderr).not.toMatch(/\n\s+at |Error:/);
    expect(run.peakMb).toBeLessThan(200);
  });
});
