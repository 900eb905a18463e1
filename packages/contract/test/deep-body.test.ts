// A server whose every answer is JSON nested a million deep (2 MB of brackets): the tester counts
// the depth on the text and never builds the tree, so its memory stays near its baseline, and the
// run ends with exit 3 (the command could not do its job) and one located line.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const TIME = "/usr/bin/time";
const DEPTH = 1_000_000;
const body = `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`;

let server: Server | undefined;
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** Runs the command under /usr/bin/time -f %M: its exit code, output and peak RSS in kB. */
function runMeasured(args: string[]): Promise<{ code: number | null; stderr: string; peakKb: number }> {
  return new Promise((resolve) => {
    const child = spawn(TIME, ["-f", "peak-rss-kb=%M", process.execPath, CLI, ...args], {
      env: { ...process.env, NO_COLOR: "1", MARKETAPI_API_KEY: "", MARKETAPI_API_SECRET: "" },
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdout.resume();
    child.on("close", (code) => {
      const peak = /peak-rss-kb=(\d+)/.exec(stderr);
      resolve({ code, stderr: stderr.replace(/.*peak-rss-kb=\d+\n?/, ""), peakKb: Number(peak?.[1]) });
    });
  });
}

describe.skipIf(!existsSync(TIME))("a response nested a million deep", () => {
  it("is refused before parsing: exit 3, one located line, no stack, bounded memory", async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(body);
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const run = await runMeasured(["--base-url", url, "--timeout", "20000"]);
    expect(run.code).toBe(3);
    const lines = run.stderr.split("\n").filter((line) => line.startsWith("marketapi-contract:"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /the body \(line 1, column 129\): expected arrays and objects nested at most 128 deep/,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // The command's own baseline is about 100 MB; a parsed million-deep tree took 665 MB.
    expect(run.peakKb).toBeGreaterThan(0);
    expect(run.peakKb).toBeLessThan(250_000);
  });
});
