// Every ts and sh block of the READMEs (root, packages, docs/), pasted into a consumer-shaped
// project and run as printed against a reference server on 127.0.0.1: shell blocks through bash,
// TypeScript blocks type-checked by strict tsc and run by node. A block that cannot run says why
// in a mark right before it (<!-- not-runnable: why --> or <!-- typecheck-only: why -->); an
// unmarked block is run, so a block is never silently skipped.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, startServer } from "@marketapi/reference-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "./support/dist.js";
import { blocksOf, type ReadmeBlock, readmeFiles } from "./support/readme-blocks.js";

const REPO_DIR = join(PACKAGE_DIR, "..", "..");
// tsc over the generated client and the run of the contract tester, on a loaded 2-core machine.
const PROJECT_TIMEOUT = 900_000;

/** What a run block must print, beyond exiting 0: the values its comments promise. */
const PRINTS: Record<string, RegExp[]> = {
  "packages/client/README.md": [
    /^FILLED \[/m,
    /^200$/m,
    /^number$/m,
    /^\/api\/v3\/orders\/a%20b%2F1\?symbols=%5B%22BTCUSDT%22%2C%22ETHUSDT%22%5D&ids=1\|2$/m,
  ],
  "packages/codegen/README.md": [/^5$/m, /\{ valid: true \}/],
  "packages/contract/README.md": [/exit 0 \(every check that ran passed\)/],
  "packages/reference-server/README.md": [
    /^FILLED$/m,
    /^REQUEST_WEIGHT 6000, ORDERS 50, ORDERS 160000, RAW_REQUESTS 61000$/m,
  ],
  "packages/spec/README.md": [/'\/api\/v3\/ping'/],
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const blocks: ReadmeBlock[] = readmeFiles(REPO_DIR).flatMap((file) =>
  blocksOf(file, readFileSync(join(REPO_DIR, file), "utf8")),
);
const where = (block: ReadmeBlock) => `${block.file}:${block.line}`;
/** A block's file in the shared project: its README's path and its line (src/packages-client-README-md-l11.ts). */
const fileName = (block: ReadmeBlock) => `${slug(block.file)}-l${block.line}`;
const slug = (file: string) => file.replace(/[^A-Za-z0-9]+/g, "-");

let work: string;
let template: string;
let server: RunningServer;
let env: NodeJS.ProcessEnv;

let shared: string;
let sharedEnv: NodeJS.ProcessEnv;
let ready: Promise<{ shells: Map<ReadmeBlock, Run>; tsc: Run }> | undefined;

/**
 * Every README's blocks in one consumer project (a copy of the template), as a reader who follows
 * them all has it: the shell blocks run in order (later TypeScript blocks may use what they
 * write), then every TypeScript block is type-checked by one strict tsc: one compiler start for all
 * the READMEs rather than one each, each error still named by its README's line.
 */
function project(): Promise<{ shells: Map<ReadmeBlock, Run>; tsc: Run }> {
  ready ??= (async () => {
    shared = join(work, "readers-project");
    cpSync(template, shared, { recursive: true, verbatimSymlinks: true });
    sharedEnv = { ...env, PATH: `${join(shared, "node_modules", ".bin")}:${process.env.PATH ?? ""}` };
    const runnable = blocks.filter((b) => b.mode !== "not-runnable");
    const shells = new Map<ReadmeBlock, Run>();
    for (const block of runnable.filter((b) => b.language === "sh")) {
      const script = join(shared, `${fileName(block)}.sh`);
      writeFileSync(script, `set -euo pipefail\n${block.code}`);
      shells.set(block, await run("bash", [script], shared, sharedEnv));
    }
    for (const block of runnable.filter((b) => b.language === "ts"))
      writeFileSync(join(shared, "src", `${fileName(block)}.ts`), block.code);
    const tsc = await run(
      join(shared, "node_modules", ".bin", "tsc"),
      ["-p", "tsconfig.json"],
      shared,
      sharedEnv,
    );
    return { shells, tsc };
  })();
  return ready;
}

/** tsc's output with each error named by its README line: src/<readme>-l11.ts(3,5) is that README's line 11 + 3. */
function located(tsc: Run): string {
  const byName = new Map(blocks.map((b) => [fileName(b), b]));
  return `${tsc.stdout}${tsc.stderr}`.replace(
    /src\/([A-Za-z0-9-]+)\.ts\((\d+),(\d+)\)/g,
    (text, name: string, line: string, column: string) => {
      const block = byName.get(name);
      return block ? `${block.file}:${block.line + Number(line)}:${column}` : text;
    },
  );
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "marketapi-readme-"));
  server = await startServer({ port: 0 });
  template = join(work, "template");
  mkdirSync(join(template, "src"), { recursive: true });
  // Consumer-shaped: the packages resolve through node_modules and their exports maps, as installed.
  symlinkSync(join(REPO_DIR, "node_modules"), join(template, "node_modules"), "dir");
  writeFileSync(
    join(template, "package.json"),
    JSON.stringify({ name: "readme-consumer", private: true, type: "module" }, null, 2),
  );
  writeFileSync(
    join(template, "tsconfig.json"),
    JSON.stringify(
      {
        compilerOptions: {
          strict: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          moduleDetection: "force",
          resolveJsonModule: true,
          skipLibCheck: true,
          types: ["node"],
          rootDir: "src",
          outDir: "out",
          // The template compiles the generated code once (beforeAll); each README's project is
          // a copy, so its strict tsc checks only what the README adds and reuses the rest.
          incremental: true,
          tsBuildInfoFile: "out/.tsbuildinfo",
        },
        include: ["src"],
      },
      null,
      2,
    ),
  );
  env = {
    PATH: `${join(template, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
    HOME: process.env.HOME ?? work,
    BASE_URL: server.url,
    API_KEY: server.demo.apiKey,
    API_SECRET: server.demo.apiSecret,
    NO_COLOR: "1",
  };
  // What the READMEs' readers have generated: the client and validators (codegen's first example)
  // and a fork's validators in src/validators (the validators README).
  for (const args of [
    ["--out", "src/generated"],
    ["--out", "src/validators", "--validators"],
  ]) {
    const generated = await run(
      join(template, "node_modules", ".bin", "marketapi-codegen"),
      args,
      template,
      env,
    );
    if (generated.code !== 0) throw new Error(`marketapi-codegen ${args.join(" ")}: ${generated.stderr}`);
  }
  // tsc's incremental state for the generated code, which every project copies. Its verdict is
  // not taken here: a README's own tsc run reports every error, the generated code's included.
  await run(join(template, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], template, env);
}, PROJECT_TIMEOUT);

afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("README code blocks", () => {
  it("are all accounted for: each is run, type-checked, or marked not runnable with a reason", () => {
    const count = (mode: ReadmeBlock["mode"]) => blocks.filter((b) => b.mode === mode).length;
    const summary = `${blocks.length} blocks: ${count("run")} run, ${count("typecheck-only")} type-checked only, ${count("not-runnable")} marked not runnable`;
    console.log(`README examples: ${summary}`);
    for (const block of blocks.filter((b) => b.mode === "not-runnable")) {
      console.log(`  not run: ${where(block)} (${block.reason})`);
    }
    expect(blocks.length).toBeGreaterThanOrEqual(25);
    expect(count("run"), summary).toBeGreaterThanOrEqual(11);
    for (const block of blocks.filter((b) => b.mode !== "run")) {
      expect(block.reason?.length ?? 0, `${where(block)} says why`).toBeGreaterThan(10);
    }
    // A typecheck-only mark on a shell block would hide it: shell blocks are run or not.
    expect(blocks.filter((b) => b.language === "sh" && b.mode === "typecheck-only").map(where)).toEqual([]);
  });

  const byFile = [...new Set(blocks.filter((b) => b.mode !== "not-runnable").map((b) => b.file))];

  it("type-check together under one strict tsc, the generated code included", async () => {
    const { tsc } = await project();
    expect(tsc.code, `strict tsc over every README's TypeScript blocks\n${located(tsc)}`).toBe(0);
  });

  it.each(byFile)("%s: its blocks run as printed against a reference server", async (file) => {
    const { shells, tsc } = await project();
    const mine = blocks.filter((b) => b.file === file && b.mode !== "not-runnable");
    let printed = "";
    for (const block of mine.filter((b) => b.language === "sh")) {
      const result = shells.get(block) as Run;
      expect(result.code, `${where(block)} exits 0\n${result.stdout}\n${result.stderr}`).toBe(0);
      printed += result.stdout;
    }
    const typescript = mine.filter((b) => b.language === "ts");
    const errors = located(tsc)
      .split("\n")
      .filter((line) => line.startsWith(`${file}:`));
    expect(errors, `strict tsc over ${file}'s TypeScript blocks`).toEqual([]);
    for (const block of typescript.filter((b) => b.mode === "run")) {
      const result = await run(process.execPath, [join("out", `${fileName(block)}.js`)], shared, sharedEnv);
      expect(result.code, `${where(block)} runs and exits 0\n${result.stdout}\n${result.stderr}`).toBe(0);
      printed += result.stdout;
    }
    for (const want of PRINTS[file] ?? [])
      expect(printed, `${file} prints what its comments say`).toMatch(want);
  });
});

describe("finding the blocks and their marks", () => {
  it.each([
    { given: "```ts\nlet a = 1;\n```\n", want: [{ line: 1, language: "ts", mode: "run" }] },
    {
      given: "<!-- not-runnable: installs from the registry -->\n\n```sh\nnpm i x\n```\n```json\n{}\n```\n",
      want: [{ line: 3, language: "sh", mode: "not-runnable", reason: "installs from the registry" }],
    },
    {
      given: "<!-- typecheck-only: reads a file of yours -->\n```typescript\nf();\n```\n",
      want: [{ line: 2, language: "ts", mode: "typecheck-only", reason: "reads a file of yours" }],
    },
    {
      given: "```\nmarketapi-codegen --out DIR\n```\n```bash\nls\n```\n",
      want: [{ line: 4, language: "sh", mode: "run" }],
    },
  ])("blocksOf($given)", ({ given, want }) => {
    expect(
      blocksOf("R.md", given).map(({ line, language, mode, reason }) => ({
        line,
        language,
        mode,
        ...(reason ? { reason } : {}),
      })),
    ).toEqual(want);
  });

  it.each([
    {
      given: "<!-- not-runnable: -->\n```sh\nx\n```\n",
      want: /R\.md:1: the mark not-runnable needs a reason/,
    },
    {
      given: "<!-- not-runnable: why -->\nSome prose.\n```sh\nx\n```\n",
      want: /R\.md:1: the mark is not followed by a code block/,
    },
    {
      given: "<!-- not-runnable: why -->\n```json\n{}\n```\n",
      want: /R\.md:1: the mark is not followed by a ts or sh block/,
    },
    {
      given: "text\n<!-- typecheck-only: why -->\n",
      want: /R\.md:2: the mark is not followed by a code block/,
    },
  ])("blocksOf refuses $want", ({ given, want }) => {
    expect(() => blocksOf("R.md", given)).toThrow(want);
  });
});
