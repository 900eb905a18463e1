// The marketapi-docs command as a consumer gets it: @marketapi/docs packed with `npm pack` (its
// prepack refuses a stale build), installed into a scratch project with the workspace packages it
// needs as their tarballs and everything else from the registry (through npm's local cache), then
// run on a copy of the spec to write a site that a real browser-free check reads back.
import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { embeddedDefinition } from "../src/redoc-page.js";
import { PACKAGE_DIR } from "./support/dist.js";

const REPO_DIR = join(PACKAGE_DIR, "..", "..");
/** The folders of `folder`'s package and of the workspace packages it depends on at run time, transitively. */
function withRuntimeWorkspaceDependencies(folder: string, seen = new Set<string>()): string[] {
  if (seen.has(folder)) return [];
  seen.add(folder);
  const manifest = JSON.parse(readFileSync(join(REPO_DIR, "packages", folder, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  const workspace = Object.keys(manifest.dependencies ?? {}).filter((name) => name.startsWith("@marketapi/"));
  return [
    folder,
    ...workspace.flatMap((name) => withRuntimeWorkspaceDependencies(name.slice("@marketapi/".length), seen)),
  ];
}

/** @marketapi/docs and the workspace packages it depends on at run time (read from the manifests). */
const PACKED = withRuntimeWorkspaceDependencies("docs");
// Packing the packages and installing @redocly/cli's tree on a loaded 2-core machine.
const INSTALL_TIMEOUT = 900_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1" } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

function explain(what: string, result: Run): string {
  return `${what} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/** A scratch folder with no node_modules above it, so the consumer resolves only what it installed. */
function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "marketapi-docs-consumer-"));
  for (let up = dirname(dir); up !== dirname(up); up = dirname(up)) {
    if (existsSync(join(up, "node_modules")))
      throw new Error(`${up}/node_modules would leak into the consumer`);
  }
  return dir;
}

let work: string;
let consumer: string;
const bin = () => join(consumer, "node_modules", ".bin", "marketapi-docs");

beforeAll(async () => {
  work = scratchDir();
  const tarballs = join(work, "tarballs");
  mkdirSync(tarballs);
  const byName = new Map<string, string>();
  for (const folder of PACKED) {
    const dir = join(REPO_DIR, "packages", folder);
    const packed = await run("npm", ["pack", "--json", "--pack-destination", tarballs], dir);
    if (packed.code !== 0) throw new Error(explain(`npm pack in packages/${folder}`, packed));
    const [entry] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string }[];
    const filename = entry?.filename ?? "";
    const name = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name as string;
    byName.set(name, `file:${join(tarballs, filename)}`);
  }
  consumer = join(work, "consumer");
  mkdirSync(consumer);
  const docs = byName.get("@marketapi/docs") as string;
  const overrides = Object.fromEntries([...byName].filter(([name]) => name !== "@marketapi/docs"));
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify(
      {
        name: "docs-consumer",
        private: true,
        type: "module",
        dependencies: { "@marketapi/docs": docs },
        overrides,
      },
      null,
      2,
    ),
  );
  const install = await run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"],
    consumer,
  );
  if (install.code !== 0) throw new Error(explain("npm install of the packed @marketapi/docs", install));
}, INSTALL_TIMEOUT);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("marketapi-docs, packed and installed", () => {
  it("installs the command and its runtime dependencies only (no test tools)", () => {
    expect(existsSync(bin()), "node_modules/.bin/marketapi-docs").toBe(true);
    const installed = readdirSync(join(consumer, "node_modules", "@marketapi")).sort();
    expect(installed).toEqual([...PACKED].sort());
    expect(existsSync(join(consumer, "node_modules", "playwright-core"))).toBe(false);
    const shipped = readdirSync(join(consumer, "node_modules", "@marketapi", "docs"));
    expect(shipped).toEqual(expect.arrayContaining(["bin", "lib", "LICENSE", "README.md", "package.json"]));
    expect(shipped).not.toContain("dist");
  });

  it(
    "builds the site from a user's copy of the spec, with their title, and the changelog from --releases",
    async () => {
      const mine = join(work, "my-spec");
      mkdirSync(mine);
      const yamlText = readFileSync(join(REPO_DIR, "specs", "spot-api.openapi.yaml"), "utf8");
      const renamed = yamlText.replace(/^(\s+title:\s*).*$/m, "$1Acme Exchange API");
      expect(renamed).not.toBe(yamlText);
      writeFileSync(join(mine, "spot-api.openapi.yaml"), renamed);
      cpSync(join(REPO_DIR, "specs", "releases"), join(mine, "releases"), { recursive: true });
      const out = join(work, "site");
      const built = await run(
        bin(),
        [
          "build",
          "--spec",
          join(mine, "spot-api.openapi.yaml"),
          "--out",
          out,
          "--releases",
          join(mine, "releases"),
        ],
        consumer,
      );
      expect(built.code, explain("marketapi-docs build", built)).toBe(0);
      expect(built.stdout).toContain(`wrote 6 files to ${out}`);
      // No Endpoint page unless asked for (--endpoint-page).
      expect(readdirSync(out).sort()).toEqual([
        "api.html",
        "api.openapi.json",
        "changes.html",
        "index.html",
        "openapi.json",
        "openapi.yaml",
      ]);
      expect(readFileSync(join(out, "openapi.yaml"), "utf8")).toBe(renamed);
      const api = JSON.parse(readFileSync(join(out, "api.openapi.json"), "utf8"));
      expect(api.info.title).toBe("Acme Exchange API");
      expect(embeddedDefinition(readFileSync(join(out, "api.html"), "utf8"))).toEqual(api);
      expect(readFileSync(join(out, "index.html"), "utf8")).toContain("Acme Exchange API");
      expect(readFileSync(join(out, "changes.html"), "utf8")).toContain("Version 1.0.0");
    },
    INSTALL_TIMEOUT,
  );

  it(
    "builds from a JSON spec too, writing its YAML form; bad input is one line with exit 1 or 2",
    async () => {
      const json = join(work, "spec.json");
      writeFileSync(
        json,
        JSON.stringify(parse(readFileSync(join(REPO_DIR, "specs", "spot-api.openapi.yaml"), "utf8"))),
      );
      const out = join(work, "site-json");
      const built = await run(bin(), ["build", "--spec", json, "--out", out], consumer);
      expect(built.code, explain("marketapi-docs build --spec spec.json", built)).toBe(0);
      expect(parse(readFileSync(join(out, "openapi.yaml"), "utf8"))).toEqual(
        JSON.parse(readFileSync(json, "utf8")),
      );
      expect(existsSync(join(out, "changes.html"))).toBe(false);

      const missing = await run(bin(), ["build", "--spec", join(work, "nope.yaml"), "--out", out], consumer);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^marketapi-docs: .*nope\.yaml.*ENOENT.*\n$/);
      const notOpenApi = join(work, "not-openapi.json");
      writeFileSync(notOpenApi, JSON.stringify({ hello: "world" }));
      const wrong = await run(bin(), ["build", "--spec", notOpenApi, "--out", out], consumer);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr.trim().split("\n")).toHaveLength(1);
      expect(wrong.stderr).toContain("not-openapi.json");
      const usage = await run(bin(), ["build", "--spec", json], consumer);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(
        /^marketapi-docs: build needs --out DIR, where the site goes\nUsage: marketapi-docs build \[--spec FILE\|PACKAGE\] --out DIR .*\n$/,
      );
      const help = await run(bin(), ["--help"], consumer);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("marketapi-docs build [--spec FILE|PACKAGE] --out DIR");

      // No --spec: the spec of @marketapi/spec, a package name resolved as --spec resolves one.
      const byDefault = join(work, "site-default");
      const fromPackage = await run(bin(), ["build", "--out", byDefault], consumer);
      expect(fromPackage.code, explain("marketapi-docs build (no --spec)", fromPackage)).toBe(0);
      const installedSpec = join(consumer, "node_modules", "@marketapi", "spec", "dist", "openapi.json");
      expect(JSON.parse(readFileSync(join(byDefault, "openapi.json"), "utf8"))).toEqual(
        JSON.parse(readFileSync(installedSpec, "utf8")),
      );
    },
    INSTALL_TIMEOUT,
  );
});
