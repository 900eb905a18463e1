// Specs the generators cannot use: exit 2, every message names the file, the JSON Pointer (and the
// line and column) and what was expected there, and the output folder is left byte for byte as it
// was, with no staging folder beside it. Also: an output folder that cannot be written (exit 3).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanScratch, codegen, scratchDir, snapshot, stagingLeftovers } from "./cli-support.js";

const root = scratchDir("bad-spec");
afterAll(() => cleanScratch(root));

const GOOD = `openapi: 3.1.0
info:
  title: Shop
  version: "1"
paths:
  /items:
    get:
      operationId: list_items
      x-auth-class: none
      parameters:
        - name: limit
          in: query
          schema:
            type: integer
      responses:
        "200":
          description: The items.
          content:
            application/json:
              schema:
                type: array
                items:
                  type: string
`;

interface Case {
  name: string;
  /** The spec file's name and text. */
  file: string;
  text: string;
  /** Lines the error output must contain, in order. */
  want: string[];
  /** Flags beside --spec and --out. */
  args?: string[];
}

const edit = (from: string, to: string) => {
  if (!GOOD.includes(from)) throw new Error(`the good spec has no ${JSON.stringify(from)}`);
  return GOOD.replace(from, to);
};

const cases: Case[] = [
  {
    name: "an OpenAPI 3.2 document",
    file: "v32.yaml",
    text: edit("openapi: 3.1.0", "openapi: 3.2.0"),
    want: [
      'v32.yaml#/openapi (line 1, column 1): expected an OpenAPI 3.1 document ("openapi": "3.1.x"), or 3.0, which is upgraded first, found "3.2.0"',
    ],
  },
  {
    name: "a Swagger 2.0 document",
    file: "swagger.json",
    text: JSON.stringify({ swagger: "2.0", info: { title: "t", version: "1" }, paths: {} }),
    want: [
      "swagger.json#/swagger (line 1, column 2): expected an OpenAPI 3.1 document",
      "npx swagger2openapi",
      'found Swagger "2.0"',
    ],
  },
  {
    name: "text that is not YAML or JSON",
    file: "broken.json",
    text: '{ "openapi": "3.1.0", "info": { "title": "t" ',
    want: ["broken.json# (line 1, column", "expected a YAML or JSON document, found a syntax error"],
  },
  {
    name: "a YAML document that is not an object",
    file: "prose.yaml",
    text: "Just some prose about an API.\n",
    want: [
      'prose.yaml#: expected an OpenAPI 3.1 object at the top level, found "Just some prose about an API."',
    ],
  },
  {
    name: "paths that is not an object",
    file: "paths.yaml",
    text: GOOD.replace(/paths:[\s\S]*$/, "paths: [/items]\n"),
    want: ['paths.yaml#/paths (line 5, column 1): expected an OpenAPI 3.1 Paths object, found ["/items"]'],
  },
  {
    name: "a response without a description, and a parameter without `in`",
    file: "fields.yaml",
    text: edit("          description: The items.\n", "").replace("          in: query\n", ""),
    want: [
      'fields.yaml#/paths/~1items/get/parameters/0/in (line 11, column 11): expected the field "in", which OpenAPI 3.1 requires here, found nothing',
      'fields.yaml#/paths/~1items/get/responses/200/description (line 15, column 9): expected the field "description", which OpenAPI 3.1 requires here, found nothing',
    ],
  },
  {
    name: "a misspelt field",
    file: "typo.yaml",
    text: edit("      responses:", "      respones: {}\n      responses:"),
    want: [
      'typo.yaml#/paths/~1items/get/respones (line 15, column 7): expected a field OpenAPI 3.1 defines here, or an x- extension (did you mean "responses"?), found "respones"',
    ],
  },
  {
    name: "a $ref to nothing",
    file: "dangling.yaml",
    text: edit(
      "                type: array\n                items:\n                  type: string\n",
      '                $ref: "#/components/schemas/Items"\n',
    ),
    want: [
      'dangling.yaml#/paths/~1items/get/responses/200/content/application~1json/schema (line 20, column 15): expected a $ref to a part of the document that exists, found {"$ref":"#/components/schemas/Items"}',
    ],
  },
  {
    name: "a $ref to another file",
    file: "external.yaml",
    text: edit(
      "                type: array\n                items:\n                  type: string\n",
      "                $ref: items.yaml\n",
    ),
    want: [
      'external.yaml#/paths/~1items/get/responses/200/content/application~1json/schema/$ref (line 21, column 17): expected a reference inside the document (#/...); bundle a multi-file spec into one file first (redocly bundle), found "items.yaml"',
    ],
  },
  {
    name: "an empty operationId",
    file: "no-id.yaml",
    text: edit("      operationId: list_items\n", '      operationId: ""\n'),
    want: [
      'no-id.yaml#/paths/~1items/get/operationId (line 8, column 7): expected an operationId (the name of the operation in generated code, samples and reports), found ""',
    ],
  },
  {
    name: "an unknown x-auth-class",
    file: "auth.yaml",
    text: edit("x-auth-class: none", "x-auth-class: admin"),
    want: [
      'auth.yaml#/paths/~1items/get/x-auth-class (line 9, column 7): expected one of none, market_data, trade, user_data, found "admin"',
    ],
  },
  {
    // JSON Schema 2020-12 allows `minimum` beside `type: string`; ajv's strict mode, asked for, does not.
    name: "a schema our strict rules refuse (--strict-schemas)",
    args: ["--strict-schemas"],
    file: "schema.yaml",
    text: edit(
      "                  type: string\n",
      "                  type: string\n                  minimum: 1\n",
    ),
    want: [
      "schema.yaml#/paths/~1items/get/responses/200 (line 16, column 9): expected a schema that ajv compiles in strict mode",
    ],
  },
];

/** An output folder as a consumer has it: generated files, a hand-written file. */
function existingOutput(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "methods.gen.ts"),
    "// This file is generated by @marketapi/codegen 0.1.0 (client) from shop.yaml.\nexport {};\n",
  );
  writeFileSync(join(dir, "README.md"), "Vendored client; see package.json's generate script.\n");
}

describe.concurrent("a bad spec", () => {
  it.each(cases)("$name: exit 1, where and what, nothing written", async ({ file, text, want, args }) => {
    const dir = join(root, file.replace(/\W/g, "-"));
    mkdirSync(dir);
    writeFileSync(join(dir, file), text);
    existingOutput(join(dir, "src/generated"));
    const before = snapshot(dir);

    const result = await codegen(["--spec", file, "--out", "src/generated", ...(args ?? [])], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    let at = 0;
    for (const line of want) {
      const found = result.stderr.indexOf(line, at);
      expect(found, `${line}\nin:\n${result.stderr}`).toBeGreaterThanOrEqual(0);
      at = found + line.length;
    }
    expect(result.stderr).toMatch(/nothing was written; src\/generated is untouched\.\n$/);
    expect(snapshot(dir)).toEqual(before);
    expect(stagingLeftovers(join(dir, "src"))).toEqual([]);
  });

  it("leaves a missing output folder missing", async () => {
    const dir = join(root, "no-output");
    mkdirSync(dir);
    writeFileSync(join(dir, "auth.yaml"), edit("x-auth-class: none", "x-auth-class: admin"));
    const result = await codegen(["--spec", "auth.yaml", "--out", "gen/client"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(existsSync(join(dir, "gen"))).toBe(false);
  });

  it("blames --operations for an unknown entry, with a did-you-mean and the known ones", async () => {
    const dir = join(root, "unknown-operation");
    mkdirSync(dir);
    writeFileSync(join(dir, "shop.yaml"), GOOD);
    const result = await codegen(["--spec", "shop.yaml", "--out", "out", "--operations", "list_itme,buy"], {
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe(
      'marketapi-codegen: --operations: shop.yaml has no operation "buy", no operation "list_itme" (did you mean "list_items"?); its operationIds: list_items',
    );
    expect(result.stderr).not.toContain("#/paths");
    expect(existsSync(join(dir, "out"))).toBe(false);
  });
});

describe("an output folder that cannot be written", () => {
  it("exits 3 and leaves everything as it was", async () => {
    const dir = join(root, "unwritable");
    mkdirSync(dir);
    writeFileSync(join(dir, "shop.yaml"), GOOD);
    writeFileSync(join(dir, "src"), "a file where the output's parent folder should be\n");
    const before = snapshot(dir);
    const result = await codegen(["--spec", "shop.yaml", "--out", "src/generated", "--validators"], {
      cwd: dir,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("marketapi-codegen: could not write src/generated:");
    expect(result.stderr).toContain("src/generated was left as it was.");
    expect(snapshot(dir)).toEqual(before);
  });
});
