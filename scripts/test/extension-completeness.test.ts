// The registry of extensions (@marketapi/spec/model) against the packages: every registered x-
// extension has a diff rule, a docs renderer that reads the typed model, a request validator rule
// where it constrains requests and a contract check where it constrains behaviour; every x- key
// used in specs/ is registered. The recipe of docs/architecture.md ("How to add an x- extension"),
// enforced. A dummy extension in a scratch copy of the spec shows each failure.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHECKS } from "../../packages/contract/src/checks/index.js";
import {
  DOCUMENT_EXTENSIONS,
  OPERATION_EXTENSIONS,
  SCHEMA_EXTENSIONS,
  SECURITY_SCHEME_EXTENSIONS,
} from "../../packages/diff/src/extensions/index.js";
import { EXTENSIONS } from "../../packages/spec/src/model/index.js";
import { root } from "../workspace-packages.mjs";
import {
  type CompletenessInput,
  completenessProblems,
  type RegisteredExtension,
  xKeysIn,
} from "./support/extension-completeness.js";

const repository: CompletenessInput = {
  root,
  extensions: EXTENSIONS,
  diffKeys: new Set(
    [DOCUMENT_EXTENSIONS, OPERATION_EXTENSIONS, SECURITY_SCHEME_EXTENSIONS, SCHEMA_EXTENSIONS].flatMap(
      (table) => [...table.keys()],
    ),
  ),
  contractCovers: new Set(CHECKS.flatMap((check) => check.covers)),
  specs: join(root, "specs"),
};

const scratch = mkdtempSync(join(tmpdir(), "extension-completeness-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const dummy: RegisteredExtension = {
  key: "x-dummy-rule",
  name: "dummy-rule",
  constrains: ["requests", "behaviour"],
  field: "Operation.dummyRule",
};

/** A scratch copy of specs/ whose ping operation carries `x-dummy-rule`. */
function specsWithDummy(): string {
  const specs = join(scratch, "specs");
  cpSync(join(root, "specs"), specs, { recursive: true });
  const file = join(specs, "spot-api.openapi.yaml");
  const text = readFileSync(file, "utf8");
  const ping = "      operationId: ping\n";
  expect(text).toContain(ping);
  writeFileSync(file, text.replace(ping, `${ping}      x-dummy-rule: { max: 3 }\n`));
  return specs;
}

describe("the registry of extensions", () => {
  it("has every registered extension handled by every package that must, and every x- key of specs/ registered", () => {
    expect(completenessProblems(repository)).toEqual([]);
  });

  it("finds the x- keys the specs use, and nothing else", () => {
    const keys = [...xKeysIn(join(root, "specs")).keys()].sort();
    expect(keys).toEqual(EXTENSIONS.map((e) => e.key).sort());
  });

  it("fails on an x- key in a scratch copy of the spec that is not registered, naming the model module to add", () => {
    const problems = completenessProblems({ ...repository, specs: specsWithDummy() });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^x-dummy-rule is used in specs\/spot-api\.openapi\.yaml at \/paths\/~1api~1v3~1ping\/get\/x-dummy-rule but/,
    );
    expect(problems[0]).toContain("add packages/spec/src/model/extensions/dummy-rule.ts");
  });

  it("fails once it is registered, naming each module it still lacks", () => {
    const problems = completenessProblems({
      ...repository,
      extensions: [...EXTENSIONS, dummy],
      specs: specsWithDummy(),
    });
    expect(problems).toEqual([
      "x-dummy-rule: no model module: add packages/spec/src/model/extensions/dummy-rule.ts",
      "x-dummy-rule: no diff rule: add packages/diff/src/extensions/dummy-rule.ts",
      "x-dummy-rule: no docs renderer: add packages/docs/src/extensions/dummy-rule.ts",
      "x-dummy-rule: no request validator rule (it constrains requests): add packages/codegen/src/validators/request-rules/dummy-rule.ts",
      'x-dummy-rule: constrains behaviour, but no contract check covers it: add packages/contract/src/checks/dummy-rule.ts (a ContractCheck whose covers lists "x-dummy-rule") and list it in packages/contract/src/checks/index.ts',
      "x-dummy-rule: not described in docs/extensions.md",
    ]);
  });

  it("asks no validator rule or contract check of a documentation-only extension", () => {
    const problems = completenessProblems({
      ...repository,
      extensions: [{ ...dummy, constrains: ["docs"] }],
    });
    expect(problems.join("\n")).not.toMatch(/request-rules|contract/);
    expect(problems.join("\n")).toMatch(/diff\/src\/extensions\/dummy-rule\.ts/);
  });

  it("fails when the files exist but a docs renderer reads the raw x- value or the diff does not list its rule", () => {
    const files = {
      "packages/spec/src/model/extensions/dummy-rule.ts": "export {};\n",
      "packages/diff/src/extensions/dummy-rule.ts": "export {};\n",
      "packages/docs/src/extensions/dummy-rule.ts":
        'export const show = (operation) => operation.raw["x-dummy-rule"];\n',
      "docs/extensions.md": "## `x-dummy-rule`\n",
    };
    const fake = join(scratch, "repository");
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(fake, file)), { recursive: true });
      writeFileSync(join(fake, file), text);
    }
    mkdirSync(join(fake, "specs"));
    const problems = completenessProblems({
      ...repository,
      root: fake,
      extensions: [{ ...dummy, constrains: ["docs"] }],
      specs: join(fake, "specs"),
    });
    expect(problems).toEqual([
      "x-dummy-rule: packages/diff/src/extensions/dummy-rule.ts is not listed in packages/diff/src/extensions/index.ts",
      'x-dummy-rule: packages/docs/src/extensions/dummy-rule.ts reads the raw value ["x-dummy-rule"]; render the model\'s typed field (Operation.dummyRule)',
    ]);
  });
});
