// The published build: it must import from real ES modules in Node and in a browser bundle, with
// no require, no ajv and no code evaluation; and the marketapi-validate command must work.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { invalidEndpoints, newOrderFull, validEndpoints } from "./support.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const distDir = join(packageDir, "dist");
const fixturesDir = fileURLToPath(new URL("../../../specs/examples/endpoint/", import.meta.url));
let workDir: string;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/**
 * Builds dist/ as `npm run build` does (tsc, then the bundles) when it is missing or older than a
 * source file; turbo builds before testing anyway.
 */
function ensureBuilt(): void {
  let builtAt = 0;
  try {
    builtAt = Math.min(
      ...["index.js", "endpoint.js", "sandbox.js", "cli.js"].map((f) => statSync(join(distDir, f)).mtimeMs),
    );
  } catch {}
  const sources = [...files(join(packageDir, "src")), join(packageDir, "scripts", "bundle.mjs")];
  if (builtAt >= Math.max(...sources.map((f) => statSync(f).mtimeMs))) return;
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", join(packageDir, "tsconfig.build.json")], { stdio: "inherit" });
  execFileSync(process.execPath, [join(packageDir, "scripts", "bundle.mjs")], { stdio: "inherit" });
}

beforeAll(() => {
  ensureBuilt();
  mkdirSync(join(packageDir, "test-results"), { recursive: true });
  workDir = mkdtempSync(join(packageDir, "test-results", "dist-"));
});

function runNode(args: string[], input?: string) {
  return spawnSync(process.execPath, args, { cwd: workDir, encoding: "utf8", input });
}

const USE_SCRIPT = `
import { isEndpoint, parseRequest, validateEndpoint, validateRequest, validateResponse } from "@marketapi/validators";
import * as endpointOnly from "@marketapi/validators/endpoint";
import { readFileSync } from "node:fs";
const endpoint = JSON.parse(readFileSync(process.argv[2], "utf8"));
const body = JSON.parse(readFileSync(process.argv[3], "utf8"));
console.log(JSON.stringify({
  endpoint: validateEndpoint(endpoint),
  endpointOnly: endpointOnly.validateEndpoint(endpoint),
  endpointOnlyExports: Object.keys(endpointOnly).sort(),
  isEndpoint: isEndpoint(endpoint),
  broken: validateEndpoint({ ...endpoint, payloadMimeType: [" x"] }),
  request: validateRequest("new_order", { symbol: "BTCUSDT", side: "BUY", type: "LIMIT", quantity: 1 }),
  parsed: parseRequest("order_book", "symbol=BTCUSDT&limit=5"),
  response: validateResponse("new_order", 200, body, { variant: "FULL" }),
}));
`;

describe("the built package", () => {
  it("imports from a real .mjs module by its package name and validates", () => {
    const script = join(workDir, "use.mjs");
    writeFileSync(script, USE_SCRIPT);
    const endpoint = join(fixturesDir, "valid", "r4-endpoint-example.json");
    const body = join(workDir, "full.json");
    writeFileSync(body, JSON.stringify(newOrderFull()));
    const run = runNode([script, endpoint, body]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.endpoint).toEqual({ valid: true });
    expect(out.endpointOnly).toEqual({ valid: true });
    expect(out.endpointOnlyExports).toEqual(["check", "isEndpoint", "validateEndpoint"]);
    expect(out.isEndpoint).toBe(true);
    expect(out.broken.errors[0].message).toBe(
      "/payloadMimeType/0 must be a media type without leading, trailing or repeated whitespace",
    );
    expect(out.request.errors.map((e: { message: string }) => e.message)).toEqual([
      "/timeInForce is required when type is LIMIT",
      "/price is required when type is LIMIT",
    ]);
    expect(out.parsed).toEqual({ valid: true, params: { symbol: "BTCUSDT", limit: 5 } });
    expect(out.response).toEqual({ valid: true });
  });

  it("is one bundle per entry point plus the command", () => {
    expect(
      files(distDir)
        .filter((f) => f.endsWith(".js"))
        .map((f) => f.slice(distDir.length + 1))
        .sort(),
    ).toEqual(["cli.js", "endpoint.js", "index.js", "sandbox.js"]);
    expect(readFileSync(join(distDir, "cli.js"), "utf8")).toContain('from "./index.js"');
  });

  it("@marketapi/validators/sandbox checks the reference server's sandbox operations, in Node", () => {
    const script = `
import { validateRequest, validateResponse, sandboxOperationIds } from "@marketapi/validators/sandbox";
console.log(JSON.stringify({
  ids: sandboxOperationIds.filter((id) => !id.startsWith("sandbox_")),
  admin: sandboxOperationIds.filter((id) => id.startsWith("sandbox_")).length,
  advance: validateRequest("sandbox_advance_clock", "by=24h", { from: "query" }).valid,
  badAdvance: validateRequest("sandbox_advance_clock", "ms=-1", { from: "query" }).valid,
  ok: validateRequest("kline_candlestick_data", "symbol=BTCUSDT&interval=1h", { from: "query" }).valid,
  badInterval: validateRequest("kline_candlestick_data", "symbol=BTCUSDT&interval=2h30", { from: "query" }).valid,
  shortRow: validateResponse("kline_candlestick_data", 200, [[1, "1", "1", "1", "1", "1", 2]]).valid,
}));`;
    writeFileSync(join(workDir, "sandbox.mjs"), script);
    const run = runNode(["sandbox.mjs"]);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({
      ids: ["account_information", "account_trade_list", "kline_candlestick_data", "ui_klines"],
      admin: 13,
      advance: true,
      badAdvance: false,
      ok: true,
      badInterval: false,
      shortRow: false,
    });
  });

  it("contains no require, no code evaluation and no import of ajv", () => {
    const built = files(distDir).filter((f) => f.endsWith(".js"));
    for (const file of built) {
      const code = readFileSync(file, "utf8");
      const name = file.slice(distDir.length);
      expect(code, name).not.toMatch(/\brequire\s*\(/);
      expect(code, name).not.toMatch(/\bnew Function\b|\bFunction\s*\(|\beval\s*\(/);
      expect(code, name).not.toMatch(/from\s+["']ajv|import\s*\(\s*["']ajv/);
    }
  });

  it("bundles for the browser without node: modules or ajv, and the bundle validates", async () => {
    const result = await build({
      entryPoints: [join(distDir, "index.js")],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => input.includes("node_modules") || !input.endsWith(".js"))).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/["']node:/);
    expect(code).not.toMatch(/\brequire\s*\(/);
    expect(code).not.toMatch(/\bnew Function\b|\beval\s*\(/);
    const bundle = join(workDir, "bundle.mjs");
    writeFileSync(bundle, code);
    const check = join(workDir, "check-bundle.mjs");
    writeFileSync(
      check,
      `import { validateEndpoint } from "./bundle.mjs";\nconsole.log(JSON.stringify(validateEndpoint({ resourceType: "Endpoint" })));\n`,
    );
    const run = runNode([check]);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).errors.map((e: { path: string }) => e.path)).toEqual([
      "/connectionType",
      "/payloadType",
    ]);
    console.log(`browser bundle of the index: ${(code.length / 1024).toFixed(0)} KiB as esbuild prints it`);
  });
});

describe("marketapi-validate", () => {
  const cli = () => join(distDir, "cli.js");
  const validate = (args: string[], input?: string) => runNode([cli(), ...args], input);

  it("exits 0 when every Endpoint is valid", () => {
    const paths = validEndpoints().map((f) => join(fixturesDir, "valid", f.file));
    const run = validate(["endpoint", ...paths]);
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split("\n")).toHaveLength(paths.length);
    expect(run.stdout).toContain("r4-endpoint-example.json: valid");
  });

  it("exits 1 with file:path: message lines when one is invalid", () => {
    const fixture = invalidEndpoints().find((f) => f.file === "payload-mime-type-double-space.json")!;
    const file = join(workDir, "double-space.json");
    writeFileSync(file, JSON.stringify(fixture.data));
    const valid = join(fixturesDir, "valid", "r4-endpoint-example.json");
    const run = validate(["endpoint", valid, file]);
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      `${file}:/payloadMimeType/0: must be a media type without leading, trailing or repeated whitespace`,
    );
  });

  it("exits 1 for a file that cannot be read or is not JSON, after checking the others", () => {
    const broken = join(workDir, "broken.json");
    writeFileSync(broken, "{");
    const valid = join(fixturesDir, "valid", "r4-endpoint-example.json");
    const run = validate(["endpoint", valid, broken, join(workDir, "missing.json")]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("r4-endpoint-example.json: valid");
    expect(run.stderr).toContain("broken.json (line 1, column 2): expected JSON, found a syntax error");
    expect(run.stderr).toContain("missing.json: expected a readable JSON file, found an error: ENOENT");
  });

  it("prints its usage with --help and exits 0", () => {
    const run = validate(["--help"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("marketapi-validate endpoint FILE...");
  });

  it.each([
    [[]],
    [["endpoint"]],
    [["frobnicate"]],
    [["response", "nope", "200", "x.json"]],
    [["endpoint", "--bogus", "x"]],
  ])("exits 2 on bad usage: %j", (args) => {
    const run = validate(args);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("Usage:");
  });

  it("checks a response body by operation, status and variant, reading stdin for -", () => {
    const full = JSON.stringify(newOrderFull());
    const { fills: _, ...result } = newOrderFull();
    expect(validate(["response", "new_order", "200", "-"], full).status).toBe(0);
    expect(
      validate(
        ["response", "new_order", "200", "-", "--variant", "FULL"],
        JSON.stringify(result),
      ).stderr.trim(),
    ).toBe("-:/fills: is required");
    const undocumented = validate(["response", "ping", "302", "-"], "{}");
    expect(undocumented.status).toBe(1);
    expect(undocumented.stderr).toContain("status 302 is not documented");
  });

  it("checks request parameters as JSON or as query text, and prints JSON with --json", () => {
    const ok = validate(["request", "order_book", "-", "--query"], "symbol=BTCUSDT&limit=5\n");
    expect(ok.status).toBe(0);
    const bad = validate(["request", "order_book", "-", "--json"], '{"symbol":"BTCUSDT","limit":0}');
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual([
      {
        file: "-",
        valid: false,
        errors: [
          {
            path: "/limit",
            rule: "minimum",
            keyword: "minimum",
            params: { limit: 1 },
            message: "/limit must be at least 1",
          },
        ],
      },
    ]);
  });
});
