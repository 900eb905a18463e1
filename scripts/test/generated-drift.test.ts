// The drift check of `npm test` (scripts/check-generated-drift.mjs) in a scratch git repository
// shaped like this one: it passes on generated files as committed, and fails, naming each file, on a
// changed, an added and a deleted one. It also fails when there is nothing to compare.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generatedDrift } from "../check-generated-drift.mjs";
import { run } from "../release-check.mjs";
import { root } from "../workspace-packages.mjs";

let repo: string;

function git(...args: string[]) {
  execFileSync("git", ["-c", "user.name=drift test", "-c", "user.email=drift@test.invalid", ...args], {
    cwd: repo,
    stdio: "ignore",
  });
}

function write(path: string, text: string) {
  mkdirSync(join(repo, path, ".."), { recursive: true });
  writeFileSync(join(repo, path), text);
}

const check = () =>
  run(process.execPath, [join(root, "scripts", "check-generated-drift.mjs"), "--root", repo], { cwd: repo });

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "marketapi-drift-"));
  write("package.json", JSON.stringify({ name: "scratch", private: true, workspaces: ["packages/*"] }));
  for (const pkg of ["client", "validators"]) {
    write(`packages/${pkg}/package.json`, JSON.stringify({ name: `@scratch/${pkg}`, version: "1.0.0" }));
    write(`packages/${pkg}/src/generated/one.gen.ts`, "// generated\nexport const one = 1;\n");
    write(`packages/${pkg}/src/generated/two.gen.ts`, "// generated\nexport const two = 2;\n");
    write(`packages/${pkg}/src/hand-written.ts`, "export const mine = 1;\n");
  }
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "generated files committed");
});

afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe("the generated-files drift check", () => {
  it("passes on generated files as committed, counting what it compared", async () => {
    const result = await check();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "the 4 generated files under packages/client/src/generated, packages/validators/src/generated match the commit",
    );
  });

  it("fails on a changed, an added and a deleted generated file, naming each", async () => {
    appendFileSync(join(repo, "packages/client/src/generated/one.gen.ts"), "export const edited = true;\n");
    write("packages/validators/src/generated/nested/three.gen.ts", "export const three = 3;\n");
    rmSync(join(repo, "packages/validators/src/generated/two.gen.ts"));
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(" M packages/client/src/generated/one.gen.ts");
    expect(result.stderr).toContain("?? packages/validators/src/generated/nested/three.gen.ts");
    expect(result.stderr).toContain(" D packages/validators/src/generated/two.gen.ts");
    expect(result.stderr).toContain("run `npm run build` and commit");
  });

  it.each([
    {
      given: "a changed file",
      file: "packages/client/src/generated/two.gen.ts",
      spoil: (path: string) => appendFileSync(join(repo, path), "//\n"),
    },
    {
      given: "an added file",
      file: "packages/client/src/generated/new.gen.ts",
      spoil: (path: string) => write(path, "export {};\n"),
    },
    {
      given: "a deleted file",
      file: "packages/validators/src/generated/one.gen.ts",
      spoil: (path: string) => rmSync(join(repo, path)),
    },
  ])("fails on $given alone, naming it", async ({ file, spoil }) => {
    spoil(file);
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(file);
  });

  it("leaves hand-written files to the other checks", async () => {
    appendFileSync(join(repo, "packages/client/src/hand-written.ts"), "export const more = 2;\n");
    expect((await check()).code).toBe(0);
  });

  it("fails when no generated file is committed, since it would compare nothing", async () => {
    git("rm", "-q", "-r", "packages/client/src/generated", "packages/validators/src/generated");
    git("commit", "-q", "-m", "no generated files");
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no committed generated file found");
  });

  it("fails outside a git checkout instead of skipping", async () => {
    rmSync(join(repo, ".git"), { recursive: true, force: true });
    const result = await check();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot ask git about the generated files");
  });
});

describe("the drift check on this repository", () => {
  it("compares the committed generated files of the client and the validators", () => {
    const { tracked } = generatedDrift(root);
    expect(tracked.filter((f) => f.startsWith("packages/client/src/generated/")).length).toBeGreaterThan(0);
    expect(tracked.filter((f) => f.startsWith("packages/validators/src/generated/")).length).toBeGreaterThan(
      0,
    );
  });
});
