// One name for one concept: the spec model's types (@marketapi/spec/model) are declared there only.
// A package extends them under a name of its own (ContractOperation, SampleOperation, ...), so a
// reader never meets two different `Operation`s or `SpecModel`s. Nor does a package copy the model's
// operation under another name with its fields renamed: an operation-shaped type (one that repeats
// several of Operation's fields) may not call the operationId `id`.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../workspace-packages.mjs";

const MODEL_TYPES = [
  "SpecModel",
  "Operation",
  "OperationModel",
  "Parameter",
  "ParameterModel",
  "Response",
  "ResponseModel",
  "SigningRule",
  "OrderTypeRule",
];
const DECLARATION = new RegExp(
  `^\\s*(?:export\\s+)?(?:interface|type|class)\\s+(${MODEL_TYPES.join("|")})\\s*(?:[={<]|extends\\b)`,
  "m",
);

const MODEL = join("packages", "spec", "src", "model");

/** The hand-written TypeScript sources of `packages/` outside the spec model, relative to the repository. */
function sourceFiles(repository: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) {
        // Scratch folders (codegen's .tmp/, test-results/) fill and empty while the package tests
        // run beside these, and hold generated code, not hand-written sources.
        if (!["node_modules", "dist", "generated", "test-results"].includes(entry) && !entry.startsWith("."))
          walk(path);
      } else if (/\.m?ts$/.test(entry) && !entry.endsWith(".d.ts")) {
        const file = relative(repository, path);
        if (!file.startsWith(MODEL)) found.push(file);
      }
    }
  };
  walk(join(repository, "packages"));
  return found;
}

/** Each hand-written source file of `packages/` outside the spec model that declares one of the model's type names. */
function redeclarations(repository: string): string[] {
  return sourceFiles(repository).flatMap((file) => {
    const match = DECLARATION.exec(readFileSync(join(repository, file), "utf8"));
    return match ? [`${file}: ${match[1]}`] : [];
  });
}

/** A declaration's name and its top-level field names (`interface X {...}`, `type X = {...}`). */
interface Shape {
  name: string;
  fields: string[];
}

const SHAPE_START =
  /^\s*(?:export\s+)?(?:interface\s+([A-Za-z_$][\w$]*)[^{]*|type\s+([A-Za-z_$][\w$]*)[^=]*=\s*)\{/gm;
const FIELD = /^\s*(?:readonly\s+)?([A-Za-z_$][\w$]*)\??\s*:/;

/** Every interface or object type literal of a source file, with the fields declared at its top level. */
function shapes(source: string): Shape[] {
  const found: Shape[] = [];
  for (const start of source.matchAll(SHAPE_START)) {
    const fields: string[] = [];
    let depth = 1;
    let line = "";
    for (let i = (start.index ?? 0) + start[0].length; i < source.length && depth > 0; i++) {
      const char = source[i] as string;
      if (char === "{" || char === "(" || char === "[") depth += 1;
      else if (char === "}" || char === ")" || char === "]") depth -= 1;
      if (char === "\n" || char === ";" || depth === 0) {
        const field = FIELD.exec(line)?.[1];
        if (field) fields.push(field);
        line = "";
      } else if (depth === 1) line += char;
    }
    found.push({ name: (start[1] ?? start[2]) as string, fields });
  }
  return found;
}

const MODEL_OPERATIONS = join(MODEL, "operations.ts");

/** The fields of the model's Operation, read from its declaration. */
function operationFields(repository: string): Set<string> {
  const operation = shapes(readFileSync(join(repository, MODEL_OPERATIONS), "utf8")).find(
    (shape) => shape.name === "Operation",
  );
  if (!operation) throw new Error(`${MODEL_OPERATIONS}: expected \`interface Operation\`, found none`);
  return new Set(operation.fields);
}

/** Fields of the model's Operation a type must repeat to count as a copy of it. */
const OPERATION_SHAPED = 3;

/**
 * Each operation-shaped type in `packages/` (outside the model) that calls the operationId `id`:
 * a renamed copy of the model's field.
 */
function renamedOperationIds(repository: string): string[] {
  const model = operationFields(repository);
  const found: string[] = [];
  for (const file of sourceFiles(repository)) {
    for (const shape of shapes(readFileSync(join(repository, file), "utf8"))) {
      const shared = shape.fields.filter((field) => model.has(field));
      if (shape.fields.includes("id") && !model.has("id") && shared.length >= OPERATION_SHAPED) {
        found.push(`${file}: ${shape.name}.id (beside ${shared.join(", ")})`);
      }
    }
  }
  return found;
}

const scratch = mkdtempSync(join(tmpdir(), "one-vocabulary-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the spec model's type names", () => {
  it("are declared by the spec model only", () => {
    expect(redeclarations(root)).toEqual([]);
  });

  it("fails on a package that declares its own Operation", () => {
    mkdirSync(join(scratch, "packages", "contract", "src"), { recursive: true });
    mkdirSync(join(scratch, "packages", "spec", "src", "model"), { recursive: true });
    writeFileSync(
      join(scratch, "packages", "contract", "src", "operations.ts"),
      "export interface Operation {\n  id: string;\n}\n",
    );
    writeFileSync(
      join(scratch, "packages", "spec", "src", "model", "operations.ts"),
      "export interface Operation {}\n",
    );
    expect(redeclarations(scratch)).toEqual([
      `${join("packages", "contract", "src", "operations.ts")}: Operation`,
    ]);
  });
});

/** A scratch repository with the real model's operations.ts and one package file of the given text. */
function scratchRepository(name: string, file: string, text: string): string {
  const repository = join(scratch, name);
  mkdirSync(join(repository, MODEL), { recursive: true });
  writeFileSync(join(repository, MODEL_OPERATIONS), readFileSync(join(root, MODEL_OPERATIONS), "utf8"));
  mkdirSync(join(repository, file, ".."), { recursive: true });
  writeFileSync(join(repository, file), text);
  return repository;
}

describe("the model's operationId", () => {
  it("is read from the model's Operation with the fields it sits among", () => {
    expect([...operationFields(root)]).toEqual(
      expect.arrayContaining(["operationId", "method", "path", "weight"]),
    );
  });

  it("is not renamed to `id` by an operation-shaped type in packages", () => {
    expect(renamedOperationIds(root)).toEqual([]);
  });

  it("fails on a re-projection that renames it (the reference server's former OperationSpec)", () => {
    const file = join("packages", "reference-server", "src", "http", "api.ts");
    const repository = scratchRepository(
      "renamed",
      file,
      [
        "export interface OperationSpec {",
        "  readonly id: string;",
        "  readonly method: string;",
        "  readonly path: string;",
        "  readonly authClass: AuthClass;",
        "  /** Names of the declared parameters. */",
        "  readonly parameters: ReadonlySet<string>;",
        "  readonly patterns: ReadonlyMap<string, string>;",
        "}",
        "type Row = { id: number; path: string; weight: number; signed: boolean };",
      ].join("\n"),
    );
    expect(renamedOperationIds(repository)).toEqual([
      `${file}: OperationSpec.id (beside method, path, authClass, parameters)`,
      `${file}: Row.id (beside path, weight, signed)`,
    ]);
  });

  it("leaves alone ids of other things and fields nested deeper", () => {
    const file = join("packages", "reference-server", "src", "engine", "orders.ts");
    const repository = scratchRepository(
      "other-ids",
      file,
      [
        "export interface Order { id: number; symbol: string; price: bigint; status: string }",
        "export interface Account { id: string; balances: Map<string, { free: bigint; locked: bigint }> }",
        "export interface Served extends Operation { handler: (request: { id: string; method: string; path: string; weight: number }) => void }",
        "type Entry = { operationId: string; method: string; path: string; weight: number };",
      ].join("\n"),
    );
    expect(renamedOperationIds(repository)).toEqual([]);
  });
});
