// The completeness of the extension registry across packages: each registered x- extension has
// its home in every package that must handle it, and every x- key the specs use is registered.
// The homes follow from the extension's module name and what it constrains (ExtensionConstraint
// in packages/spec/src/model/extensions/extension.ts); docs/architecture.md states the same path.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parse } from "yaml";

/** What the test needs of a registered extension (ExtensionDescriptor of @marketapi/spec/model). */
export interface RegisteredExtension {
  key: string;
  name: string;
  constrains: readonly string[];
  field: string;
}

export interface CompletenessInput {
  /** The repository root whose packages are looked at. */
  root: string;
  extensions: readonly RegisteredExtension[];
  /** The keys the diff's extension tables list (packages/diff/src/extensions/index.ts). */
  diffKeys: ReadonlySet<string>;
  /** The keys each contract check covers (packages/contract/src/checks/index.ts). */
  contractCovers: ReadonlySet<string>;
  /** The folder of specs to scan for x- keys. */
  specs: string;
}

export const homes = {
  model: (name: string) => `packages/spec/src/model/extensions/${name}.ts`,
  diff: (name: string) => `packages/diff/src/extensions/${name}.ts`,
  docs: (name: string) => `packages/docs/src/extensions/${name}.ts`,
  codegen: (name: string) => `packages/codegen/src/validators/request-rules/${name}.ts`,
  contract: (name: string) => `packages/contract/src/checks/${name}.ts`,
};

/** A renderer that indexes the raw document by an x- key instead of reading the typed model. */
const RAW_READ = /\[\s*["'`](x-[A-Za-z0-9-]+)["'`]\s*\]/;

/** Every problem found, each naming the file to add or change; empty when the registry is complete. */
export function completenessProblems(input: CompletenessInput): string[] {
  const problems: string[] = [];
  for (const extension of input.extensions) problems.push(...extensionProblems(input, extension));
  const registered = new Set(input.extensions.map((e) => e.key));
  for (const [key, where] of xKeysIn(input.specs)) {
    if (registered.has(key)) continue;
    const name = key.slice(2);
    problems.push(
      `${key} is used in ${where} but not registered: add ${homes.model(name)} (its reader and descriptor) and list it in packages/spec/src/model/extensions/registry.ts`,
    );
  }
  return problems;
}

function extensionProblems(input: CompletenessInput, extension: RegisteredExtension): string[] {
  const { key, name, constrains } = extension;
  const problems: string[] = [];
  const missing = (file: string, what: string) => {
    if (!existsSync(join(input.root, file))) problems.push(`${key}: no ${what}: add ${file}`);
    return existsSync(join(input.root, file));
  };
  missing(homes.model(name), "model module");
  if (missing(homes.diff(name), "diff rule") && !input.diffKeys.has(key)) {
    problems.push(`${key}: ${homes.diff(name)} is not listed in packages/diff/src/extensions/index.ts`);
  }
  if (missing(homes.docs(name), "docs renderer")) {
    const source = readFileSync(join(input.root, homes.docs(name)), "utf8");
    const raw = RAW_READ.exec(source);
    if (raw) {
      problems.push(
        `${key}: ${homes.docs(name)} reads the raw value [${JSON.stringify(raw[1])}]; render the model's typed field (${extension.field})`,
      );
    }
  }
  if (constrains.includes("requests"))
    missing(homes.codegen(name), "request validator rule (it constrains requests)");
  if (constrains.includes("behaviour") && !input.contractCovers.has(key)) {
    problems.push(
      `${key}: constrains behaviour, but no contract check covers it: add ${homes.contract(name)} (a ContractCheck whose covers lists "${key}") and list it in packages/contract/src/checks/index.ts`,
    );
  }
  const reference = join(input.root, "docs/extensions.md");
  if (existsSync(reference) && !readFileSync(reference, "utf8").includes(`\`${key}\``)) {
    problems.push(`${key}: not described in docs/extensions.md`);
  }
  return problems;
}

/** Every x- key written as a key in the YAML and JSON files under `folder`, with where it first appears. */
export function xKeysIn(folder: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of filesUnder(folder).filter((f) => /\.(ya?ml|json)$/.test(f))) {
    const label = relative(dirname(folder), file);
    walk(parse(readFileSync(file, "utf8")), "", (key, pointer) => {
      if (!found.has(key)) found.set(key, `${label} at ${pointer}`);
    });
  }
  return found;
}

function walk(value: unknown, pointer: string, visit: (key: string, pointer: string) => void): void {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) walk(item, `${pointer}/${i}`, visit);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      const here = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (key.startsWith("x-")) visit(key, here);
      walk(child, here, visit);
    }
  }
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
