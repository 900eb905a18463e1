#!/usr/bin/env node
// marketapi-codegen: generates the typed client and/or the precompiled validators from an OpenAPI
// 3.1 spec into a folder. Exit codes (@marketapi/command's table): 0 done (or up to date), 1 a
// spec the generators cannot use or --check found differences, 2 usage error, 3 the output could
// not be written or the generator failed. Nothing is written unless everything was generated.
import { resolve } from "node:path";
import { EXIT } from "@marketapi/command";
import { SpecError } from "@marketapi/spec-loader";
import {
  type CliOptions,
  parseCli,
  regenerateCommand,
  SHORT_USAGE,
  USAGE,
  UsageError,
} from "./command/options.js";
import type { GeneratedFile } from "./generated-file.js";
import { UnknownOperationError } from "./spec-input/select-operations.js";

// The generators are loaded only once the arguments are good: they bring TypeScript,
// openapi-typescript, Redocly and ajv, which take most of a second to load; --help and usage
// errors should not wait.

export async function main(argv: string[]): Promise<number> {
  let options: CliOptions | "help" | "version";
  try {
    options = parseCli(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`marketapi-codegen: ${error.message}${error.withUsage ? `\n${SHORT_USAGE}` : ""}`);
    return EXIT.usage;
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
      endpoint: options.endpoint,
      strictSchemas: options.strictSchemas,
      command,
      maxInputBytes: options.maxInputBytes,
      maxOperations: options.maxOperations,
    });
  } catch (error) {
    if (error instanceof UnknownOperationError) {
      console.error(`marketapi-codegen: ${error.message}`);
      console.error(`marketapi-codegen: ${nothingWritten(options)}`);
      return EXIT.usage;
    }
    if (error instanceof SpecError) {
      for (const fault of error.all()) console.error(`marketapi-codegen: ${fault.message}`);
      console.error(`marketapi-codegen: ${nothingWritten(options)}`);
      return EXIT.fault;
    }
    console.error(`marketapi-codegen: the generator failed: ${(error as Error).stack ?? error}`);
    console.error(`marketapi-codegen: ${nothingWritten(options)}`);
    return EXIT.failed;
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
    return EXIT.fault;
  }
  try {
    const written = writeOutput(outDir, files);
    console.log(`marketapi-codegen: ${files.length} files in ${options.out} (${written.length} changed)`);
    return 0;
  } catch (error) {
    console.error(`marketapi-codegen: could not write ${options.out}: ${(error as Error).message}`);
    console.error(`marketapi-codegen: ${options.out} was left as it was.`);
    return EXIT.failed;
  }
}

function nothingWritten(options: CliOptions): string {
  return options.check ? "nothing was compared." : `nothing was written; ${options.out} is untouched.`;
}

process.exitCode = await main(process.argv.slice(2));
