// How a missing or unbuilt better-sqlite3 is reported: real installs with each fault, in a
// temporary folder, resolved the way the server resolves it.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadDriver } from "../src/store/driver.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-driver-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const installed = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(installed.resolve(`${name}/package.json`));

/** A project folder whose node_modules holds `packages` copied from this install, minus `skip`. */
function project(name: string, packages: string[], skip: (path: string) => boolean = () => false): string {
  const root = join(folder, name);
  for (const pkg of packages) {
    cpSync(packageDir(pkg), join(root, "node_modules", pkg), {
      recursive: true,
      filter: (src) => !skip(src),
    });
  }
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "index.js"), "");
  return pathToFileURL(join(root, "index.js")).href;
}

describe("loading better-sqlite3 for --state", () => {
  it("works from this repository's install", () => {
    const Driver = loadDriver();
    const db = new Driver(":memory:");
    expect(db.prepare("SELECT 1 + 1 AS two").get()).toEqual({ two: 2 });
    db.close();
  });

  it("not installed (an optional peer dependency, which npm leaves out): says to install it", () => {
    expect(() => loadDriver(project("absent", []))).toThrow(
      "--state needs better-sqlite3 (an optional peer dependency, installed only for --state), which is not installed; install it with: npm i better-sqlite3@12, and if npm skips its install script (which builds its native module), build it with: npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3",
    );
  });

  it("installed but its install script never ran: says how to allow and build it", () => {
    const from = project("unbuilt", ["better-sqlite3", "bindings", "file-uri-to-path"], (src) =>
      /[\\/]build([\\/]|$)/.test(src),
    );
    expect(() => loadDriver(from)).toThrow(
      '--state needs better-sqlite3, whose native module was not built (npm blocked or skipped its install script); build it with: npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3 (remove a "better-sqlite3": false entry from allowScripts first; with ignore-scripts set, add --ignore-scripts=false to the rebuild)',
    );
  });
});
