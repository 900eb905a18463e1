// Hostile files against the real marketapi-validate: exit 1 (the file is at fault), a first line
// naming the file and where in it, no stack trace, and a bounded peak RSS. The command
// runs under /usr/bin/time and a 3 GB address-space limit, so an unbounded read fails here instead
// of exhausting the machine.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const TIME = "/usr/bin/time";
const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "marketapi-validate.js");
const work = mkdtempSync(join(tmpdir(), "marketapi-validate-hostile-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const record = JSON.stringify({ resourceType: "Endpoint", status: "active", address: "https://example.org" });

const cases: { name: string; file: string; input: string | Buffer; want: RegExp }[] = [
  {
    name: "/dev/zero: refused at the cap",
    file: "/dev/zero",
    input: "",
    want: /^\/dev\/zero: expected at most 16777216 bytes \(raise the cap with --max-input-bytes or MARKETAPI_MAX_INPUT_BYTES\), found more$/,
  },
  {
    name: "a 20 MB record: refused by its size",
    file: "big.json",
    input: record.replace("}", `, "name": "${"x".repeat(20_000_000)}"}`),
    want: /^big\.json: expected at most 16777216 bytes .*found 20000\d{3} bytes$/,
  },
  {
    name: "JSON nested a million deep",
    file: "deep.json",
    input: record.replace(/}$/, `,"extension":${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}}`),
    want: /^deep\.json \(line 1, column 217\): expected arrays and objects nested at most 128 deep, found deeper nesting$/,
  },
  {
    name: "invalid UTF-8",
    file: "bad-utf8.json",
    input: Buffer.concat([
      Buffer.from(record.slice(0, 20)),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from(record.slice(20)),
    ]),
    want: /^bad-utf8\.json \(line 1, column 21\): expected UTF-8 text, found the byte 0xed at byte offset 20, which is not valid UTF-8 there$/,
  },
  {
    name: "a NUL byte",
    file: "nul.json",
    input: record.replace("active", "act\u0000ive"),
    want: /^nul\.json \(line 1, column \d+\): expected text without control characters, found U\+0000 \(NUL\) at byte offset \d+$/,
  },
];

function runBounded(args: string[]): Promise<{ code: number | null; stderr: string; peakMb: number }> {
  const command = `ulimit -v 3000000; exec ${TIME} -f peak-rss-kb=%M "$@"`;
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", command, "sh", process.execPath, LAUNCHER, ...args], { cwd: work });
    let stderr = "";
    child.stdout.resume();
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => {
      const peakMb = Number(/peak-rss-kb=(\d+)/.exec(stderr)?.[1]) / 1024;
      const own = stderr.split("\n").filter((line) => !/^(peak-rss-kb=|Command exited)/.test(line));
      resolve({ code, stderr: own.join("\n"), peakMb });
    });
  });
}

describe.skipIf(!existsSync(TIME)).concurrent("marketapi-validate on hostile files", () => {
  it.each(cases)("$name: exit 1, located, no stack trace", async ({ file, input, want }) => {
    if (!file.startsWith("/")) writeFileSync(join(work, file), input);
    const run = await runBounded(["endpoint", file]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr.split("\n")[0]!.replace(/^marketapi-validate: /, "")).toMatch(want);
    expect(run.stderr).not.toMatch(/\n\s+at |Error:/);
    expect(run.peakMb).toBeLessThan(200);
  });
});
