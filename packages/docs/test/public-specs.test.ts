// The docs of the corpus: public OpenAPI descriptions nobody here wrote, as their authors publish
// them on npm (tools/spec-corpus, the same files as codegen's corpus test; nothing is edited). For
// each, the real `marketapi-docs build` writes the site with samples in all three languages; every
// operation has samples but those the table names (with the reason the command prints); every
// shell sample passes `bash -n`, every Python one Python's parser, and the TypeScript ones strict
// tsc beside the client `marketapi-codegen --client` generates from the same file. Where Prism can
// mock the description, every sample is then run against Prism on 127.0.0.1 as a reader runs it,
// and must get a success answer (Prism refuses a request its description does not accept: a
// missing credential, a parameter or body off its schema, a path it does not have).
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { operationEntries, subsetDocument } from "@marketapi/spec/model";
import { afterAll, describe, expect, it } from "vitest";
import { corpusFile, pickFixed, startPrism } from "../../../scripts/spec-corpus.mjs";
import { ensureTool } from "../../../scripts/tools.mjs";
import type { JsonObject } from "../src/json.js";
import { PACKAGE_DIR } from "./support/dist.js";
import {
  type ProcessResult,
  pythonInterpreter,
  runProcess,
  sampleFolder,
  typeScriptProject,
} from "./support/sample-runner.js";

const DOCS_BIN = join(PACKAGE_DIR, "bin", "marketapi-docs.js");
const CODEGEN_BIN = join(
  dirname(createRequire(import.meta.url).resolve("@marketapi/codegen/package.json")),
  "bin",
  "marketapi-codegen.js",
);

/** MARKETAPI_CORPUS_FULL=1: every entry, and the large documents' larger samples (README: the corpus). */
const FULL = process.env.MARKETAPI_CORPUS_FULL === "1";

interface Entry {
  name: string;
  file: string;
  /** The tool of tools/ the file is installed with (default: spec-corpus). */
  tool?: "diff-releases";
  /** Operations ("<method> <path>") the page lists without samples, and the words of why. */
  skipped: Record<string, RegExp>;
  /** How many operations the docs are built for, picked with a fixed seed (all when absent), and those of `skipped`. */
  sample?: number;
  /** Operations ("<method> <path>") left out of the docs built here, each with why (a fault not of the docs). */
  leftOut?: Record<string, string>;
  /** Why the samples are not run against Prism, where they are not. */
  noMock?: string;
  /** Where the entry runs with MARKETAPI_CORPUS_FULL=1 only: the entries of the default run that cover what it brings. */
  fullOnly?: string;
}

const CORPUS: Entry[] = [
  {
    name: "Train Travel API (Bump.sh), 3.1",
    file: "@readme/oas-examples/3.1/json/train-travel.json",
    skipped: {},
  },
  {
    name: "Swagger Petstore (OpenAPI Initiative), 3.0",
    file: "@readme/oas-examples/3.0/json/petstore.json",
    skipped: {},
  },
  {
    name: "USPTO Data Set API, 3.0",
    file: "@readme/oas-examples/3.0/json/uspto.json",
    skipped: {},
    fullOnly:
      "its form body is Petstore's (updatePetWithForm), its path parameters Train Travel's and Petstore's, its 3.0.1 upgrade Directus's",
  },
  {
    name: "ReadMe parameter styles, 3.1",
    file: "@readme/oas-examples/3.1/json/parameters-style.json",
    skipped: {},
    noMock:
      "Prism 5.14 crashes in its cookie parameter validator on it (codegen's corpus test says the same)",
  },
  {
    name: "ReadMe security schemes, 3.1",
    file: "@readme/oas-examples/3.1/json/security.json",
    skipped: {
      "post /anything/mutualTLS": /mutual TLS, whose client certificate belongs to the TLS connection/,
    },
  },
  {
    // Free-form objects (filter), nullable $refs, path parameters, bearer tokens; a fixed sample
    // of its 136 operations (all with MARKETAPI_CORPUS_FULL=1). The default run's 6 hold each of
    // these: patch /fields/{collection}/{id} (path parameters, a nullable $ref and a free-form
    // object in its body), patch /files and patch /folders (the filter and search parameters).
    name: "Directus 15, 3.0.1 (a sample of operations)",
    file: "directus-15.0.0/dist/openapi.json",
    tool: "diff-releases",
    // Their paths name {id}, and neither they nor their path items declare a path parameter id.
    skipped: {
      "get /comments/{id}": /path parameter "id" is required/,
      "delete /comments/{id}": /path parameter "id" is required/,
      "patch /comments/{id}": /path parameter "id" is required/,
    },
    leftOut: {
      "post /fields/{collection}":
        "its schema requires datatype and length without declaring them, and the type the generated client gives the body has no field for them (a fault of the client's types: strict tsc refuses the sample that sends what the schema requires)",
    },
    sample: FULL ? undefined : 6,
  },
  {
    name: `GitHub REST API, 3.0.3, 13 MB (${FULL ? 40 : 12} operations)`,
    file: "@octokit/openapi/generated/api.github.com.json",
    skipped: {},
    // The 13 MB document read and cut down by subsetDocument, then built like the others.
    sample: FULL ? 40 : 12,
    noMock:
      "its answers redirect to GitHub's servers (a sample must not reach the network); codegen's corpus calls them",
  },
];

/** The entries this run takes: those of the default run, or all of them with MARKETAPI_CORPUS_FULL=1. */
const RUN = CORPUS.filter((entry) => FULL || entry.fullOnly === undefined);

const folders: { remove(): void }[] = [];
afterAll(() => {
  for (const folder of folders) folder.remove();
});

/** The file the docs are built from: the published one, or its fixed sample of operations (codegen's corpus test picks the same). */
function specFile(entry: Entry, folder: ReturnType<typeof sampleFolder>): string {
  const path =
    entry.tool === undefined
      ? corpusFile(entry.file)
      : join(ensureTool(entry.tool), "node_modules", entry.file);
  if (entry.sample === undefined && entry.leftOut === undefined) return path;
  const raw = JSON.parse(readFileSync(path, "utf8")) as JsonObject;
  const kept = operationEntries(raw).filter((op) => entry.leftOut?.[`${op.method} ${op.path}`] === undefined);
  // The table's operations without samples are always in, so that each run checks their notes.
  const keep = [
    ...pickFixed(kept, entry.sample).map((op) => `${op.method} ${op.path}`),
    ...Object.keys(entry.skipped),
  ];
  return folder.write("sampled.json", JSON.stringify(subsetDocument(raw, new Set(keep))));
}

/**
 * The file the client is generated from, for the TypeScript samples to type-check against: the
 * docs' file without the operations the table lists without samples. They have no sample to
 * check, and some cannot have a client method (codegen refuses a path whose parameter nobody
 * declares, as Directus's /comments/{id}).
 */
function clientSpecFile(entry: Entry, file: string, folder: ReturnType<typeof sampleFolder>): string {
  const without = new Set(Object.keys(entry.skipped));
  if (without.size === 0) return file;
  const raw = JSON.parse(readFileSync(file, "utf8")) as JsonObject;
  const keep = operationEntries(raw)
    .map((op) => `${op.method} ${op.path}`)
    .filter((key) => !without.has(key));
  return folder.write("client.json", JSON.stringify(subsetDocument(raw, new Set(keep))));
}

function explain(what: string, result: ProcessResult): string {
  return `${what} exited ${result.code}\n--- stdout\n${result.stdout.slice(-3000)}\n--- stderr\n${result.stderr.slice(-3000)}`;
}

/**
 * Whether a sample did its job on Prism, from Prism's own log of the request: the request passed
 * Prism's validation of it (security, parameters, body), and the sample exited 0 exactly when the
 * answer was a success (an operation that declares error answers only gets one from the mock).
 */
function verdict(log: string, code: number | null): string | undefined {
  const refused = log.split("\n").filter((line) => line.includes("\u2716"));
  if (!log.includes("passed the validation rules") || refused.length > 0) {
    return `Prism refused the request: ${refused.map((line) => line.replace(/^.*\u2716\s*error\s*/, "")).join("; ")}`;
  }
  const status = Number(/> Responding with "(\d+)"/.exec(log)?.[1]);
  const success = status >= 200 && status < 300;
  if (success !== (code === 0)) return `Prism answered ${status} and the sample exited ${code}`;
  return undefined;
}

/** Every credential a sample may read, as a reader sets them (Prism checks that they are sent). */
const CREDENTIALS = {
  API_KEY: "corpus-key",
  API_SECRET: "corpus-secret",
  ACCESS_TOKEN: "corpus-token",
  API_USERNAME: "corpus-user",
  API_PASSWORD: "corpus-pw",
  API_CREDENTIAL: "corpus-credential",
};

/** The variables the samples of a page read: BASE_URL and those of its code-samples section, with values. */
function environmentOf(description: string, baseUrl: string): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", BASE_URL: baseUrl };
  for (const [, name] of description.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) {
    if (name === undefined || name === "BASE_URL") continue;
    const base = Object.keys(CREDENTIALS).find((known) => name === known || name.startsWith(`${known}_`));
    if (base !== undefined) env[name] = CREDENTIALS[base as keyof typeof CREDENTIALS];
  }
  return env;
}

describe("marketapi-docs build on the corpus of public specs", () => {
  it.each(RUN)("$name: builds, every sample parses and type-checks, and runs on Prism", async (entry) => {
    const folder = sampleFolder();
    folders.push(folder);
    const file = specFile(entry, folder);
    const built = await runProcess(
      process.execPath,
      [
        DOCS_BIN,
        "build",
        "--spec",
        file,
        "--out",
        folder.path("site"),
        "--samples",
        "curl,python,typescript",
      ],
      { PATH: process.env.PATH ?? "" },
    );
    expect(built.code, explain("marketapi-docs build", built)).toBe(0);
    expect(built.stderr).toBe("");

    const page = JSON.parse(readFileSync(folder.path("site/api.openapi.json"), "utf8")) as JsonObject;
    const operations = operationEntries(page).map(({ method, path, operation }) => ({
      key: `${method} ${path}`,
      /** How the command's notes name it: its operationId, else its method and path. */
      named: typeof operation.operationId === "string" ? operation.operationId : `${method} ${path}`,
      samples: (operation["x-codeSamples"] ?? []) as { label: string; source: string }[],
    }));
    expect(operations.length).toBeGreaterThan(0);
    // Skipped: exactly the table's operations, each with a note naming why.
    const without = operations.filter((op) => op.samples.length === 0).map((op) => op.key);
    // The table's operations that are in the page (a sample of a large spec may leave some out).
    const present = new Set(operations.map((op) => op.key));
    expect(without.sort()).toEqual(
      Object.keys(entry.skipped)
        .filter((key) => present.has(key))
        .sort(),
    );
    const notes = built.stdout.split("\n").filter((line) => line.includes("note: no code sample"));
    expect(notes).toHaveLength(without.length);
    for (const [key, why] of Object.entries(entry.skipped).filter(([key]) => present.has(key))) {
      const named = operations.find((op) => op.key === key)?.named ?? key;
      expect(
        notes.find((line) => line.includes(`sample for ${named}:`)),
        key,
      ).toMatch(why);
    }
    const written = operations.filter((op) => op.samples.length > 0);
    for (const op of written)
      expect(
        op.samples.map((s) => s.label),
        op.key,
      ).toEqual(["curl", "TypeScript", "Python"]);

    // Each sample in a file of its own, named after its operation's position.
    const source = (index: number, label: string) =>
      written[index]!.samples.find((s) => s.label === label)?.source ?? "";
    const shells = written.map((_, i) => folder.write(`op${i}.sh`, source(i, "curl")));
    const pythons = written.map((_, i) => folder.write(`op${i}.py`, source(i, "Python")));
    const env = { PATH: process.env.PATH ?? "" };
    for (const [i, shell] of shells.entries()) {
      const parsed = await runProcess("bash", ["-n", shell], env);
      expect(parsed.stderr, `${written[i]!.key} curl`).toBe("");
      expect(parsed.code).toBe(0);
    }
    const python = await runProcess(
      pythonInterpreter(),
      ["-c", "import ast, sys\nfor f in sys.argv[1:]: ast.parse(open(f).read(), f)", ...pythons],
      env,
    );
    expect(python.stderr).toBe("");
    expect(python.code).toBe(0);

    const project = typeScriptProject(new Map(written.map((_, i) => [`op${i}`, source(i, "TypeScript")])));
    folders.push(project);
    mkdirSync(join(project.dir, "src", "generated"));
    const generated = await runProcess(
      process.execPath,
      [
        CODEGEN_BIN,
        "--spec",
        clientSpecFile(entry, file, folder),
        "--out",
        join(project.dir, "src", "generated"),
        "--client",
      ],
      env,
    );
    expect(generated.code, explain("marketapi-codegen --client", generated)).toBe(0);
    const checked = await project.typeCheck();
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.code).toBe(0);

    if (entry.noMock) return;
    const prism = await startPrism(file);
    try {
      const description = String((page.info as JsonObject).description ?? "");
      const runEnv = environmentOf(description, prism.url);
      const runs: [string, string, string[]][] = [
        ["curl", "bash", shells],
        ["Python", pythonInterpreter(), pythons],
        ["TypeScript", process.execPath, written.map((_, i) => project.compiled(`op${i}`))],
      ];
      const failed: string[] = [];
      for (const [label, program, paths] of runs) {
        for (const [i, path] of paths.entries()) {
          const from = prism.logged();
          const ran = await runProcess(program, [path], runEnv);
          const log = await prism.answered(from);
          const fault = verdict(log, ran.code);
          if (fault !== undefined) {
            const said = (ran.stderr || ran.stdout).trim().split("\n").slice(-2).join(" | ");
            failed.push(`${written[i]!.key} ${label}: ${fault} (${said.slice(0, 200)})`);
          }
        }
      }
      expect(failed.join("\n\n")).toBe("");
    } finally {
      await prism.stop();
    }
  });
});
