// `--check`, as a consumer's CI runs it: passes on fresh output; fails (exit 1, listing the files
// and the command that fixes them) after a one-character edit, a deleted file, a stale file or a
// change of the spec; and never writes.
import { copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanScratch, codegen, scratchDir, snapshot } from "./cli-support.js";

const COMMAND = "npx marketapi-codegen --spec spot-api.json --out out --client --validators";
let root: string;

beforeAll(async () => {
  root = scratchDir("check");
  copyFileSync(
    createRequire(import.meta.url).resolve("@marketapi/spec/openapi.json"),
    join(root, "spot-api.json"),
  );
  const generated = await codegen(["--spec", "spot-api.json", "--out", "out"], { cwd: root });
  expect(generated.code).toBe(0);
});
afterAll(() => cleanScratch(root));

/** A copy of the fresh project (spec and output) to spoil in one way. */
function project(name: string): string {
  const dir = join(root, name);
  cpSync(join(root, "spot-api.json"), join(dir, "spot-api.json"));
  cpSync(join(root, "out"), join(dir, "out"), { recursive: true });
  return dir;
}

/** Runs --check in `dir` and asserts it wrote nothing. */
async function check(dir: string) {
  const before = snapshot(dir);
  const result = await codegen(["--spec", "spot-api.json", "--out", "out", "--check"], { cwd: dir });
  expect(snapshot(dir)).toEqual(before);
  return result;
}

describe.concurrent("--check", () => {
  it("passes on fresh output", async () => {
    const result = await check(project("fresh"));
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toBe("marketapi-codegen: out is up to date (8 files)\n");
  });

  it("fails after a one-character edit of a generated file", async () => {
    const dir = project("edited");
    const file = join(dir, "out/operations.gen.ts");
    writeFileSync(file, readFileSync(file, "utf8").replace('method: "GET"', 'method: "PUT"'));
    const result = await check(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        "  changed out/operations.gen.ts",
        "marketapi-codegen: out is out of date (1 of its generated files differ); regenerate it with:",
        `  ${COMMAND}`,
        "",
      ].join("\n"),
    );
  });

  it("fails when a generated file is missing, or a generated file is no longer generated", async () => {
    const dir = project("missing");
    rmSync(join(dir, "out/validators.gen.ts"));
    const stale = readFileSync(join(dir, "out/client.gen.ts"), "utf8").split("\n").slice(0, 2).join("\n");
    writeFileSync(join(dir, "out/old.gen.ts"), `${stale}\nexport {};\n`);
    writeFileSync(join(dir, "out/notes.md"), "Hand-written, not ours: never reported.\n");
    const result = await check(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("  removed out/old.gen.ts\n  added   out/validators.gen.ts\n");
    expect(result.stderr).not.toContain("notes.md");
    expect(result.stderr).toContain(COMMAND);
  });

  it("fails after a change of the spec, naming the files it changes", async () => {
    const dir = project("spec-changed");
    const spec = JSON.parse(readFileSync(join(dir, "spot-api.json"), "utf8"));
    spec.paths["/api/v3/ping"].get.summary = "Test connectivity to the exchange";
    writeFileSync(join(dir, "spot-api.json"), JSON.stringify(spec));
    const result = await check(dir);
    expect(result.code).toBe(1);
    const listed = result.stderr.split("\n").filter((line) => line.startsWith("  changed"));
    expect(listed).toEqual(["  changed out/methods.gen.ts", "  changed out/types.gen.ts"]);

    // The printed command brings the folder up to date, and --check then passes.
    const fixed = await codegen(COMMAND.split(" ").slice(2), { cwd: dir });
    expect(fixed).toMatchObject({ code: 0, stdout: "marketapi-codegen: 8 files in out (2 changed)\n" });
    expect((await check(dir)).code).toBe(0);
  });

  it("exits 1 on a spec the generators cannot use, and compares nothing", async () => {
    const dir = project("bad-spec");
    writeFileSync(join(dir, "spot-api.json"), '{"openapi": "3.2.0"}');
    const result = await check(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("spot-api.json#/openapi");
    expect(result.stderr).toContain("nothing was compared");
  });
});
