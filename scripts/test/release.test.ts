// `npm run release` against a real registry (verdaccio on 127.0.0.1), in a scratch copy of this
// repository with its built dist/ folders: it publishes nothing while a dist/ is stale or missing,
// `npm publish` of a stale package is refused by its prepack, and with every dist/ fresh it
// publishes every public package, which then install from the registry by their declared ranges.
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { staleness } from "../build-stamp.mjs";
import { consumerRoot, run, transcript } from "../release-check.mjs";
import { publicPackages, readJson, root } from "../workspace-packages.mjs";
import { type LocalRegistry, startLocalRegistry } from "./support/local-registry.js";

const names = publicPackages().map((p) => p.manifest.name);
let work: string;
let repo: string;
let registry: LocalRegistry;

/** A copy of the working tree (what git tracks or would track, plus each public package's dist/), as a git repository. */
function copyRepository(to: string): void {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(root, f)));
  for (const file of files) cpSync(join(root, file), join(to, file));
  for (const { dir } of publicPackages()) {
    cpSync(join(dir, "dist"), join(to, dir.slice(root.length + 1), "dist"), { recursive: true });
  }
  symlinkSync(join(root, "node_modules"), join(to, "node_modules"));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=release test", "-c", "user.email=release@test.invalid", ...args], {
      cwd: to,
      stdio: "ignore",
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "scratch copy");
}

const release = () => run("npm", ["run", "release"], { cwd: repo, env: { NO_COLOR: "1" } });
const versionOf = (dir: string) => readJson(join(repo, "packages", dir, "package.json")).version;
const published = async () => (await Promise.all(names.map((n) => registry.versions(n)))).flat();

beforeAll(async () => {
  work = consumerRoot();
  registry = await startLocalRegistry(join(work, "registry"));
  repo = join(work, "repo");
  copyRepository(repo);
  writeFileSync(join(repo, ".npmrc"), registry.npmrc);
  // A pending changeset: every public package gets a patch release.
  writeFileSync(
    join(repo, ".changeset", "release-test.md"),
    `---\n${names.map((n) => `"${n}": patch`).join("\n")}\n---\n\nRelease test.\n`,
  );
});

afterAll(async () => {
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
});

/**
 * A consumer install from the local registry revalidates every dependency through it (the
 * registry proxies the public one): minutes when other builds share the two cores.
 */
const INSTALL_TIMEOUT = 900_000;

describe("npm run release", () => {
  it("publishes nothing, and versions nothing, when a package's sources changed after its build", async () => {
    const source = join(repo, "packages", "client", "src", "index.ts");
    appendFileSync(source, "\n// edited after the build\n");
    try {
      const result = await release();
      expect(result.code, transcript("npm run release", result)).not.toBe(0);
      expect(result.stderr).toContain(
        "@marketapi/client: dist/ is stale: changed since it was built: packages/client/src/index.ts",
      );
      expect(result.stderr).toContain("nothing was published");
      expect(await published()).toEqual([]);
      expect(versionOf("client")).toBe("0.1.0");
      expect(existsSync(join(repo, ".changeset", "release-test.md"))).toBe(true);
    } finally {
      execFileSync("git", ["checkout", "--", source], { cwd: repo });
    }
  });

  it("publishes nothing when a package's dist/ is missing", async () => {
    const dist = join(repo, "packages", "spec", "dist");
    renameSync(dist, `${dist}.away`);
    try {
      const result = await release();
      expect(result.code, transcript("npm run release", result)).not.toBe(0);
      expect(result.stderr).toContain("@marketapi/spec: dist/ is missing");
      expect(await published()).toEqual([]);
    } finally {
      renameSync(`${dist}.away`, dist);
    }
  });

  it("leaves a direct npm publish of a stale package to its prepack, which refuses it", async () => {
    const source = join(repo, "packages", "validators", "src", "cli.ts");
    appendFileSync(source, "\n// edited after the build\n");
    try {
      const result = await run("npm", ["publish"], { cwd: join(repo, "packages", "validators") });
      expect(result.code, transcript("npm publish", result)).not.toBe(0);
      expect(result.stderr).toContain("refusing to pack @marketapi/validators: dist/ is stale");
      expect(await published()).toEqual([]);
    } finally {
      execFileSync("git", ["checkout", "--", source], { cwd: repo });
    }
  });

  it(
    "publishes every public package once each dist/ is a build of its sources",
    async () => {
      // Publish the current versions: no changeset pending, the repository's own included.
      for (const file of readdirSync(join(repo, ".changeset"))) {
        if (file.endsWith(".md") && file !== "README.md") rmSync(join(repo, ".changeset", file));
      }
      // Without a changeset the release requires specs/ to hold no unreleased API change, while this
      // repository's specs/ often does (it waits for the next release). The scratch copy records
      // today's spec as released, as a release would, then rebuilds the packages whose builds read
      // specs/releases (the docs' changelog page), as `npm run build` would; the copy has no turbo
      // cache, so turbo would rebuild every package.
      const recorded = await run(process.execPath, ["scripts/api-versions.mjs", "record"], { cwd: repo });
      expect(recorded.code, transcript("api-versions record", recorded)).toBe(0);
      const stale = publicPackages(repo).filter(({ dir }) => staleness(dir, repo) !== null);
      expect(stale.map((p) => p.manifest.name)).toEqual(["@marketapi/docs"]);
      for (const { manifest } of stale) {
        const built = await run("npm", ["run", "build", "--silent", "-w", manifest.name], { cwd: repo });
        expect(built.code, transcript(`npm run build -w ${manifest.name}`, built)).toBe(0);
      }
      const result = await release();
      expect(result.code, transcript("npm run release", result)).toBe(0);
      for (const name of names) expect(await registry.versions(name), name).toEqual(["0.1.0"]);
    },
    INSTALL_TIMEOUT,
  );

  it(
    "the published packages install from the registry by the ranges they declare",
    async () => {
      const consumer = join(work, "consumer");
      mkdirSync(consumer);
      writeFileSync(
        join(consumer, "package.json"),
        '{ "name": "consumer", "private": true, "type": "module" }\n',
      );
      writeFileSync(join(consumer, ".npmrc"), registry.npmrc);
      const install = await run(
        "npm",
        [
          "install",
          "@marketapi/contract",
          "@marketapi/codegen",
          "@marketapi/diff",
          "@marketapi/docs",
          "--prefer-online",
          "--no-audit",
          "--no-fund",
        ],
        { cwd: consumer },
      );
      expect(install.code, transcript("npm install from the registry", install)).toBe(0);
      // Only the local registry serves @marketapi (the .npmrc's scope); each resolved to what it published.
      for (const name of names.filter((n) => n !== "@marketapi/client")) {
        expect(readJson(join(consumer, "node_modules", name, "package.json")).version, name).toBe("0.1.0");
      }
      const help = await run(join(consumer, "node_modules", ".bin", "marketapi-contract"), ["--help"], {
        cwd: consumer,
      });
      expect(help.code, transcript("marketapi-contract --help", help)).toBe(0);
    },
    INSTALL_TIMEOUT,
  );
});
