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
  installConsumer,
  mainJobOfEveryCommand,
  missingRequiredFiles,
  packagesWithInstallScripts,
  packPackages,
  publint,
  sourceMapProblems,
  transcript,
} from "../release-check.mjs";
import { publicPackages } from "../workspace-packages.mjs";

const packages = publicPackages();
const byName = new Map(packages.map((p) => [p.manifest.name, p]));
let parent: string;
let tarballs: Map<string, string>;

beforeAll(async () => {
  parent = consumerRoot();
  tarballs = await packPackages(packages, join(parent, "tarballs"));
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
      const { dir, result } = await installConsumer(pkg, tarballs, byName, parent);
      expect(result.code, transcript("npm install in the consumer project", result)).toBe(0);
      consumer = dir;
    }, 900_000);

    // The install itself fails on an install script that the root package.json's allowScripts does not list.
    it("names in its README every dependency whose install script a consumer must allow", () => {
      const needed = packagesWithInstallScripts(installed());
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
        expect(await mainJobOfEveryCommand(installed(), pkg.manifest)).toEqual([]);
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
