import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel } from "@marketapi/spec/model";
import { XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECKS } from "../src/checks/index.js";
import { CHECK_NAMES, type ContractResult } from "../src/index.js";
import { LOADED_MACHINE_TIMEOUT_MS } from "./support/run.js";
import { startReferenceServer, type TestServer } from "./support/server.js";

/** How many operations the spec has: tests count from the model, never a literal. */
const operationCount = buildSpecModel(loadOpenApi()).operations.length;

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const FIXTURES = new URL("../../../specs/examples/endpoint/valid/", import.meta.url);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  // The tester's 5 s per request is for real networks (test/support/run.ts says why it is not here).
  const timed = args.includes("--timeout") ? args : [...args, "--timeout", String(LOADED_MACHINE_TIMEOUT_MS)];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...timed], {
      env: { ...process.env, NO_COLOR: "1", MARKETAPI_API_KEY: "", MARKETAPI_API_SECRET: "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let dir: string;
let server: TestServer;

function endpointFile(name: string, record: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(record));
  return file;
}

beforeAll(async () => {
  if (!existsSync(CLI))
    throw new Error(
      `${CLI} is missing: build the package first (npx turbo run build --filter=@marketapi/contract)`,
    );
  dir = mkdtempSync(join(tmpdir(), "marketapi-contract-"));
  server = await startReferenceServer();
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

describe("the marketapi-contract command", () => {
  it("with no arguments tests the embedded reference server and exits 0", async () => {
    const run = await cli([]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/reference server \(embedded, demo account\)/);
    expect(run.stdout).toMatch(
      // One column per check, labelled as its module says, in the order of CHECKS.
      new RegExp(`^operation\\s+${CHECKS.map((check) => check.label).join("\\s+")}$`, "m"),
    );
    expect(run.stdout).toMatch(/^order_book\s+✓ \d+/m);
    expect(run.stdout).toMatch(/exit 0 \(every check that ran passed\); reproduce with --seed \d+/);
  });

  it("tests an Endpoint with status test (trading allowed, its headers sent) and writes well-formed JUnit", async () => {
    const { startFaultProxy } = await import("./support/fault-proxy.js");
    const tenants = new Set<string | undefined>();
    const recorder = await startFaultProxy(server.url, {
      name: "record",
      description: "records the X-Tenant header of every request",
      caughtBy: [],
      request: (req) => {
        tenants.add(req.headers["x-tenant"]);
        return req;
      },
    });
    const base = JSON.parse(readFileSync(new URL("r4-template-hl7-fhir-rest.json", FIXTURES), "utf8"));
    const file = endpointFile("test.json", {
      ...base,
      status: "test",
      address: recorder.url,
      period: { start: "2020-01-01" },
      header: [`X-MBX-APIKEY: ${server.credentials.apiKey}`, "X-Tenant: contract <&> tests"],
    });
    const report = join(dir, "junit.xml");
    const run = await cli(
      ["--endpoint", file, "--reference-extras", "--report", report, "--seed", "3", "--json"],
      {
        MARKETAPI_API_SECRET: server.credentials.apiSecret,
      },
    );
    await recorder.close();
    expect(run.code, run.stderr).toBe(0);
    expect([...tenants]).toEqual(["contract <&> tests"]);
    const result = JSON.parse(run.stdout) as ContractResult;
    expect(result.trading).toBe(true);
    expect(result.seed).toBe(3);
    expect(result.target.kind).toBe("endpoint");
    expect(
      result.cells.find((c) => c.check === "order_lifecycle" && c.operationId === "new_order")?.status,
    ).toBe("passed");
    expect(run.stderr).toMatch(/✓ order_book/);
    const xml = readFileSync(report, "utf8");
    expect(XMLValidator.validate(xml)).toBe(true);
    // One suite per check, and the coverage suite (a case per operation).
    expect(xml.match(/<testsuite /g)).toHaveLength(CHECK_NAMES.length + 1);
    expect(xml.match(/<testcase /g)).toHaveLength((CHECK_NAMES.length + 1) * operationCount);
    expect(xml).not.toContain(server.credentials.apiKey);
  });

  it("refuses an Endpoint whose status is off, with exit 1 (the record is at fault) and the reason", async () => {
    const base = JSON.parse(readFileSync(new URL("r4-template-hl7-fhir-rest.json", FIXTURES), "utf8"));
    const file = endpointFile("off.json", { ...base, status: "off", address: server.url });
    const report = join(dir, "off.xml");
    const run = await cli(["--endpoint", file, "--report", report]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/status "off"; only an endpoint with status "active" or "test" is tested/);
  });

  it("reports contract failures with exit 1, the request masked and the schema path", async () => {
    const { startFaultProxy, mapJson } = await import("./support/fault-proxy.js");
    const proxy = await startFaultProxy(server.url, {
      name: "price-as-number",
      description: "",
      caughtBy: [],
      response: (req, res) =>
        req.path === "/api/v3/ticker/bookTicker" && res.status === 200
          ? mapJson(res, (j) => (Array.isArray(j) ? j : { ...(j as object), bidPrice: 1.5 }))
          : res,
    });
    try {
      const run = await cli(
        ["--base-url", proxy.url, "--only", "response_schema_conformance", "--max-requests", "150"],
        {
          MARKETAPI_API_KEY: server.credentials.apiKey,
        },
      );
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toMatch(/response_schema_conformance · order_book_ticker/);
      expect(run.stdout).toMatch(/schema path: \/bidPrice \[type\]/);
      expect(run.stdout).toMatch(
        /request: {2}GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/ticker\/bookTicker\?symbol=BTCUSDT/,
      );
      expect(run.stdout).toMatch(/response: 200 application\/json/);
      expect(run.stdout).not.toContain(server.credentials.apiKey);
    } finally {
      await proxy.close();
    }
  });

  it("cancels the orders it created when interrupted with Ctrl-C (SIGINT), exit 130", async () => {
    const { startFaultProxy } = await import("./support/fault-proxy.js");
    // 30 ms per request: the run is slow enough to be interrupted in the middle of the trading part.
    const slow = await startFaultProxy(server.url, {
      name: "slow",
      description: "",
      caughtBy: [],
      request: async (req) => {
        await delay(30);
        return req;
      },
    });
    try {
      const child = spawn(process.execPath, [CLI, "--base-url", slow.url, "--allow-trading"], {
        env: {
          ...process.env,
          NO_COLOR: "1",
          MARKETAPI_API_KEY: server.credentials.apiKey,
          MARKETAPI_API_SECRET: server.credentials.apiSecret,
        },
      });
      let stdout = "";
      let stderr = "";
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      const code = await new Promise<number | null>((resolve) => {
        child.stdout.on("data", (d) => {
          stdout += d;
          if (/order lifecycle on/.test(stdout) && !child.killed) setTimeout(() => child.kill("SIGINT"), 300);
        });
        child.on("close", resolve);
      });
      expect(code, stdout + stderr).toBe(130);
      expect(stderr).toMatch(/interrupted; cancelling the orders this run created/);
      expect(stdout).toMatch(/exit 130 \(interrupted\)/);
      expect(stdout).not.toMatch(/may still be open/);
      // The widest receive window: on a loaded machine this process may wait seconds for the CPU
      // between signing and being served, and the question here is only which orders are open.
      const query = `recvWindow=60000&timestamp=${Date.now()}`;
      const { hmacHex } = await import("../src/index.js");
      const open = await fetch(
        `${server.url}/api/v3/openOrders?${query}&signature=${hmacHex(server.credentials.apiSecret, query)}`,
        { headers: { "X-MBX-APIKEY": server.credentials.apiKey } },
      );
      expect(await open.json()).toEqual([]);
    } finally {
      await slow.close();
    }
  });

  it("explains usage errors with exit 2 and a short usage; an unreachable server exits 3", async () => {
    const help = await cli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--allow-trading/);
    const bad = await cli(["--max-requests", "0"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /--max-requests takes a whole number, 1 or more; got "0"\nUsage: marketapi-contract /,
    );
    const typo = await cli(["--base-ulr", "http://127.0.0.1:9"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(
      /^marketapi-contract: unknown option --base-ulr; did you mean --base-url\?\nUsage: /,
    );
    const down = await cli(["--base-url", "http://127.0.0.1:9", "--timeout", "500"]);
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it("accepts the report's short column names in --only, and names both forms for an unknown one", async () => {
    const run = await cli(["--base-url", server.url, "--only", "schema,5xx", "--max-requests", "200"]);
    expect(run.stderr).toBe("");
    const header = run.stdout.split("\n").find((line) => line.startsWith("operation"));
    expect(header?.split(/\s+/)).toEqual(["operation", "5xx", "schema"]);
    expect(run.stdout).toMatch(/^\s+schema\s+response_schema_conformance$/m);
    const full = await cli([
      "--base-url",
      server.url,
      "--only",
      "response_schema_conformance",
      "--max-requests",
      "50",
    ]);
    expect(
      full.stdout
        .split("\n")
        .find((line) => line.startsWith("operation"))
        ?.split(/\s+/),
    ).toEqual(["operation", "schema"]);
    const bad = await cli(["--only", "schema,schemas"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^marketapi-contract: --only: unknown check "schemas"; did you mean "schema"\?; known: 5xx \(not_a_server_error\), /,
    );
    expect(bad.stdout).toBe("");
  });

  it("prints a connection error once, with no table and no pass/fail summary", async () => {
    const closed = await closedPort();
    const down = await cli(["--base-url", `http://127.0.0.1:${closed}`, "--timeout", "2000"]);
    expect(down.code).toBe(3);
    const said = `${down.stdout}\n${down.stderr}`;
    expect(said.match(/cannot reach/g), said).toHaveLength(1);
    expect(down.stderr).toMatch(
      new RegExp(
        `^marketapi-contract: connection error: cannot reach http://127\\.0\\.0\\.1:${closed}: .+\\n$`,
      ),
    );
    expect(down.stdout).not.toMatch(/passed|failed|skipped|FAILURES|operation\s+5xx/);
    const json = await cli(["--base-url", `http://127.0.0.1:${closed}`, "--json"]);
    expect(json.code).toBe(3);
    expect((JSON.parse(json.stdout) as ContractResult).error?.kind).toBe("connection");
    expect(json.stderr.match(/cannot reach/g)).toHaveLength(1);
  });

  it("stops at refused credentials before any table, saying the cause once (exit 2)", async () => {
    const key = server.credentials.apiKey;
    const run = await cli(["--base-url", server.url, "--api-key", key, "--api-secret", "not-the-secret"]);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const said = `${run.stdout}\n${run.stderr}`;
    expect(said.match(/-1022/g), said).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^marketapi-contract: usage error: the credentials were refused: \w+ answered status 400 code -1022 .+; check --api-key and --api-secret \(and the clock\)\n$/,
    );
    expect(run.stdout).not.toMatch(/passed|failed|skipped|operation\s+5xx/);
  });

  it("says what is wrong with a negative or non-numeric --max-requests", async () => {
    for (const value of ["-1", "-5", "1e3", "ten"]) {
      const run = await cli(["--max-requests", value]);
      expect(run.code, value).toBe(2);
      expect(run.stderr.split("\n")[0]).toBe(
        `marketapi-contract: --max-requests takes a whole number, 1 or more; got ${JSON.stringify(value)}`,
      );
    }
    const empty = await cli(["--base-url", ""]);
    expect(empty.code).toBe(2);
    expect(empty.stderr.split("\n")[0]).toBe(
      'marketapi-contract: --base-url needs a value; got "" (an empty word, such as an unset variable)',
    );
    const timeout = await cli(["--timeout", "-1"]);
    expect(timeout.stderr.split("\n")[0]).toBe(
      'marketapi-contract: --timeout takes a whole number, 1 or more; got "-1"',
    );
  });
});

/** A port on 127.0.0.1 that nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
