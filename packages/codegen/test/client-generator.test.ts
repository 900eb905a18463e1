// The client generator: files, headers, determinism, the symbols and date-time typing, subsets,
// and that what it emits is formatted and compiles.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSpec, SpecError } from "@marketapi/spec-loader";
import { afterAll, describe, expect, it } from "vitest";
import { CLIENT_FILES, generateClient } from "../src/client/generate-client.js";
import { CODEGEN_VERSION, GENERATED_MARKER } from "../src/generated-file.js";
import { selectOperations } from "../src/spec-input/select-operations.js";
import { buildModel, type SourcedSpecModel } from "../src/spec-input/spec-model.js";

const command = "marketapi-codegen --out src/generated --client";
const fixture = buildModel(
  await loadSpec(new URL("./fixtures/client-fixture.openapi.yaml", import.meta.url).pathname),
);
const repoSpec = buildModel(await loadSpec());

async function generate(model: SourcedSpecModel): Promise<Record<string, string>> {
  const files = await generateClient(model, { command, ownSpec: true });
  return Object.fromEntries(files.map((f) => [f.path, f.contents]));
}

const full = await generate(repoSpec);

describe("files", () => {
  it("emits the types, the operation table, the methods and their binding, each with the header", () => {
    expect(Object.keys(full)).toEqual([
      "spot-api.gen.ts",
      "operations.gen.ts",
      "methods.gen.ts",
      "facts.gen.ts",
      "client.gen.ts",
    ]);
    for (const contents of Object.values(full)) {
      expect(contents.split("\n").slice(0, 2)).toEqual([
        `// ${GENERATED_MARKER} ${CODEGEN_VERSION} (client) from @marketapi/spec.`,
        `// Do not edit it by hand: regenerate it with \`${command}\`.`,
      ]);
    }
  });

  it("uses names the validators generator does not (validators*, endpoint*)", () => {
    for (const path of Object.values(CLIENT_FILES)) expect(path).not.toMatch(/^(validators|endpoint)/);
  });

  it("is deterministic and leaves the spec untouched", async () => {
    const before = structuredClone(repoSpec.document);
    expect(await generate(repoSpec)).toEqual(full);
    expect(repoSpec.document).toEqual(before);
    const everything = Object.values(full).join("\n");
    expect(everything).not.toContain(new URL("../../../", import.meta.url).pathname); // no absolute paths
  });
});

describe("types", () => {
  it("types the JSON-encoded symbols parameter as the array it carries", () => {
    expect(full["spot-api.gen.ts"]).toMatch(/\n\s+Symbols: components\["schemas"\]\["SymbolName"\]\[\];\n/);
  });

  it("lets date-time query parameters take a Date, and only them", () => {
    const types = full["spot-api.gen.ts"]!;
    // date_time (aggTrades startTime and endTime): RFC 3339 text, a Date or epoch milliseconds. The
    // DateTime component is used by parameters only, so its text branch takes a Date too.
    expect(types.match(/\| Date\b/g)).toHaveLength(1);
    expect(types).toContain("DateTime: (string | Date) | number;");
    expect(types).toMatch(
      /startTime\?: components\["schemas"\]\["DateTime"\];\n(?:[^\n]*\n)*?\s+endTime\?: components\["schemas"\]\["DateTime"\];/,
    );
  });

  it("exports a Schema alias per component schema", () => {
    expect(full["spot-api.gen.ts"]).toContain(
      "export type SchemaOrderBook = components['schemas']['OrderBook'];",
    );
  });
});

describe("operation table", () => {
  it("records each operation's wire facts", () => {
    expect(full["operations.gen.ts"]).toContain(
      [
        "  exchange_info: {",
        '    method: "GET",',
        '    path: "/api/v3/exchangeInfo",',
        '    authClass: "none",',
        '    queryParameters: ["symbol", "symbols"],',
        '    jsonEncoded: ["symbols"],',
        "    acceptsFormBody: false,",
        "    security: [],",
        '    parameters: [{ name: "X-MBX-TIME-UNIT", in: "header" }],',
        "  },",
      ].join("\n"),
    );
    expect(full["operations.gen.ts"]).toMatch(
      / {2}new_order: \{\n {4}method: "POST",[^}]*acceptsFormBody: true,/,
    );
  });
});

describe("subsets (--operations)", () => {
  it("drop the other operations and the components only they used", async () => {
    const subset = await generate(selectOperations(repoSpec, ["order_book", "server_time"]));
    const types = subset["spot-api.gen.ts"]!;
    expect(types).toContain('"/api/v3/depth"');
    expect(types).not.toContain('"/api/v3/order"');
    expect(types).toContain("SchemaOrderBook");
    expect(types).not.toMatch(/NewOrder|SymbolFilter|ParameterSymbols/);
    expect(types.length).toBeLessThan(full["spot-api.gen.ts"]!.length / 4);
    expect(subset["methods.gen.ts"]).toMatch(/order_book\(/);
    expect(subset["methods.gen.ts"]).not.toMatch(/new_order/);
  });

  it("keep everything a whole spec declares, even unreferenced components", async () => {
    expect((await generate(fixture))["spot-api.gen.ts"]).toContain("SchemaUnused");
  });
});

it("refuses an operationId that would hide a member of the openapi-fetch client", async () => {
  const model = structuredClone(fixture);
  model.operations[0]!.operationId = "use";
  const error = await generateClient(model, { command, ownSpec: true }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SpecError);
  expect(error).toMatchObject({ pointer: "/paths/~1v1~1ping/get/operationId", found: '"use"' });
});

describe("emitted TypeScript", () => {
  const dir = mkdtempSync(join(tmpdir(), "client-gen-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const root = new URL("../../../", import.meta.url).pathname;

  it("is formatted as Biome formats it (the hand-written emitters)", () => {
    for (const path of [
      CLIENT_FILES.operations,
      CLIENT_FILES.methods,
      CLIENT_FILES.facts,
      CLIENT_FILES.api,
    ]) {
      const formatted = execFileSync(
        join(root, "node_modules/.bin/biome"),
        ["format", `--stdin-file-path=packages/codegen/src/${path}`],
        { cwd: root, input: full[path], encoding: "utf8" },
      );
      expect(formatted, path).toBe(full[path]);
    }
  });

  it("compiles with strict settings", () => {
    for (const [path, contents] of Object.entries(full)) writeFileSync(join(dir, path), contents);
    const args = ["--noEmit", "--strict", "--noUncheckedIndexedAccess", "--skipLibCheck"];
    args.push(
      "--target",
      "es2022",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--lib",
      "es2023,dom",
    );
    expect(() =>
      execFileSync(
        join(root, "node_modules/.bin/tsc"),
        [...args, ...Object.keys(full).map((p) => join(dir, p))],
        {
          encoding: "utf8",
        },
      ),
    ).not.toThrow();
  });
});
