// What the command-line tests share: running the real marketapi-codegen launcher, scratch folders
// inside the repository (so that Node and TypeScript resolve @marketapi/* through the workspace's
// node_modules, as in a consumer's repository after `npm install`), and byte snapshots of folders.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
export const REPO_ROOT = join(PACKAGE_DIR, "../..");
export const LAUNCHER = join(PACKAGE_DIR, "bin/marketapi-codegen.js");
/** Scratch space of the tests, git-ignored (packages/codegen/.gitignore). */
export const SCRATCH = join(PACKAGE_DIR, ".tmp");

/** A consumer's strict tsc project of its src/ folder (NodeNext, strict, noUncheckedIndexedAccess). */
export const STRICT_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2023", "DOM"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  },
  include: ["src"],
};

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end without blocking the event loop (a test may serve its requests). */
export function run(
  file: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd ?? REPO_ROOT,
        env: options.env ?? process.env,
        encoding: "utf8",
        maxBuffer: 1 << 24,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs `marketapi-codegen` (the committed launcher, hence dist/cli.js) with `node`. */
export function codegen(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  return run(process.execPath, [LAUNCHER, ...args], options);
}

/** A new empty folder under .tmp/, removed by `cleanScratch`. */
export function scratchDir(prefix: string): string {
  mkdirSync(SCRATCH, { recursive: true });
  return mkdtempSync(join(SCRATCH, `${prefix}-`));
}

export function cleanScratch(dir: string): void {
  if (!process.env.KEEP_SCRATCH) rmSync(dir, { recursive: true, force: true });
}

/** Every file under `dir` (dot files included), by relative path, with its bytes as base64. */
export function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) {
        files[`${relative(dir, full)}/`] = "";
        walk(full);
      } else files[relative(dir, full)] = readFileSync(full).toString("base64");
    }
  };
  walk(dir);
  return files;
}

/** The entries of `dir` whose names show a staging folder of the writer. */
export function stagingLeftovers(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.includes("marketapi-codegen-"));
}
