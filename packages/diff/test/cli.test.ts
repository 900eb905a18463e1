// marketapi-diff as a user runs it: the built command, on files and on the installed spec package.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const specPath = join(packageDir, "..", "..", "specs", "spot-api.openapi.yaml");
const spec = readFileSync(specPath, "utf8");
const work = mkdtempSync(join(tmpdir(), "marketapi-diff-cli-"));
const PING = "Answers an empty object when the service is reachable.\n      tags: [Market data]\n      ";
const SIDE = "Order side (values filled from the live API).\n          schema:\n            ";
afterAll(() => rmSync(work, { recursive: true, force: true }));

function diff(...args: string[]) {
  const run = spawnSync(process.execPath, [join(packageDir, "bin", "marketapi-diff.js"), ...args], {
    cwd: packageDir,
    encoding: "utf8",
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A copy of the spec with one textual edit, which must apply exactly once. */
function edited(name: string, from: string, to: string): string {
  expect(spec.split(from).length - 1).toBe(1);
  const path = join(work, name);
  writeFileSync(path, spec.replace(from, to));
  return path;
}

describe("marketapi-diff", () => {
  it("finds nothing between the spec and the package built from it, and exits 0", () => {
    const run = diff(specPath, "@marketapi/spec");
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("0 breaking, 0 compatible, 0 informational");
    expect(run.code).toBe(0);
  });

  it("exits 1 on a breaking change and names it with its pointer and reason", () => {
    const tightened = edited(
      "ping-tightened.yaml",
      `${PING}x-auth-class: none\n      x-weight: 1`,
      `${PING}x-auth-class: trade\n      x-weight: 1`,
    );
    const run = diff(specPath, tightened);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("GET /api/v3/ping (ping)");
    expect(run.stdout).toContain(
      "/paths/~1api~1v3~1ping/get/x-auth-class: x-auth-class tightened from none to trade",
    );
  });

  it("exits 0 on compatible and informational changes, and lists them", () => {
    const weighted = edited(
      "ping-weight.yaml",
      `${PING}x-auth-class: none\n      x-weight: 1`,
      `${PING}x-auth-class: none\n      x-weight: 2`,
    );
    const run = diff(specPath, weighted);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("0 breaking, 0 compatible, 1 informational");
    expect(run.stdout).toContain("x-weight changed from 1 to 2");
  });

  it("writes JSON with --json and Markdown with --markdown", () => {
    const tightened = join(work, "ping-tightened.yaml");
    const json = JSON.parse(diff(specPath, tightened, "--json").stdout);
    expect(json.counts).toEqual({ breaking: 1, undecided: 0, compatible: 0, informational: 0 });
    expect(json.changes[0]).toMatchObject({
      class: "breaking",
      kind: "auth-class-tightened",
      pointer: "/paths/~1api~1v3~1ping/get/x-auth-class",
      in: "new",
      operation: "GET /api/v3/ping (ping)",
      operations: ["GET /api/v3/ping (ping)"],
      breaksImplementations: false,
    });
    const markdown = diff(specPath, tightened, "--markdown").stdout;
    expect(markdown).toContain(
      "### Breaking changes\n\n- **GET /api/v3/ping (ping)**: x-auth-class tightened",
    );
  });

  it.each([
    {
      given: "a file that is not there",
      file: () => join(work, "missing.yaml"),
      want: /missing\.yaml#: expected a readable YAML or JSON file, found an error: ENOENT/,
    },
    {
      given: "a YAML syntax error",
      file: () => edited("broken.yaml", "  title: marketapi Spot Trading API\n", "  title: [marketapi\n"),
      want: /broken\.yaml# \(line \d+, column \d+\): expected a YAML or JSON document, found a syntax error/,
    },
    {
      given: "a JSON syntax error",
      file: () => {
        const path = join(work, "broken.json");
        writeFileSync(
          path,
          '{\n  "openapi": "3.1.0",\n  "info": { "title": "x", "version": "1.0.0" },,\n  "paths": {}\n}\n',
        );
        return path;
      },
      want: /broken\.json# \(line 3, column \d+\): expected a YAML or JSON document, found a syntax error/,
    },
    {
      given: "an OpenAPI 3.2 document",
      file: () => edited("v32.yaml", "openapi: 3.1.0\n", "openapi: 3.2.0\n"),
      want: /v32\.yaml#\/openapi \(line 1, column 1\): expected an OpenAPI 3\.1 document \("openapi": "3\.1\.x"\), or 3\.0, which is upgraded first, found "3\.2\.0"/,
    },
    {
      given: "a Swagger 2.0 document",
      file: () => edited("v20.yaml", "openapi: 3.1.0\n", 'swagger: "2.0"\n'),
      want: /v20\.yaml#\/swagger \(line 1, column 1\): expected an OpenAPI 3\.1 document .*convert Swagger 2\.0/,
    },
    {
      given: "a $ref to nothing",
      file: () =>
        edited(
          "dangling.yaml",
          `${SIDE}$ref: "#/components/schemas/OrderSide"`,
          `${SIDE}$ref: "#/components/schemas/OrderSid"`,
        ),
      want: /dangling\.yaml#\/paths\/~1api~1v3~1order\/post\/parameters\/\d+\/schema\/\$ref \(line \d+, column \d+\): expected a reference to a node of this document, found "#\/components\/schemas\/OrderSid"/,
    },
    {
      given: "a package that is not installed",
      file: () => "@marketapi/nothing-here",
      want: /@marketapi\/nothing-here#: expected a file, or an installed package that exports "@marketapi\/nothing-here\/openapi\.json", found neither/,
    },
  ])("exits 1 on $given, saying file#pointer (line, column)", ({ file, want }) => {
    const run = diff(specPath, file());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(want);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("reads OpenAPI 3.0 as codegen and the docs read it: upgraded to 3.1, then compared", () => {
    const v30 = edited("v30.yaml", "openapi: 3.1.0\n", "openapi: 3.0.3\n");
    const run = diff(specPath, v30, "--json");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).changes).toEqual([]);
  });

  it("exits 2 on bad usage and 0 on --help", () => {
    expect(diff(specPath).code).toBe(2);
    expect(diff(specPath, specPath, "--json", "--markdown").code).toBe(2);
    expect(diff("--nope").stderr).toContain("Usage: marketapi-diff OLD NEW");
    const help = diff("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: marketapi-diff OLD NEW");
  });
});
