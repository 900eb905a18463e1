#!/usr/bin/env node
// marketapi-codegen: generates the typed client and/or the precompiled validators from an OpenAPI
// 3.1 spec into a folder. Exit codes: 0 done (or up to date), 1 --check found differences,
// 2 usage error or a spec the generators cannot use, 3 the output could not be written or the
// generator failed. Nothing is written unless everything was generated; see writeOutput.
import { existsSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { SpecError } from "@marketapi/spec-loader";
import type { GeneratorName } from "./generate.js";
import type { GeneratedFile } from "./generated-file.js";

// Loaded only once the arguments are good: the generators bring TypeScript, openapi-typescript,
// Redocly and ajv, which take most of a second to load; --help and usage errors should not wait.
const DEFAULT_SPEC = "@marketapi/spec";

const USAGE = `Usage: marketapi-codegen --out DIR [--client] [--validators] [--spec PATH_OR_PACKAGE] [--operations a,b,c] [--check]

  --out DIR             folder that receives the generated files (created if missing)
  --client              generate the typed client (types, operation table, per-operation methods,
                        and client.gen.ts for createApiClient of @marketapi/client)
  --validators          generate the precompiled validators
                        (neither flag: both)
  --spec PATH|PACKAGE   OpenAPI 3.1 file (YAML or JSON) or a package exporting openapi.json
                        (default: ${DEFAULT_SPEC})
  --operations a,b,c    only these operationIds
  --check               write nothing; exit 1 when DIR differs from what would be generated
  --version             the generator's version
  --help                this text

Exit codes: 0 written or up to date, 1 --check found differences, 2 bad usage or a spec that is
not usable OpenAPI 3.1 (nothing written), 3 the output could not be written (left as it was).`;

class UsageError extends Error {}

interface CliOptions {
  out: string;
  spec?: string;
  generators: GeneratorName[];
  operations?: string[];
  check: boolean;
}

function parseCli(argv: string[]): CliOptions | "help" | "version" {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        out: { type: "string" },
        spec: { type: "string" },
        client: { type: "boolean", default: false },
        validators: { type: "boolean", default: false },
        operations: { type: "string" },
        check: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
        version: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) return "help";
  if (values.version) return "version";
  if (typeof values.out !== "string" || values.out === "") throw new UsageError("--out DIR is required");
  const generators: GeneratorName[] = [];
  if (values.client) generators.push("client");
  if (values.validators) generators.push("validators");
  const operations =
    typeof values.operations === "string"
      ? values.operations
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined;
  if (operations && operations.length === 0)
    throw new UsageError("--operations needs at least one operationId");
  if (typeof values.spec === "string" && values.spec === "") throw new UsageError("--spec needs a value");
  return {
    out: portablePath(values.out),
    spec: typeof values.spec === "string" ? portableSpec(values.spec) : undefined,
    generators: generators.length > 0 ? generators : ["client", "validators"],
    operations,
    check: values.check === true,
  };
}

/**
 * A path as headers and messages show it: relative to the working folder, with "/" separators, so
 * that the generated files are the same on every machine and the command in them can be rerun.
 */
function portablePath(path: string): string {
  const relativePath = isAbsolute(path) ? relative(process.cwd(), path) || "." : path;
  return relativePath.split(sep).join("/");
}

/** `--spec`: a file path (made portable) or a package name (kept). */
function portableSpec(spec: string): string {
  return isAbsolute(spec) || existsSync(spec) ? portablePath(spec) : spec;
}

/** The command written into headers: the same flags, minus --check, in a fixed order. */
function regenerateCommand(options: CliOptions): string {
  const parts = ["marketapi-codegen"];
  if (options.spec) parts.push("--spec", options.spec);
  parts.push("--out", options.out);
  for (const g of options.generators) parts.push(`--${g}`);
  if (options.operations) parts.push("--operations", options.operations.join(","));
  return parts.map(shellWord).join(" ");
}

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export async function main(argv: string[]): Promise<number> {
  let options: CliOptions | "help" | "version";
  try {
    options = parseCli(argv);
  } catch (error) {
    console.error(`marketapi-codegen: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === "help") {
    console.log(USAGE);
    return 0;
  }
  if (options === "version") {
    const { CODEGEN_VERSION } = await import("./generated-file.js");
    console.log(CODEGEN_VERSION);
    return 0;
  }
  const command = regenerateCommand(options);
  const { generate } = await import("./generate.js");
  const { diffOutput, writeOutput } = await import("./write-files.js");
  let files: GeneratedFile[];
  try {
    files = await generate({
      spec: options.spec,
      generators: options.generators,
      operations: options.operations,
      command,
    });
  } catch (error) {
    if (error instanceof SpecError) {
      for (const fault of error.all()) console.error(`marketapi-codegen: ${fault.message}`);
      console.error(`marketapi-codegen: ${nothingWritten(options)}`);
      return 2;
    }
    console.error(`marketapi-codegen: the generator failed: ${(error as Error).stack ?? error}`);
    console.error(`marketapi-codegen: ${nothingWritten(options)}`);
    return 3;
  }
  const outDir = resolve(options.out);
  if (options.check) {
    const differences = diffOutput(outDir, files);
    if (differences.length === 0) {
      console.log(`marketapi-codegen: ${options.out} is up to date (${files.length} files)`);
      return 0;
    }
    for (const d of differences) console.error(`  ${d.change.padEnd(7)} ${options.out}/${d.path}`);
    console.error(
      `marketapi-codegen: ${options.out} is out of date (${differences.length} of its generated files differ); regenerate it with:\n  npx ${command}`,
    );
    return 1;
  }
  try {
    const written = writeOutput(outDir, files);
    console.log(`marketapi-codegen: ${files.length} files in ${options.out} (${written.length} changed)`);
    return 0;
  } catch (error) {
    console.error(`marketapi-codegen: could not write ${options.out}: ${(error as Error).message}`);
    console.error(`marketapi-codegen: ${options.out} was left as it was.`);
    return 3;
  }
}

function nothingWritten(options: CliOptions): string {
  return options.check ? "nothing was compared." : `nothing was written; ${options.out} is untouched.`;
}

process.exitCode = await main(process.argv.slice(2));
