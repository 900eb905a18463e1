// The options of marketapi-codegen: from the command line, from a config file
// (`marketapi-codegen.config.json`, or the file of --config) or from the "marketapi-codegen" key of
// the working folder's package.json, so that `generate` and `--check` read the same ones. Command
// line flags override the config's. The options are normalised (paths, order, duplicates) before
// they are written into the generated headers, so the spelling of a command does not change output.
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { UsageError as CommandUsageError, didYouMean, parseCommandLine } from "@marketapi/command";
import { InputError, maxInputBytes, parseJsonText, readTextFile } from "@marketapi/spec-loader/input";
import type { GeneratorName } from "../generate.js";

export const DEFAULT_SPEC = "@marketapi/spec";
export const CONFIG_FILE = "marketapi-codegen.config.json";
export const PACKAGE_KEY = "marketapi-codegen";

export const SHORT_USAGE = `Usage: marketapi-codegen --out DIR [--client] [--validators] [--spec PATH_OR_PACKAGE] [--operations a,b,c] [--check]
Options can also live in ${CONFIG_FILE} or in package.json under "${PACKAGE_KEY}". All options: marketapi-codegen --help`;

export const USAGE = `Usage: marketapi-codegen --out DIR [--client] [--validators] [--spec PATH_OR_PACKAGE] [--operations a,b,c] [--check]

  --out DIR             folder that receives the generated files (created if missing)
  --client              generate the typed client (types, operation table, per-operation methods,
                        and client.gen.ts for createApiClient of @marketapi/client)
  --validators          generate the precompiled validators
                        (neither flag: both)
  --spec PATH|PACKAGE   OpenAPI 3.1 file (YAML or JSON) or a package exporting openapi.json
                        (default: ${DEFAULT_SPEC})
  --operations a,b,c    only these operationIds
  --endpoint            also the validators of marketapi's FHIR Endpoint record
                        (always with the default spec)
  --strict-schemas      compile the spec's schemas under ajv's strict mode and our schema rules
                        (always with the default spec; otherwise JSON Schema 2020-12 as written)
  --check               write nothing; exit 1 when DIR differs from what would be generated
  --config FILE         read the options from FILE (JSON); by default from ./${CONFIG_FILE},
                        else from the "${PACKAGE_KEY}" key of ./package.json, when present;
                        flags given on the command line override the file's
  --max-input-bytes N   refuse a spec larger than N bytes (default 16 MiB, or the
                        MARKETAPI_MAX_INPUT_BYTES environment variable)
  --max-operations N    refuse to generate more than N operations in one run (default 2000)
  --version             the generator's version
  --help                this text

A config holds the same options: { "spec": "...", "out": "src/generated", "client": true,
"validators": true, "operations": ["ping", "order_book"] }; paths in it are relative to its folder.

Exit codes (the same for every marketapi command): 0 written or up to date; 1 the spec is at
fault (file, line and column; nothing written) or --check found differences; 2 usage error;
3 the output could not be written (left as it was) or the generator failed.`;

export class UsageError extends Error {
  constructor(
    message: string,
    /** Show the short usage after the message. */
    readonly withUsage = true,
  ) {
    super(message);
  }
}

export interface CliOptions {
  out: string;
  spec?: string;
  generators: GeneratorName[];
  operations?: string[];
  /** Also the Endpoint record's validators (the default spec always has them). */
  endpoint: boolean;
  /** ajv's strict mode and our schema rules (the default spec always has them). */
  strictSchemas: boolean;
  check: boolean;
  maxInputBytes?: number;
  maxOperations?: number;
  /** Where options came from besides the command line (a config file's name), for messages. */
  config?: string;
}

const FLAGS = {
  out: { type: "string" },
  spec: { type: "string" },
  client: { type: "boolean" },
  validators: { type: "boolean" },
  operations: { type: "string" },
  endpoint: { type: "boolean" },
  "strict-schemas": { type: "boolean" },
  check: { type: "boolean" },
  config: { type: "string" },
  "max-input-bytes": { type: "string" },
  "max-operations": { type: "string" },
  help: { type: "boolean" },
  version: { type: "boolean" },
} as const;

/** The options a config may hold, and their types. */
const CONFIG_KEYS: Record<string, "string" | "boolean" | "operations"> = {
  out: "string",
  spec: "string",
  client: "boolean",
  validators: "boolean",
  operations: "operations",
  endpoint: "boolean",
  strictSchemas: "boolean",
};

interface RawOptions {
  out?: string;
  spec?: string;
  client?: boolean;
  validators?: boolean;
  operations?: string[];
  endpoint?: boolean;
  strictSchemas?: boolean;
}

export function parseCli(argv: string[], cwd = process.cwd()): CliOptions | "help" | "version" {
  const values = parseFlags(argv);
  if (values.help) return "help";
  if (values.version) return "version";
  const fromConfig = readConfig(cwd, values.config as string | undefined);
  const flags: RawOptions = {
    out: values.out as string | undefined,
    spec: values.spec as string | undefined,
    client: values.client as boolean | undefined,
    validators: values.validators as boolean | undefined,
    operations: typeof values.operations === "string" ? splitList(values.operations) : undefined,
    endpoint: values.endpoint as boolean | undefined,
    strictSchemas: values["strict-schemas"] as boolean | undefined,
  };
  for (const name of ["out", "spec"] as const) {
    if (flags[name] === "") throw new UsageError(`--${name} needs a value`);
  }
  const chosenOnCommandLine = flags.client !== undefined || flags.validators !== undefined;
  const config = fromConfig?.options ?? {};
  const merged: RawOptions = {
    out: flags.out ?? config.out,
    spec: flags.spec ?? config.spec,
    client: chosenOnCommandLine ? flags.client : config.client,
    validators: chosenOnCommandLine ? flags.validators : config.validators,
    operations: flags.operations ?? config.operations,
    endpoint: flags.endpoint ?? config.endpoint,
    strictSchemas: flags.strictSchemas ?? config.strictSchemas,
  };
  if (merged.out === undefined) {
    throw new UsageError(
      `--out DIR is required (on the command line, in ${CONFIG_FILE} or in package.json under "${PACKAGE_KEY}")`,
    );
  }
  if (merged.operations && merged.operations.length === 0) {
    throw new UsageError("--operations needs at least one operationId");
  }
  const generators: GeneratorName[] = [];
  if (merged.client) generators.push("client");
  if (merged.validators) generators.push("validators");
  const spec = normalSpec(merged.spec, cwd);
  return {
    out: normalPath(merged.out, cwd),
    spec,
    endpoint: spec === undefined || merged.endpoint === true,
    strictSchemas: spec === undefined || merged.strictSchemas === true,
    generators: generators.length > 0 ? generators : ["client", "validators"],
    operations: merged.operations ? [...new Set(merged.operations)].sort(codeUnitOrder) : undefined,
    check: values.check === true,
    maxInputBytes: limit("--max-input-bytes", values["max-input-bytes"] as string | undefined),
    maxOperations: wholeNumber("--max-operations", values["max-operations"] as string | undefined),
    config: fromConfig?.origin,
  };
}

function parseFlags(argv: string[]): Record<string, string | boolean | undefined> {
  try {
    return parseCommandLine(argv, FLAGS, { allowPositionals: false }).values;
  } catch (error) {
    if (!(error instanceof CommandUsageError)) throw error;
    const { message } = error;
    throw new UsageError(
      message.startsWith("unexpected argument") ? `${message}: every option is a --flag` : message,
    );
  }
}

function splitList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

const codeUnitOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A path as headers and messages show it: relative to the working folder, with "/" separators and
 * without "./" or a trailing "/", so that the generated files are the same on every machine and
 * however the path was spelled, and the command in them can be rerun.
 */
function normalPath(path: string, cwd: string): string {
  const relativePath = isAbsolute(path) ? relative(cwd, path) || "." : path;
  return posix.normalize(relativePath.split(sep).join("/")).replace(/(.)\/$/, "$1");
}

/** `--spec`: a file path (normalised) or a package name (kept); the default package is left out. */
function normalSpec(spec: string | undefined, cwd: string): string | undefined {
  if (spec === undefined || spec === DEFAULT_SPEC) return undefined;
  return isAbsolute(spec) || existsSync(resolve(cwd, spec)) ? normalPath(spec, cwd) : spec;
}

function limit(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  try {
    return maxInputBytes(value);
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message.replace(/^[^:]*: /, "")}`);
  }
}

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) <= 0) {
    throw new UsageError(`${flag}: expected a positive whole number, found ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** The options of the config that applies (--config, else the default file, else package.json), if any. */
function readConfig(
  cwd: string,
  explicit: string | undefined,
): { origin: string; options: RawOptions } | undefined {
  if (explicit !== undefined)
    return { origin: explicit, options: configFile(resolve(cwd, explicit), explicit, cwd) };
  const file = join(cwd, CONFIG_FILE);
  if (existsSync(file)) return { origin: CONFIG_FILE, options: configFile(file, CONFIG_FILE, cwd) };
  const manifest = join(cwd, "package.json");
  if (!existsSync(manifest)) return undefined;
  const value = readJson(manifest, "package.json");
  if (typeof value !== "object" || value === null || !(PACKAGE_KEY in value)) return undefined;
  const origin = `package.json#/${PACKAGE_KEY}`;
  return {
    origin,
    options: configOptions((value as Record<string, unknown>)[PACKAGE_KEY], origin, cwd, cwd),
  };
}

function configFile(file: string, origin: string, cwd: string): RawOptions {
  return configOptions(readJson(file, origin), origin, dirname(file), cwd);
}

function readJson(file: string, origin: string): unknown {
  try {
    return parseJsonText(readTextFile(file, { source: origin, kind: "JSON file" }), origin);
  } catch (error) {
    if (error instanceof InputError) throw new UsageError(error.message, false);
    throw new UsageError(
      `${origin}: expected JSON, found a syntax error: ${(error as Error).message}`,
      false,
    );
  }
}

/** Checks a config's value; its paths become relative to the working folder. */
function configOptions(value: unknown, origin: string, base: string, cwd: string): RawOptions {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${origin}: expected an object of options, found ${JSON.stringify(value)}`, false);
  }
  const options: RawOptions = {};
  for (const [key, entry] of Object.entries(value)) {
    const type = CONFIG_KEYS[key];
    if (!type) {
      throw new UsageError(
        `${origin}: unknown option "${key}"${didYouMean(key, Object.keys(CONFIG_KEYS), (s) => `"${s}"`)} (options: ${Object.keys(CONFIG_KEYS).join(", ")})`,
        false,
      );
    }
    const wrong = (expected: string) =>
      new UsageError(`${origin}#/${key}: expected ${expected}, found ${JSON.stringify(entry)}`, false);
    if (type === "operations") {
      const list = typeof entry === "string" ? splitList(entry) : entry;
      if (!Array.isArray(list) || !list.every((item) => typeof item === "string" && item !== "")) {
        throw wrong("an array of operationIds");
      }
      options.operations = list;
    } else if (typeof entry !== type || entry === "") {
      throw wrong(type === "string" ? "a non-empty string" : "true or false");
    } else if (key === "out" || (key === "spec" && existsSync(resolve(base, entry as string)))) {
      options[key] = relative(cwd, resolve(base, entry as string)) || ".";
    } else (options as Record<string, unknown>)[key] = entry;
  }
  return options;
}

/** The command written into headers: the normalised options, minus --check, in a fixed order. */
export function regenerateCommand(options: CliOptions): string {
  const parts = ["marketapi-codegen"];
  if (options.spec) parts.push("--spec", options.spec);
  parts.push("--out", options.out);
  for (const g of options.generators) parts.push(`--${g}`);
  if (options.operations) parts.push("--operations", options.operations.join(","));
  // The default spec always has both; a fork's command names them when it asked for them.
  if (options.spec && options.endpoint) parts.push("--endpoint");
  if (options.spec && options.strictSchemas) parts.push("--strict-schemas");
  return parts.map(shellWord).join(" ");
}

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
