// One name for one concept: the spec model's types (@marketapi/spec/model) are declared there only.
// A package extends them under a name of its own (ContractOperation, SampleOperation, ...), so a
// reader never meets two different `Operation`s or `SpecModel`s.
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

/** Each hand-written source file of `packages/` outside the spec model that declares one of the model's type names. */
function redeclarations(repository: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) {
        if (!["node_modules", "dist", "generated"].includes(entry)) walk(path);
      } else if (/\.m?ts$/.test(entry) && !entry.endsWith(".d.ts")) {
        const match = DECLARATION.exec(readFileSync(path, "utf8"));
        const file = relative(repository, path);
        if (match && !file.startsWith(join("packages", "spec", "src", "model")))
          found.push(`${file}: ${match[1]}`);
      }
    }
  };
  walk(join(repository, "packages"));
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
