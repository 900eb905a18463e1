// The tools that read the spec without generating code report no error on the bundled spec:
// Spectral's spectral:oas ruleset, swagger-parser's validate, Optic's strict OpenAPI validation and
// Redocly's recommended-strict rules. Each runs the way its users run it.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { openapiJsonPath } from "@marketapi/spec";
import { validateOpenApiV3Document } from "@useoptic/openapi-io";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const bin = (name: string) => new URL(`../../../node_modules/.bin/${name}`, import.meta.url).pathname;
const spec = () => JSON.parse(readFileSync(openapiJsonPath, "utf8"));
const dir = mkdtempSync(join(tmpdir(), "spec-readers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface SpectralResult {
  code: string;
  severity: number;
  path: (string | number)[];
  message: string;
}

async function spectral(document: unknown): Promise<SpectralResult[]> {
  const file = join(dir, `spectral-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(document));
  const ruleset = join(dir, ".spectral.yaml");
  writeFileSync(ruleset, 'extends: ["spectral:oas"]\n');
  // Spectral exits 1 when it finds errors; the JSON report on stdout says which.
  const result = await run(
    bin("spectral"),
    ["lint", file, "--ruleset", ruleset, "--format", "json", "--quiet"],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "[]" }));
  return JSON.parse(result.stdout || "[]") as SpectralResult[];
}

const errors = (results: SpectralResult[]) =>
  results.filter((r) => r.severity === 0).map((r) => `${r.code} at ${r.path.join("/")}: ${r.message}`);

describe("Spectral, spectral:oas", () => {
  it("reports no error", async () => {
    expect(errors(await spectral(spec()))).toEqual([]);
  });

  it("would report the tuple PriceLevel the spec used to have (the check can fail)", async () => {
    const document = spec();
    document.components.schemas.PriceLevel = {
      type: "array",
      prefixItems: [{ $ref: "#/components/schemas/Decimal" }, { $ref: "#/components/schemas/Decimal" }],
      items: false,
    };
    expect(errors(await spectral(document)).join("\n")).toContain("PriceLevel");
  });
});

describe("swagger-parser validate", () => {
  it("accepts the spec", async () => {
    await expect(SwaggerParser.validate(spec())).resolves.toBeDefined();
  });

  it("refuses a server variable with a description, the bug its bundled schema has (the check can fail)", async () => {
    const document = spec();
    document.servers[0].variables.base_url.description = "Base address.";
    await expect(SwaggerParser.validate(document)).rejects.toThrow(/variables\/base_url/);
  });
});

describe("Optic, strict OpenAPI validation", () => {
  it("accepts the spec", () => {
    expect(() => validateOpenApiV3Document(spec(), undefined, { strictOpenAPI: true })).not.toThrow();
  });

  it("refuses `items: false` (the check can fail)", () => {
    const document = spec();
    document.components.schemas.PriceLevel.items = false;
    expect(() => validateOpenApiV3Document(document, undefined, { strictOpenAPI: true })).toThrow(
      /PriceLevel/,
    );
  });
});

describe("Redocly lint, recommended-strict", () => {
  async function redocly(document: unknown) {
    const file = join(dir, `redocly-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(document));
    const config = join(dir, "redocly.yaml");
    writeFileSync(config, "extends:\n  - recommended-strict\ntelemetry: off\n");
    const result = await run(bin("redocly"), ["lint", file, "--config", config, "--format", "json"], {
      env: { ...process.env, REDOCLY_TELEMETRY: "off" },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const report = JSON.parse(result.stdout) as { totals: { errors: number; warnings: number } };
    return report.totals;
  }

  it("reports 0 problems", async () => {
    expect(await redocly(spec())).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("reports a broken reference (the check can fail)", async () => {
    const document = spec();
    document.components.schemas.OrderBook.properties.bids.items.$ref = "#/components/schemas/Nope";
    expect((await redocly(document)).errors).toBeGreaterThan(0);
  });
});
