import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describeValue, pointerOf, SpecError } from "@marketapi/spec-loader";
import { fileHeader, type GeneratedFile, type GeneratorContext } from "../generated-file.js";
import type { JsonSchema, Operation, ResponseVariants, SourcedSpecModel } from "../spec-input/spec-model.js";
import { type HintTable, hintsOf } from "./message-hints.js";
import { cleanSchema } from "./openapi-keywords.js";
import { buildRequestSchema, type ParameterInfo, type SigningEnvelope } from "./request-schemas.js";
import { planResponses, type ResponseTarget } from "./response-schemas.js";
import { runtimeSource } from "./runtime-source.js";
import { CompileError, type CompileOptions, compileStandalone, type StandaloneExport } from "./standalone.js";
import { typesOfSchema } from "./typescript-types.js";

export interface ValidatorsOptions {
  /**
   * The Endpoint record's JSON Schema (2020-12, with an `$id`). The Endpoint record is part of
   * marketapi, not of the trading API, so `--spec` does not change it: by default it is the
   * schema @marketapi/spec ships (`@marketapi/spec/endpoint.schema.json`).
   */
  endpointSchema?: Record<string, unknown>;
}

/** The `$id` of the document that holds the trading API's schemas while they are compiled. */
const API_ID = "https://marketapi.dev/schemas/api-validators.schema.json";
const RUNTIME = "./validators-runtime.gen.js";
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * marketapi's own schemas (the trading API's and the Endpoint record's): our strict rules, and
 * ajv's inlining of every reference that refers to nothing else, the fastest code, with which the
 * throughput @marketapi/validators states is measured.
 */
const OWN_COMPILATION: CompileOptions = { strict: true, inlineRefs: true };
/**
 * Another spec's references are written in place only when they have at most this many keywords,
 * and called otherwise: on Stripe's document the code is 15% smaller (8.7 MB instead of 10.2), and
 * validates its objects no slower (bench/big-spec.bench.ts).
 */
const SMALL_INLINE_REFS = 4;

/**
 * Generates the precompiled validators: ES modules of plain functions compiled by ajv (Ajv2020,
 * ajv-formats; strict mode and our schema rules with `context.strictSchemas`, otherwise JSON
 * Schema 2020-12 as written: unknown keywords are annotations) that import nothing but `validators-runtime.gen.ts`, so neither ajv nor
 * `require`, `new Function` or `eval` is needed where they run. Files:
 *
 * - `validators-runtime.gen.ts`: the helpers the code calls and the types of the tables;
 * - `endpoint-validator.gen.ts` (compiled code) and `endpoint.gen.ts` (its TypeScript types and hints),
 *   with marketapi's own spec or when asked (`context.endpoint`, or an `endpointSchema`);
 * - `validators-code.gen.ts` (compiled code) and `validators.gen.ts`: per operation, the parameters'
 *   validator, how each parameter is written as text, and one validator per response status and
 *   per `x-response-variant-by` variant; one validator per named schema.
 *
 * Pure: the same model (and Endpoint schema) always gives byte-identical files.
 */
export function generateValidators(
  model: SourcedSpecModel,
  context: GeneratorContext,
  options: ValidatorsOptions = {},
): GeneratedFile[] {
  const header = fileHeader("validators", model.source, context);
  const endpoint = options.endpointSchema !== undefined || context.endpoint === true;
  const strict = context.strictSchemas === true;
  return [
    { path: "validators-runtime.gen.ts", contents: `${header}${runtimeSource()}` },
    ...(endpoint ? endpointFiles(options.endpointSchema ?? defaultEndpointSchema(), header) : []),
    ...apiFiles(model, header, strict, context.ownSpec === true),
  ];
}

let cachedEndpointSchema: string | undefined;

/** The Endpoint schema @marketapi/spec ships next to openapi.json. */
function defaultEndpointSchema(): Record<string, unknown> {
  if (cachedEndpointSchema === undefined) {
    const path = createRequire(import.meta.url).resolve("@marketapi/spec/endpoint.schema.json");
    cachedEndpointSchema = readFileSync(path, "utf8");
  }
  return JSON.parse(cachedEndpointSchema);
}

function endpointFiles(schema: Record<string, unknown>, header: string): GeneratedFile[] {
  const source = typeof schema.$id === "string" ? schema.$id : "the Endpoint schema";
  if (typeof schema.$id !== "string") {
    throw new SpecError(source, "/$id", "an $id on the Endpoint schema", describeValue(schema.$id));
  }
  const clean = cleanSchema(schema as JsonSchema, {
    source,
    pointer: "",
    root: true,
    rewriteRef: (ref, pointer) => {
      if (!ref.startsWith("#/$defs/"))
        throw new SpecError(source, pointer, "a #/$defs/... reference", describeValue(ref));
      return ref;
    },
  }) as Record<string, unknown>;
  const compiled = strictly(
    source,
    (def) => (def === undefined ? "" : pointerOf("$defs", def)),
    () => compileStandalone(clean, [{ name: "validateEndpoint", pointer: "" }], RUNTIME, OWN_COMPILATION),
  );
  const title = typeof schema.title === "string" ? schema.title : "Endpoint";
  const hints = hintsOf(schema as JsonSchema, "#", (segments) =>
    segments.length === 0
      ? title
      : segments.length === 2 && segments[0] === "$defs"
        ? String(segments[1])
        : undefined,
  );
  const typed = [
    `import type { CompiledSchema, SchemaHint } from "${RUNTIME}";`,
    `import { validateEndpoint } from "./endpoint-validator.gen.js";`,
    "",
    `/** Error-message hints of the Endpoint schema, by schema path. */`,
    `const hints: Readonly<Record<string, SchemaHint>> = ${JSON.stringify(hints, null, 2)};`,
    "",
    `/** The compiled Endpoint schema (${schema.$id}). */`,
    `export const endpointSchema: CompiledSchema = { validate: validateEndpoint, hints, label: "the ${title}" };`,
    "",
    typesOfSchema(schema, title),
  ].join("\n");
  return [
    { path: "endpoint-validator.gen.ts", contents: `${header}// @ts-nocheck\n${compiled.code}` },
    { path: "endpoint.gen.ts", contents: `${header}${typed}` },
  ];
}

interface OperationPlan {
  operationId: string;
  method: string;
  path: string;
  request: string;
  parameters: ParameterInfo[];
  signing?: SigningEnvelope;
  responses: { status: string; exportName: string | null }[];
  variants?: ResponseVariants;
}

/**
 * The JSON Schema document the trading API's schemas are compiled from: the named schemas under
 * `$defs/<name>`, each operation's parameters under `$defs/<operationId>.request` and inline
 * response bodies under `$defs/<operationId>.response.<status>`, with the hints of their messages
 * and the exports of the compiled module.
 */
class ApiDocument {
  readonly defs: Record<string, JsonSchema> = {};
  readonly hints: HintTable = {};
  readonly exports: StandaloneExport[] = [];
  private readonly sources = new Map<string, string>();
  private readonly taken = new Set<string>();

  constructor(
    private readonly source: string,
    /** Our schema rules; otherwise keywords JSON Schema 2020-12 does not know are annotations. */
    readonly strict: boolean,
  ) {}

  /** A definition name made of `wanted` that a JSON Pointer carries as it is and no other definition has. */
  defName(wanted: string): string {
    const base = wanted.replace(/[^A-Za-z0-9._-]+/g, "_");
    let name = base;
    for (let i = 2; this.defs[name] !== undefined || this.reserved.has(name); i++) name = `${base}_${i}`;
    this.reserved.add(name);
    return name;
  }
  private readonly reserved = new Set<string>();

  /** Adds a schema (cleaned for ajv, `$ref`s rewritten) and its hints; `where` is its place in the spec. */
  addDef(defName: string, schema: JsonSchema, where: string, nameOfRoot?: string): void {
    if (this.defs[defName] !== undefined) {
      throw new SpecError(
        this.source,
        where,
        `a schema name other than "${defName}" (used by the validators)`,
        describeValue(defName),
      );
    }
    this.defs[defName] = cleanSchema(schema, {
      source: this.source,
      pointer: where,
      rewriteRef: componentRef(this.source),
      lenient: !this.strict,
    });
    this.sources.set(defName, where);
    const hints = hintsOf(schema, `#/$defs/${defName}`, (s) => (s.length === 0 ? nameOfRoot : undefined));
    this.addHints(hints);
  }

  addHints(hints: HintTable): void {
    for (const [key, hint] of Object.entries(hints)) this.hints[key] = { ...this.hints[key], ...hint };
  }

  /** Exports a definition from the compiled module under an identifier close to `wanted`. */
  addExport(wanted: string, defName: string): string {
    const base = /^[0-9]/.test(wanted) ? `_${wanted}` : wanted;
    let name = base.replace(/[^A-Za-z0-9_$]/g, "_");
    for (let i = 2; this.taken.has(name); i++) name = `${base.replace(/[^A-Za-z0-9_$]/g, "_")}_${i}`;
    this.taken.add(name);
    this.exports.push({ name, pointer: `/$defs/${defName}` });
    return name;
  }

  /** Where a definition came from in the spec (for SpecErrors). */
  sourceOf(defName: string | undefined): string {
    return defName === undefined ? "" : (this.sources.get(defName) ?? "");
  }
}

function apiFiles(
  model: SourcedSpecModel,
  header: string,
  strict: boolean,
  ownSpec: boolean,
): GeneratedFile[] {
  const { source } = model;
  const document = new ApiDocument(source, strict);
  const componentExports: Record<string, string> = {};
  const components: Record<string, JsonSchema> = model.document.components?.schemas ?? {};
  // Every component and operation is read before anything is thrown: all faults at once.
  const faults: SpecError[] = [];
  const collect = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof SpecError)) throw error;
      faults.push(error);
      return undefined;
    }
  };
  for (const [name, schema] of Object.entries(components)) {
    const where = pointerOf("components", "schemas", name);
    // A component that failed is "" here: what refers to it is not reported again.
    componentExports[name] = "";
    collect(() => {
      if (!COMPONENT_NAME.test(name)) {
        throw new SpecError(
          source,
          where,
          "a component name of letters, digits, '.', '-' or '_'",
          describeValue(name),
        );
      }
      document.addDef(name, schema, where, name);
      componentExports[name] = document.addExport(`schema_${name}`, name);
    });
  }
  const operations = model.operations.flatMap((operation) => {
    const plan = collect(() => planOperation(model, operation, document, componentExports));
    return plan ? [plan] : [];
  });
  const [first, ...rest] = faults;
  if (first) {
    first.others.push(...rest);
    throw first;
  }
  const compiled = strictly(
    source,
    (def) => document.sourceOf(def),
    () =>
      compileStandalone({ $id: API_ID, $defs: document.defs }, document.exports, RUNTIME, {
        strict,
        inlineRefs: ownSpec ? OWN_COMPILATION.inlineRefs : SMALL_INLINE_REFS,
      }),
    strict,
  );
  return [
    { path: "validators-code.gen.ts", contents: `${header}// @ts-nocheck\n${compiled.code}` },
    {
      path: "validators.gen.ts",
      contents: `${header}${tablesModule(model, operations, componentExports, document.hints)}`,
    },
  ];
}

/** Adds one operation's schemas to the document; what its table entry needs. */
function planOperation(
  model: SourcedSpecModel,
  operation: Operation,
  document: ApiDocument,
  componentExports: Record<string, string>,
): OperationPlan {
  const { source } = model;
  const id = operation.operationId;
  const requestDef = document.defName(`${id}.request`);
  const request = buildRequestSchema(model, operation, `#/$defs/${requestDef}`);
  // Each parameter's schema is checked where it stands in the spec, for precise SpecErrors.
  for (const [name, pointer] of Object.entries(request.sources)) {
    const schema = (request.schema.properties as Record<string, JsonSchema>)[name]!;
    cleanSchema(schema, { source, pointer, rewriteRef: componentRef(source), lenient: !document.strict });
  }
  document.addDef(requestDef, request.schema, `${operation.pointer}/parameters`);
  document.addHints(request.hints);
  const responseExport = (target: ResponseTarget, status: string): string | null => {
    if (target === null) return null;
    if ("component" in target) {
      const name = componentExports[target.component];
      if (name !== undefined) return name || null;
      throw new SpecError(
        source,
        `${operation.pointer}/responses/${status}`,
        "a $ref to a schema that exists",
        describeValue(target.component),
      );
    }
    const defName = document.defName(`${id}.response.${status}`);
    document.addDef(defName, target.inline, `${operation.pointer}/responses/${status}`);
    return document.addExport(`${id}_response_${status}`, defName);
  };
  const variants = operation.responseVariants;
  return {
    operationId: id,
    method: operation.method,
    path: operation.path,
    request: document.addExport(`${id}_request`, requestDef),
    parameters: request.parameters,
    ...(request.signing ? { signing: request.signing } : {}),
    responses: planResponses(operation).map(({ status, target }) => ({
      status,
      exportName: responseExport(target, status),
    })),
    ...(variants ? { variants } : {}),
  };
}

/**
 * Runs an ajv compilation; what ajv's strict mode rejects becomes a SpecError that points into
 * the spec (ajv names the schema by its place in the compiled document, "#/$defs/<name>/...").
 */
function strictly<T>(
  source: string,
  pointerOfDef: (def: string | undefined) => string,
  compile: () => T,
  strict = true,
): T {
  try {
    return compile();
  } catch (error) {
    if (!(error instanceof CompileError)) throw error;
    // ajv's message may name the faulty place ('at path "#/$defs/Level/items"'); otherwise the
    // export being compiled says which definition it was.
    const place = /at path "#(\/\$defs\/[^"]*)"/.exec(error.message)?.[1] ?? error.pointer;
    const [, def, rest = ""] = /^\/\$defs\/([^/]+)(\/.*)?$/.exec(place) ?? [];
    const within = def === undefined ? "" : decodeURIComponent(rest);
    throw new SpecError(
      source,
      `${pointerOfDef(def)}${within}`,
      strict ? "a schema that ajv compiles in strict mode" : "a schema that ajv compiles",
      error.message,
    );
  }
}

/** Rewrites `#/components/schemas/X...` to `#/$defs/X...`, the compiled document's layout. */
function componentRef(source: string): (ref: string, pointer: string) => string {
  return (ref, pointer) => {
    if (!ref.startsWith("#/components/schemas/")) {
      throw new SpecError(source, pointer, "a #/components/schemas/... reference", describeValue(ref));
    }
    return `#/$defs/${ref.slice("#/components/schemas/".length)}`;
  };
}

function tablesModule(
  model: SourcedSpecModel,
  operations: OperationPlan[],
  componentExports: Record<string, string>,
  hints: HintTable,
): string {
  const q = (value: unknown) => JSON.stringify(value);
  const lines = [
    `import type { CompiledSchema, CompiledValidator, OperationValidators, SchemaHint } from "${RUNTIME}";`,
    `import * as code from "./validators-code.gen.js";`,
    "",
    "/** Error-message hints of every schema below, by schema path. */",
    `const hints: Readonly<Record<string, SchemaHint>> = ${JSON.stringify(hints, null, 2)};`,
    "",
    "function compiled(validate: CompiledValidator, label: string): CompiledSchema {",
    "  return { validate, hints, label };",
    "}",
    "",
    `/** The operations of ${model.document.info?.title ?? model.source}, in the order of the spec. */`,
    `export const operationIds = [${operations.map((o) => q(o.operationId)).join(", ")}] as const;`,
    "export type OperationId = (typeof operationIds)[number];",
    "",
    "/** The named schemas (components.schemas). */",
    `export const schemaNames = [${Object.keys(componentExports).map(q).join(", ")}] as const;`,
    "export type SchemaName = (typeof schemaNames)[number];",
    "",
    "/** One validator per named schema. */",
    "export const schemas: Readonly<Record<SchemaName, CompiledSchema>> = {",
    ...Object.entries(componentExports).map(
      ([name, fn]) => `  ${q(name)}: compiled(code.${fn}, "the value"),`,
    ),
    "};",
    "",
    "/** Per operation: the parameters' validator and coding, and the validators of the bodies. */",
    "export const operations: Readonly<Record<OperationId, OperationValidators>> = {",
  ];
  for (const op of operations) {
    lines.push(`  ${q(op.operationId)}: {`);
    lines.push(`    method: ${q(op.method)},`, `    path: ${q(op.path)},`);
    lines.push(`    request: compiled(code.${op.request}, "the parameters"),`);
    lines.push("    parameters: [");
    for (const p of op.parameters) lines.push(`      ${q(p)},`);
    lines.push("    ],");
    if (op.signing) lines.push(`    signing: ${q(op.signing)},`);
    lines.push("    responses: {");
    for (const r of op.responses) {
      lines.push(
        `      ${q(r.status)}: ${r.exportName ? `compiled(code.${r.exportName}, "the body")` : "null"},`,
      );
    }
    lines.push("    },");
    if (op.variants) {
      const v = op.variants;
      lines.push("    variants: {", `      parameter: ${q(v.parameter)},`, `      by: ${q(v.by)},`);
      if (v.default !== undefined) lines.push(`      default: ${q(v.default)},`);
      lines.push(`      statuses: ${q(v.statuses)},`, "      schemas: {");
      for (const [value, component] of Object.entries(v.components)) {
        lines.push(`        ${q(value)}: compiled(code.${componentExports[component]}, "the body"),`);
      }
      lines.push("      },", "      shapes: [");
      for (const shape of v.shapes) lines.push(`        ${q(shape)},`);
      lines.push("      ],", "    },");
    }
    lines.push("  },");
  }
  lines.push("};", "");
  return lines.join("\n");
}
