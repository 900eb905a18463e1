#!/usr/bin/env node
// marketapi-codegen: generates the typed client and/or the precompiled validators from an OpenAPI
// 3.1 spec into a folder. Exit codes: 0 done (or up to date), 1 --check found differences,
// 2 usage error or a spec the generators cannot use (nothing is written then).
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type GeneratorName, generate } from "./generate.js";
import { DEFAULT_SPEC } from "./spec/load-spec.js";
import { SpecError } from "./spec/spec-error.js";
import { diffOutput, writeOutput } from "./write-files.js";

const USAGE = `Usage: marketapi-codegen --out DIR [--client] [--validators] [--spec PATH_OR_PACKAGE] [--operations a,b,c] [--check]

  --out DIR             folder that receives the generated files (created if missing)
  --client              generate the typed client (types, operation table, per-operation methods)
  --validators          generate the precompiled validators
                        (neither flag: both)
  --spec PATH|PACKAGE   OpenAPI 3.1 file (YAML or JSON) or a package exporting openapi.json
                        (default: ${DEFAULT_SPEC})
  --operations a,b,c    only these operationIds
  --check               write nothing; exit 1 when DIR differs from what would be generated
  --help                this text`;

class UsageError extends Error {}

interface CliOptions {
  out: string;
  spec?: string;
  generators: GeneratorName[];
  operations?: string[];
  check: boolean;
}

function parseCli(argv: string[]): CliOptions | "help" {
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
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) return "help";
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
  return {
    out: values.out,
    spec: typeof values.spec === "string" ? values.spec : undefined,
    generators: generators.length > 0 ? generators : ["client", "validators"],
    operations,
    check: values.check === true,
  };
}

/** The command written into headers: the same flags, minus --check, in a fixed order. */
function regenerateCommand(options: CliOptions): string {
  const parts = ["marketapi-codegen"];
  if (options.spec) parts.push("--spec", options.spec);
  parts.push("--out", options.out);
  for (const g of options.generators) parts.push(`--${g}`);
  if (options.operations) parts.push("--operations", options.operations.join(","));
  return parts.join(" ");
}

export async function main(argv: string[]): Promise<number> {
  let options: CliOptions | "help";
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
  const command = regenerateCommand(options);
  try {
    const files = await generate({
      spec: options.spec,
      generators: options.generators,
      operations: options.operations,
      command,
    });
    const outDir = resolve(options.out);
    if (options.check) {
      const differences = diffOutput(outDir, files);
      if (differences.length === 0) {
        console.log(`marketapi-codegen: ${options.out} is up to date (${files.length} files)`);
        return 0;
      }
      for (const d of differences) console.error(`  ${d.change.padEnd(7)} ${options.out}/${d.path}`);
      console.error(
        `marketapi-codegen: ${options.out} is out of date; regenerate it with:\n  npx ${command}`,
      );
      return 1;
    }
    const written = writeOutput(outDir, files);
    console.log(`marketapi-codegen: ${files.length} files in ${options.out} (${written.length} changed)`);
    return 0;
  } catch (error) {
    if (error instanceof SpecError) {
      console.error(`marketapi-codegen: ${error.message}\nNothing was written.`);
      return 2;
    }
    console.error(`marketapi-codegen: ${(error as Error).stack ?? error}\nNothing was written.`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
