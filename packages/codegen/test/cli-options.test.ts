// Options a consumer's CI can trust: they may live in a config file or in package.json, so that
// `generate` and `--check` read the same ones; headers record them normalised, so the order and
// spelling of flags never make --check fail; a mistyped flag or operationId gets a suggestion.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanScratch, codegen, scratchDir } from "./cli-support.js";

const root = scratchDir("options");
afterAll(() => cleanScratch(root));

const folder = (name: string, files: Record<string, unknown> = {}) => {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [file, value] of Object.entries(files)) writeFileSync(join(dir, file), JSON.stringify(value));
  return dir;
};
const header = (dir: string, file: string) => readFileSync(join(dir, "gen", file), "utf8").split("\n")[1];
const REGENERATE =
  "// Do not edit it by hand: regenerate it with `marketapi-codegen --out gen --validators --operations order_book,ping`.";

describe.concurrent("marketapi-codegen options", () => {
  const configs: { name: string; files: Record<string, unknown>; args: string[] }[] = [
    {
      name: "marketapi-codegen.config.json",
      files: {
        "marketapi-codegen.config.json": { out: "gen", validators: true, operations: ["ping", "order_book"] },
      },
      args: [],
    },
    {
      name: 'the "marketapi-codegen" key of package.json',
      files: {
        "package.json": {
          name: "consumer",
          "marketapi-codegen": { out: "./gen/", validators: true, operations: "order_book,ping" },
        },
      },
      args: [],
    },
    {
      name: "a file named by --config, with paths relative to its folder",
      files: {},
      args: ["--config", "ci/codegen.json"],
    },
  ];

  it.each(configs)("reads $name; --check then agrees with generate", async ({ name, files, args }) => {
    const dir = folder(name.replace(/\W+/g, "-"), files);
    if (args.length > 0) {
      mkdirSync(join(dir, "ci"));
      writeFileSync(
        join(dir, "ci/codegen.json"),
        JSON.stringify({ out: "../gen", validators: true, operations: ["order_book", "ping"] }),
      );
    }
    const generated = await codegen(args, { cwd: dir });
    expect(generated.code, generated.stderr).toBe(0);
    expect(header(dir, "validators.gen.ts")).toBe(REGENERATE);
    const checked = await codegen([...args, "--check"], { cwd: dir });
    expect(checked.code, checked.stderr).toBe(0);
    // A flag on the command line overrides the config: a different operation set is stale.
    const other = await codegen([...args, "--check", "--operations", "ping"], { cwd: dir });
    expect(other.code).toBe(1);
  });

  it("headers record normalised options: another spelling of the same options passes --check", async () => {
    const dir = folder("spelling");
    const first = await codegen(
      ["--operations", "ping,order_book,ping", "--validators", "--out=./gen/", "--spec", "@marketapi/spec"],
      { cwd: dir },
    );
    expect(first.code, first.stderr).toBe(0);
    expect(header(dir, "validators.gen.ts")).toBe(REGENERATE);
    const again = await codegen(
      ["--check", "--out", join(dir, "gen"), "--validators", "--operations=order_book,ping"],
      {
        cwd: dir,
      },
    );
    expect(again.code, again.stderr).toBe(0);
  });

  const mistakes: { given: string[]; config?: Record<string, unknown>; want: string }[] = [
    {
      given: ["--clinet", "--out", "gen"],
      want: "marketapi-codegen: unknown option --clinet; did you mean --client?",
    },
    {
      given: ["--out", "gen", "--chek"],
      want: "marketapi-codegen: unknown option --chek; did you mean --check?",
    },
    { given: ["--out", "gen", "--frobnicate"], want: "marketapi-codegen: unknown option --frobnicate" },
    {
      given: ["--out", ""],
      want: 'marketapi-codegen: --out needs a value; got "" (an empty word, such as an unset variable)',
    },
    {
      given: [],
      config: { outt: "gen" },
      want: 'marketapi-codegen: marketapi-codegen.config.json: unknown option "outt"; did you mean "out"? (options: out, spec, client, validators, operations, endpoint, strictSchemas)',
    },
    {
      given: [],
      config: { out: "gen", client: "yes" },
      want: 'marketapi-codegen: marketapi-codegen.config.json#/client: expected true or false, found "yes"',
    },
  ];

  it.each(mistakes)("$want", async ({ given, config, want }) => {
    const dir = folder(
      `mistake-${Math.random().toString(36).slice(2)}`,
      config ? { "marketapi-codegen.config.json": config } : {},
    );
    const run = await codegen(given, { cwd: dir });
    expect(run.code).toBe(2);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe(want);
    // A short usage (two lines) for a flag, not the full one.
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(run.stderr).not.toContain("--max-operations");
  });

  it("--operations order_bok blames the flag and suggests order_book", async () => {
    const dir = folder("order-bok");
    const run = await codegen(["--out", "gen", "--operations", "order_bok"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toMatch(
      /^marketapi-codegen: --operations: @marketapi\/spec has no operation "order_bok" \(did you mean "order_book"\?\); its operationIds: ping, /,
    );
    expect(run.stderr).not.toContain("#/paths");
  });
});
