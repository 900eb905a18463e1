// writeOutput and diffOutput: what is written, what is left alone, and that a failure at any
// point leaves the output folder as it was, with no staging folder behind.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileHeader, type GeneratedFile } from "../src/generated-file.js";
import { diffOutput, writeOutput } from "../src/write-files.js";
import { cleanScratch, scratchDir, snapshot, stagingLeftovers } from "./cli-support.js";

const root = scratchDir("write");
afterAll(() => cleanScratch(root));

const context = { command: "marketapi-codegen --out out" };
const client = (path: string, body: string): GeneratedFile => ({
  path,
  contents: `${fileHeader("client", "spec.yaml", context)}${body}\n`,
});
const validators = (path: string, body: string): GeneratedFile => ({
  path,
  contents: `${fileHeader("validators", "spec.yaml", context)}${body}\n`,
});

let count = 0;
function folder(): string {
  const dir = join(root, `case-${++count}`);
  mkdirSync(dir);
  return dir;
}

describe("writeOutput", () => {
  it("creates a missing folder (and its parents) in one rename, with nothing staged left", () => {
    const parent = folder();
    const out = join(parent, "src/generated");
    const files = [
      client("a.gen.ts", "export const a = 1;"),
      client("nested/b.gen.ts", "export const b = 2;"),
    ];
    expect(writeOutput(out, files)).toEqual([
      { path: "a.gen.ts", change: "added" },
      { path: "nested/b.gen.ts", change: "added" },
    ]);
    expect(readFileSync(join(out, "nested/b.gen.ts"), "utf8")).toBe(files[1]!.contents);
    expect(stagingLeftovers(join(parent, "src"))).toEqual([]);
    expect(writeOutput(out, files)).toEqual([]); // up to date: nothing to do
  });

  it("changes, adds and removes its own generator's files only", () => {
    const out = folder();
    writeOutput(out, [
      client("a.gen.ts", "1"),
      client("old.gen.ts", "old"),
      validators("validators.ts", "v"),
    ]);
    writeFileSync(join(out, "notes.md"), "hand-written\n");
    const next = [client("a.gen.ts", "2"), client("b.gen.ts", "new")];
    expect(diffOutput(out, next)).toEqual([
      { path: "a.gen.ts", change: "changed" },
      { path: "b.gen.ts", change: "added" },
      { path: "old.gen.ts", change: "removed" },
    ]);
    writeOutput(out, next);
    expect(Object.keys(snapshot(out)).sort()).toEqual(["a.gen.ts", "b.gen.ts", "notes.md", "validators.ts"]);
    expect(readFileSync(join(out, "a.gen.ts"), "utf8")).toBe(next[0]!.contents);
    expect(stagingLeftovers(root)).toEqual([]);
  });

  it("leaves the folder untouched when writing the staged files fails", () => {
    const out = folder();
    writeOutput(out, [client("a.gen.ts", "1")]);
    const before = snapshot(out);
    const broken = { path: "b.gen.ts", contents: 42 as unknown as string }; // a generator bug
    expect(() => writeOutput(out, [client("a.gen.ts", "2"), broken])).toThrow();
    expect(snapshot(out)).toEqual(before);
    expect(stagingLeftovers(root)).toEqual([]);
  });

  it("puts every file back when a rename into the folder fails midway", () => {
    const out = folder();
    writeOutput(out, [client("a.gen.ts", "1"), client("z.gen.ts", "1")]);
    writeFileSync(join(out, "sub"), "a file where a generated folder should go\n");
    const before = snapshot(out);
    // a.gen.ts is swapped in first, then sub/b.gen.ts cannot be (sub is a file): all is undone.
    expect(() =>
      writeOutput(out, [client("a.gen.ts", "2"), client("sub/b.gen.ts", "2"), client("z.gen.ts", "2")]),
    ).toThrow(/sub/);
    expect(snapshot(out)).toEqual(before);
    expect(stagingLeftovers(root)).toEqual([]);
  });

  it("refuses paths that leave the folder", () => {
    const out = folder();
    for (const path of ["../x.ts", "/etc/x.ts", "a//b.ts", "a\\b.ts"]) {
      expect(() => writeOutput(out, [client(path, "")])).toThrow(/inside the output folder/);
    }
    expect(existsSync(join(root, "x.ts"))).toBe(false);
    rmSync(out, { recursive: true });
  });
});
