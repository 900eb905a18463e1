// Replay: a failure recorded by a run is re-sent from its JSON result, re-signed with a fresh
// timestamp, against the live server, through the command as a user runs it; the lines it prints
// send the same request, signed when they run.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { DEMO_CREDENTIALS } from "@marketapi/reference-server";
import { afterAll, describe, expect, it } from "vitest";
import { replaySequence } from "../src/replay.js";
import { behaviourFaults } from "./support/behaviour-faults.js";
import { explorationFaults } from "./support/exploration-faults.js";
import { startFaultProxy } from "./support/fault-proxy.js";
import { runContract } from "./support/run.js";
import { startReferenceServer } from "./support/server.js";

const run = promisify(execFile);
const CLI = fileURLToPath(new URL("../bin/marketapi-contract.js", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "contract-replay-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("marketapi-contract replay RESULT.json N", () => {
  it("re-sends a recorded signed failure with a fresh timestamp and prints curl lines that sign it when run", async () => {
    const server = await startReferenceServer();
    const fault = behaviourFaults(DEMO_CREDENTIALS).find((f) => f.name === "all-orders-newest-first")!;
    const proxy = await startFaultProxy(server.url, fault);
    try {
      const { apiKey, apiSecret } = server.credentials;
      const result = await runContract({
        baseUrl: proxy.url,
        apiKey,
        apiSecret,
        seed: 2,
        allowTrading: true,
      });
      expect(result.exitCode).toBe(1);
      const failures = result.cells.filter((c) => c.status === "failed").flatMap((c) => c.failures);
      const n = failures.findIndex((f) => f.check === "list_order" && f.operationId === "all_orders") + 1;
      expect(n).toBeGreaterThan(0);
      const file = join(scratch, "result.json");
      writeFileSync(file, JSON.stringify(result));
      const env = { ...process.env, MARKETAPI_API_KEY: apiKey, MARKETAPI_API_SECRET: apiSecret };
      const { stdout } = await run(process.execPath, [CLI, "replay", file, String(n)], { env });
      expect(stdout).toMatch(/^failure \d+: list_order · all_orders$/m);
      expect(stdout).toMatch(/re-sent \(re-signed with a fresh timestamp\): GET .*\/api\/v3\/allOrders\?/);
      expect(stdout).toMatch(/^answer: 200 \[/m);
      // The printed lines sign the request when they run, so they hold after the receive window.
      const script = /signed afresh when it runs[^\n]*\n((?: {2}.*\n)+)/
        .exec(stdout)?.[1]
        ?.replace(/^ {2}/gm, "");
      expect(script, stdout).toMatch(/-H "X-MBX-APIKEY: \$MARKETAPI_API_KEY"/);
      expect(script).not.toMatch(/signature=[0-9a-f]{64}/);
      const sent = await run("sh", ["-c", script!], { env });
      expect(JSON.parse(sent.stdout)).toBeInstanceOf(Array);
    } finally {
      await proxy.close();
      await server.close();
    }
  });

  it("says what is wrong with a bad file or number (exit 2)", async () => {
    const file = join(scratch, "empty.json");
    writeFileSync(file, JSON.stringify({ cells: [] }));
    const failed = await run(process.execPath, [CLI, "replay", file, "3"]).catch(
      (e) => e as { code: number; stderr: string },
    );
    expect((failed as { code: number }).code).toBe(2);
    expect((failed as { stderr: string }).stderr).toMatch(/holds 0 failure\(s\); there is no failure 3/);
  });
});

describe("replay of a failing sequence", () => {
  it("prints the minimal sequence as a script that signs itself and reproduces the failure", async () => {
    const server = await startReferenceServer();
    const fault = explorationFaults(DEMO_CREDENTIALS).find(
      (f) => f.name === "mismatched-ids-follow-orderId",
    )!;
    const proxy = await startFaultProxy(server.url, fault);
    try {
      const { apiKey, apiSecret } = server.credentials;
      const result = await runContract({
        baseUrl: proxy.url,
        apiKey,
        apiSecret,
        seed: 7,
        allowTrading: true,
        only: ["stateful_exploration"],
      });
      const failures = result.cells.filter((c) => c.status === "failed").flatMap((c) => c.failures);
      const n = failures.findIndex((f) => f.check === "stateful_exploration") + 1;
      expect(n, JSON.stringify(result.exploration)).toBeGreaterThan(0);
      const failure = failures[n - 1]!;
      const file = join(scratch, "sequence.json");
      writeFileSync(file, JSON.stringify(result));
      const printed = replaySequence(file, n)!;
      const script = printed.slice(printed.indexOf("#!/bin/sh"));
      const env = { ...process.env, MARKETAPI_API_KEY: apiKey, MARKETAPI_API_SECRET: apiSecret };
      const { stdout } = await run("sh", ["-c", script], { env });
      const answers = stdout.trimEnd().split("\n");
      // One answer per request of the sequence, none refused for its signature or its timestamp.
      expect(answers).toHaveLength(failure.sequence!.steps.length);
      expect(stdout).not.toMatch(/"code":-102[12]/);
      // The failing request behaves again as it did: the cancel whose ids disagree is served.
      const at = failure.sequence!.steps.findIndex((s) => s.exchange.case === failure.exchange!.case);
      expect(answers[at]).toMatch(/"orderId":\d+/);
    } finally {
      await proxy.close();
      await server.close();
    }
  });
});
