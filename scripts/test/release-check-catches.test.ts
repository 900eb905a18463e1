// The release check fails when a package imports something it does not declare: the defect that
// shipped once (@marketapi/spec's dist importing yaml, a devDependency), brought back in a scratch
// copy, and the same mistake in every other package.
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { undeclaredImports } from "../package-imports.mjs";
import {
  consumerRoot,
  exportEntries,
  importEveryExport,
  installConsumer,
  mainJobOfEveryCommand,
  packagesWithInstallScripts,
  packPackages,
  smokeContext,
} from "../release-check.mjs";
import { packedFiles, publicPackages } from "../workspace-packages.mjs";

const scratch = consumerRoot();
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A copy of a package as it is packed (no node_modules), to spoil, and the files it packs (the
 * package's: `npm pack --dry-run` once, not again on the copy).
 */
function scratchCopy(dir: string, name: string): { copy: string; files: string[] } {
  const copy = join(scratch, name.replace(/^@/, "").replace("/", "-"));
  const files = packedFiles(dir);
  for (const file of ["package.json", ...files]) cpSync(join(dir, file), join(copy, file));
  return { copy, files };
}

describe("@marketapi/spec whose dist imports yaml again", () => {
  it("fails in the consumer project: importing the package fails on the missing yaml", async () => {
    const spec = publicPackages().find((p) => p.manifest.name === "@marketapi/spec")!;
    const { copy } = scratchCopy(spec.dir, "spec-with-yaml");
    writeFileSync(
      join(copy, "dist", "bundle.js"),
      'import { parse } from "yaml";\nexport const parseYaml = parse;\n',
    );
    appendFileSync(join(copy, "dist", "index.js"), '\nexport { parseYaml } from "./bundle.js";\n');
    const broken = { dir: copy, manifest: spec.manifest };
    const tarballs = await packPackages([broken], join(scratch, "tarballs"), { ignoreScripts: true });
    const { dir, result } = await installConsumer(
      broken,
      tarballs,
      new Map([[spec.manifest.name, broken]]),
      scratch,
    );
    expect(result.code).toBe(0);
    const failures = await importEveryExport(dir, spec.manifest);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^import\("@marketapi\/spec"\) in a consumer: Cannot find package 'yaml'/);
  });
});

describe.each(publicPackages().map((p) => [p.manifest.name, p] as const))(
  "%s with an undeclared import in its main module",
  (name, pkg) => {
    it("is reported, naming the file and the package", () => {
      const main = exportEntries(pkg.manifest).find((e) => e.subpath === ".")!;
      const { copy, files } = scratchCopy(pkg.dir, `${name}-undeclared`);
      const file = main.file.replace(/^\.\//, "");
      writeFileSync(
        join(copy, file),
        `import "left-pad-undeclared";\n${readFileSync(join(copy, file), "utf8")}`,
      );
      const found = undeclaredImports({ dir: copy, manifest: pkg.manifest }, files);
      expect(found).toEqual([
        { file, specifier: "left-pad-undeclared", name: "left-pad-undeclared", how: "not declared" },
      ]);
    });
  },
);

describe("a package whose dependency has an install script (a native addon, say)", () => {
  const byName = new Map();
  let app: { dir: string; manifest: { name: string; version: string } };
  let tarballs: Map<string, string>;
  let addonSpec: string;

  beforeAll(async () => {
    const addon = join(scratch, "addon");
    mkdirSync(addon);
    writeFileSync(
      join(addon, "package.json"),
      JSON.stringify({
        name: "marketapi-test-addon",
        version: "1.0.0",
        scripts: { postinstall: "node -e \"require('fs').writeFileSync('built.txt', 'built')\"" },
      }),
    );
    writeFileSync(join(addon, "index.js"), "module.exports = 1;\n");
    const addonTarball = (
      await packPackages(
        [{ dir: addon, manifest: { name: "addon", version: "1.0.0" } }],
        join(scratch, "addon-tgz"),
      )
    ).get("addon");
    // npm identifies a registry dependency by its name, and a tarball dependency by its file spec.
    addonSpec = `file:${addonTarball}`;
    const dir = join(scratch, "app");
    mkdirSync(dir);
    const manifest = {
      name: "@marketapi/test-app",
      version: "1.0.0",
      type: "module",
      exports: { ".": "./index.js" },
      dependencies: { "marketapi-test-addon": addonSpec },
    };
    writeFileSync(join(dir, "package.json"), JSON.stringify(manifest));
    writeFileSync(join(dir, "index.js"), "export const ok = true;\n");
    app = { dir, manifest };
    byName.set(manifest.name, app);
    tarballs = await packPackages([app], join(scratch, "app-tgz"));
  });

  it("fails the consumer install when the script is not in the reviewed list", async () => {
    const { result } = await installConsumer(app, tarballs, byName, join(scratch, "strict"), {
      allowScripts: {},
    });
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toMatch(/marketapi-test-addon/);
  });

  it("runs the script when the reviewed list allows it, and the check names the package", async () => {
    const { dir, result } = await installConsumer(app, tarballs, byName, join(scratch, "allowed"), {
      allowScripts: { [addonSpec]: true },
    });
    expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
    expect(readFileSync(join(dir, "node_modules", "marketapi-test-addon", "built.txt"), "utf8")).toBe(
      "built",
    );
    expect(packagesWithInstallScripts(dir)).toEqual(["marketapi-test-addon"]);
  });
});

describe("the smoke tests of a package's commands (test/smoke/commands.mjs)", () => {
  const pkg = (name: string, smoke?: string) => {
    const dir = join(scratch, name);
    mkdirSync(join(dir, "test", "smoke"), { recursive: true });
    if (smoke !== undefined) writeFileSync(join(dir, "test", "smoke", "commands.mjs"), smoke);
    return {
      dir,
      manifest: { name: `@marketapi/${name}`, version: "1.0.0", bin: { [`${name}-cli`]: "./cli.js" } },
    };
  };

  it("fail for a command that has none", async () => {
    const failures = await mainJobOfEveryCommand(scratch, pkg("no-smoke"));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(
      /^@marketapi\/no-smoke: no smoke test for the command no-smoke-cli; add one to \S*no-smoke\/test\/smoke\/commands\.mjs$/,
    );
  });

  it("report what the smoke test saw fail", async () => {
    const failing = pkg(
      "failing",
      'export const smoke = { "failing-cli": async (ctx) => ["broken in " + ctx.dir] };\n',
    );
    expect(await mainJobOfEveryCommand("/consumer", failing)).toEqual(["broken in /consumer"]);
  });

  it("codegen's says so when no .ts file was written, instead of failing on the missing name", async () => {
    const codegen = publicPackages().find((p) => p.manifest.name === "@marketapi/codegen")!;
    const { smoke } = await import(join(codegen.dir, "test", "smoke", "commands.mjs"));
    const consumer = join(scratch, "codegen-writes-nothing");
    mkdirSync(join(consumer, "src", "generated"), { recursive: true });
    writeFileSync(join(consumer, "src", "generated", "README.txt"), "not TypeScript\n");
    const ok = { code: 0, signal: null, stdout: "", stderr: "" };
    const ctx = { ...smokeContext(consumer), runBin: async () => ok };
    expect(await smoke["marketapi-codegen"](ctx)).toEqual([
      "marketapi-codegen --out src/generated wrote no .ts file; it wrote: README.txt",
    ]);
  });
});
