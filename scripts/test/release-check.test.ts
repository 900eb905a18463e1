// The release check (scripts/release-check.mjs) on every public package: packed, installed alone
// into a consumer project outside the repository, then used as a consumer uses it.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  areTheTypesWrong,
  binsOf,
  consumerRoot,
  helpOfEveryCommand,
  importEveryExport,
  type installConsumer,
  installConsumers,
  mainJobOfEveryCommand,
  missingRequiredFiles,
  packagesWithInstallScripts,
  packPackages,
  publint,
  sourceMapProblems,
  transcript,
} from "../release-check.mjs";
import { publicPackages, runtimeDependencyNames } from "../workspace-packages.mjs";

const packages = publicPackages();
const byName = new Map(packages.map((p) => [p.manifest.name, p]));
let parent: string;
let tarballs: Map<string, string>;

let installs: Map<string, ReturnType<typeof installConsumer>>;

beforeAll(async () => {
  parent = consumerRoot();
  tarballs = await packPackages(packages, join(parent, "tarballs"));
  // All installs start now, two at a time; each package's first test waits for its own.
  installs = installConsumers(packages, tarballs, byName, parent);
  for (const install of installs.values()) install.catch(() => undefined);
});
afterAll(() => rmSync(parent, { recursive: true, force: true }));

describe.each(packages.map((p) => [p.manifest.name, p] as const))(
  "%s, packed and installed alone",
  (name, pkg) => {
    let consumer: string | undefined;
    const installed = () => {
      if (consumer === undefined) throw new Error(`${name} did not install into its consumer project`);
      return consumer;
    };

    // Native addons compile from source here, which takes minutes on 2 loaded cores.
    it("installs from its tarball, with only the tarballs of the @marketapi packages it needs", async () => {
      const { dir, result } = await installs.get(name)!;
      expect(result.code, transcript("npm install in the consumer project", result)).toBe(0);
      consumer = dir;
    }, 900_000);

    // better-sqlite3 is an optional peer of the reference server: no package, the contract tester
    // that embeds the server included, brings a native build or any other install script along.
    it("installs with no install script and no native build", () => {
      expect(packagesWithInstallScripts(installed())).toEqual([]);
    });

    // The install itself fails on an install script that the root package.json's allowScripts does
    // not list. A package documents the install scripts of the dependencies it declares; those of
    // their own dependencies are documented by the packages that declare them.
    it("names in its README each dependency it declares whose install script a consumer must allow", () => {
      const declared = runtimeDependencyNames(pkg.manifest);
      const needed = packagesWithInstallScripts(installed()).filter((dep) => declared.has(dep));
      const readme = readFileSync(join(installed(), "node_modules", name, "README.md"), "utf8");
      expect(
        needed.filter((dep) => !readme.includes(dep)),
        "a consumer must allow these install scripts; say so in the package README",
      ).toEqual([]);
    });

    if (Object.keys(binsOf(pkg.manifest)).length > 0) {
      it(`answers --help: ${Object.keys(binsOf(pkg.manifest)).join(", ")}`, async () => {
        expect(await helpOfEveryCommand(installed(), pkg.manifest)).toEqual([]);
      });

      it("does its main job", async () => {
        expect(await mainJobOfEveryCommand(installed(), pkg)).toEqual([]);
      });
    }

    it("ships README.md, LICENSE and CHANGELOG.md, and the sources its source maps name", () => {
      const shipped = join(installed(), "node_modules", name);
      expect(missingRequiredFiles(shipped)).toEqual([]);
      expect(sourceMapProblems(shipped)).toEqual([]);
    });

    it("imports every subpath of its exports", async () => {
      expect(await importEveryExport(installed(), pkg.manifest)).toEqual([]);
    });

    it("passes publint (warnings count)", async () => {
      expect(await publint(tarballs.get(name)!)).toEqual([]);
    });

    it("passes are-the-types-wrong (ESM-only profile)", async () => {
      expect(await areTheTypesWrong(tarballs.get(name)!, pkg.manifest)).toEqual([]);
    });
  },
);
