import { isDeepStrictEqual } from "node:util";
import type { AnySchema, CodeKeywordDefinition, KeywordCxt, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { _, type Code, Name, nil } from "ajv/dist/compile/codegen/index.js";
import namesModule from "ajv/dist/compile/names.js";
import standaloneModule from "ajv/dist/standalone/index.js";
import type { RegExpEngine } from "ajv/dist/types/index.js";
import addFormatsModule from "ajv-formats";
import type { JsonSchema } from "../spec-input/spec-model.js";
import { FORMATS, walkSchema } from "./openapi-keywords.js";
import { patternOf } from "./validators-runtime.js";

// ajv and ajv-formats are CommonJS: imported from ESM, the default import is module.exports,
// whose `default` property is the export itself; loaders that unwrap `__esModule` modules (vitest)
// give the export directly.
type Names = typeof namesModule.default;
const N: Names = "errors" in namesModule ? (namesModule as unknown as Names) : namesModule.default;
const addFormats = addFormatsModule.default;
const standaloneCode = standaloneModule.default;

/** The helpers of the run-time module, by the `require(...)` expression ajv writes for each. */
const RUNTIME_HELPERS: Record<string, string> = {
  'require("ajv/dist/runtime/ucs2length").default': "ucs2length",
  'require("ajv/dist/runtime/equal").default': "equal",
};
/** The run-time module's type of a compiled validator, which every export is declared as. */
const VALIDATOR_TYPE = "CompiledValidator";
/** The run-time module's function that makes a schema's pattern into a regular expression. */
const PATTERN_NAME = "patternOf";
/** The name under which the generated code imports the run-time format checks. */
const FORMATS_NAME = "runtimeFormats";

export interface StandaloneExport {
  /** The export's name in the module (an identifier). */
  name: string;
  /** JSON Pointer of the exported schema inside the document ("" for the document itself). */
  pointer: string;
}

/** What ajv refused to compile, with the document pointer of the export being compiled. */
export class CompileError extends Error {
  override name = "CompileError";
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

export interface StandaloneModule {
  /** The module body: imports from the run-time module, then ajv's code with one export per schema. */
  code: string;
}

/**
 * Compiles the exports of one JSON Schema document (which must carry an `$id`) with Ajv2020 (see
 * CompileOptions) and returns ES module code for them that needs no ajv at run time:
 *
 * - ajv's standalone output `require()`s its run-time helpers even in ESM mode; each such call is
 *   replaced by an import of the generated run-time module (any other `require` is an error);
 * - formats are looked up in that module too (ajv's `code.formats`), not in ajv-formats;
 * - every error's `schemaPath` is made absolute (ajv writes paths relative to the function that
 *   reported them, so "#/properties/use/enum" could be Identifier's or ContactPoint's);
 * - `anyOf`/`oneOf` errors record where each branch's errors start (`params.branchErrors`, counted
 *   back from the union's own error), so that messages can explain the branch that came closest.
 */
export function compileStandalone(
  document: Record<string, unknown>,
  exports: readonly StandaloneExport[],
  runtimeModule: string,
  options: CompileOptions,
): StandaloneModule {
  const id = document.$id;
  if (typeof id !== "string") throw new Error("compileStandalone: the document needs an $id");
  const ajv = createAjv(options);
  // Checking the document against the 2020-12 meta-schema compiles that meta-schema, which needs
  // every 2020-12 feature; only then are the options tuned to what the document itself uses.
  ajv.validateSchema(document as AnySchema, true);
  leaveOutUnusedFeatures(ajv, document);
  ajv.addSchema(document as AnySchema);
  const compiled = exports.map(({ pointer }) => {
    let validate: ValidateFunction | undefined;
    try {
      validate = ajv.getSchema(`${id}#${pointer}`);
    } catch (error) {
      throw new CompileError(pointer, (error as Error).message);
    }
    if (!validate) throw new CompileError(pointer, "no schema there");
    return validate;
  });
  absolutizeSchemaPaths(document, compiled);
  const raw = standaloneCode(
    ajv,
    Object.fromEntries(exports.map(({ name, pointer }) => [name, `${id}#${pointer}`])),
  );
  return { code: toEsModule(raw, runtimeModule) };
}

export interface CompileOptions {
  /**
   * ajv's strict mode (types beside the keywords that need them, tuples with their bounds, required
   * properties declared): our own rules. A spec that is not ours is compiled as JSON Schema 2020-12
   * defines it, which asks for none of that.
   */
  strict: boolean;
  /**
   * Which referenced schemas are written into each function that uses them rather than called
   * (ajv's `inlineRefs`): `true`, every one that refers to nothing else (ajv's default: the fastest
   * code, whatever its size), or those of at most this many keywords.
   */
  inlineRefs: boolean | number;
}

function createAjv({ strict, inlineRefs }: CompileOptions): Ajv2020 {
  const ajv = new Ajv2020({
    strict,
    logger: strict ? undefined : false,
    inlineRefs,
    allErrors: true,
    messages: false,
    code: {
      source: true,
      esm: true,
      lines: true,
      formats: _`${new Name(FORMATS_NAME)}`,
      ...(strict ? {} : { regExp: lenientPatterns() }),
    },
  });
  addFormats(ajv, FORMATS as Parameters<typeof addFormats>[1] & string[]);
  recordUnionBranches(ajv, "anyOf");
  recordUnionBranches(ajv, "oneOf");
  linearUniqueItems(ajv);
  return ajv;
}

/**
 * Patterns as the run-time module's patternOf reads them, at generation time and in the generated
 * code alike: with the `u` flag where they are valid so, else without it (a document that writes
 * `[a-z\\:]` means a colon). ajv's default, `new RegExp(pattern, "u")`, refuses them.
 */
function lenientPatterns(): RegExpEngine {
  return Object.assign((source: string, flags: string) => patternOf(source, flags), { code: PATTERN_NAME });
}

/**
 * Ajv2020 always turns on `unevaluated` (tracking which properties and items each subschema
 * evaluated, at run time, and evaluating every anyOf branch to merge them) and `dynamicRef` (an
 * object of dynamic anchors allocated on every call). A document without unevaluated* keywords
 * or dynamic references needs neither; leaving them out changes no verdict and makes the code
 * faster and smaller.
 */
function leaveOutUnusedFeatures(ajv: Ajv2020, document: Record<string, unknown>): void {
  let unevaluated = false;
  let dynamic = false;
  walkSchema(document as JsonSchema, (node) => {
    if ("unevaluatedProperties" in node || "unevaluatedItems" in node) unevaluated = true;
    if ("$dynamicRef" in node || "$dynamicAnchor" in node || "$recursiveRef" in node) dynamic = true;
  });
  const opts = ajv.opts as { unevaluated?: boolean; dynamicRef?: boolean };
  if (!unevaluated) opts.unevaluated = false;
  if (!dynamic) opts.dynamicRef = false;
}

/** The run-time helper that finds duplicate items (see the run-time module). */
const DUPLICATES_NAME = "duplicateItems";

/**
 * Replaces ajv's `uniqueItems`, which compares every pair of items with deep equality unless the
 * items' type is given inline: on a hostile array of 100,000 distinct items that is 5·10⁹
 * comparisons. The replacement calls the run-time `duplicateItems`, linear in the array's size,
 * which reports the same pair of indexes ({i, j}) ajv would.
 */
function linearUniqueItems(ajv: Ajv2020): void {
  ajv.removeKeyword("uniqueItems");
  ajv.addKeyword({
    keyword: "uniqueItems",
    type: "array",
    schemaType: "boolean",
    error: { message: "", params: ({ params }) => _`{i: ${params.i}, j: ${params.j}}` },
    code(cxt: KeywordCxt) {
      if (cxt.schema !== true) return;
      const { gen, data } = cxt;
      const find = gen.scopeValue("func", {
        // Runs only here, while ajv checks schemas against the meta-schema; the generated code
        // calls the run-time module's duplicateItems instead.
        ref: (items: unknown[]) => {
          for (let i = items.length; i--; )
            for (let j = i; j--; ) if (isDeepStrictEqual(items[i], items[j])) return [i, j];
          return null;
        },
        code: _`${new Name(DUPLICATES_NAME)}`,
      });
      const pair = gen.const("duplicate", _`${find}(${data})`);
      cxt.setParams({ i: _`${pair}[0]`, j: _`${pair}[1]` });
      cxt.fail(_`${pair} !== null`);
    },
  });
}

const branchStarts = new WeakMap<KeywordCxt, Name[]>();

/**
 * Replaces ajv's `anyOf`/`oneOf` by the same code plus one variable per branch holding the error
 * count when the branch starts; the union's error then carries, in `params.branchErrors`, how many
 * errors before it each branch's errors begin. Costs nothing on valid data (a few assignments).
 */
function recordUnionBranches(ajv: Ajv2020, keyword: "anyOf" | "oneOf"): void {
  const builtIn = ajv.getKeyword(keyword) as CodeKeywordDefinition;
  ajv.removeKeyword(keyword);
  ajv.addKeyword({
    keyword,
    schemaType: "array",
    trackErrors: true,
    error: {
      message: "",
      params: (cxt) => {
        const offsets = (branchStarts.get(cxt as KeywordCxt) ?? []).reduce<Code>(
          (list, start, i) => (i === 0 ? _`${N.errors} - ${start}` : _`${list}, ${N.errors} - ${start}`),
          nil,
        );
        return keyword === "oneOf"
          ? _`{passingSchemas: ${cxt.params.passing}, branchErrors: [${offsets}]}`
          : _`{branchErrors: [${offsets}]}`;
      },
    },
    code(cxt: KeywordCxt) {
      const starts = (cxt.schema as unknown[]).map(() => cxt.gen.let("_branch", N.errors));
      branchStarts.set(cxt, starts);
      const subschema = cxt.subschema.bind(cxt);
      cxt.subschema = (applicator, valid) => {
        cxt.gen.assign(starts[applicator.schemaProp as number]!, N.errors);
        return subschema(applicator, valid);
      };
      builtIn.code(cxt, "code");
    },
  });
}

interface FunctionSource {
  validateCode: string;
  scopeValues: Record<string, Set<{ value?: { ref?: unknown } }> | undefined>;
}

/**
 * Rewrites, in the code of every compiled function but the document's own, each error's
 * schemaPath from "relative to the function" to "relative to the document", by prefixing the
 * pointer of the function's schema. Paths that already start with "#/$defs/" come from inlined
 * `$ref`s, which ajv writes as the `$ref` itself: those are absolute already.
 */
function absolutizeSchemaPaths(document: Record<string, unknown>, roots: ValidateFunction[]): void {
  const pointers = new Map<unknown, string>();
  walkSchema(document as JsonSchema, (node, segments) => {
    if (!pointers.has(node)) pointers.set(node, segments.map((s) => `/${s}`).join(""));
  });
  const seen = new Set<ValidateFunction>();
  const queue = [...roots];
  while (queue.length > 0) {
    const validate = queue.pop()!;
    if (seen.has(validate)) continue;
    seen.add(validate);
    const source = validate.source as unknown as FunctionSource;
    for (const prefix of ["validate", "root", "wrapper"]) {
      for (const name of source.scopeValues[prefix] ?? []) {
        const ref = name.value?.ref as { validate?: ValidateFunction } | ValidateFunction | undefined;
        if (typeof ref === "function") queue.push(ref);
        else if (ref && typeof ref.validate === "function") queue.push(ref.validate);
      }
    }
    const pointer = pointers.get(validate.schemaEnv.schema);
    if (pointer === undefined) throw new Error("compileStandalone: a compiled schema is not in the document");
    if (pointer === "") continue;
    source.validateCode = source.validateCode.replace(
      /schemaPath:"#(?!\/\$defs\/)([^"]*)"/g,
      (_match, rest: string) => `schemaPath:"#${pointer}${rest}"`,
    );
  }
}

/**
 * ajv records each error in seven lines (`const err0 = {…}; if(vErrors === null){vErrors = [err0];}
 * else {vErrors.push(err0);} errors++;`): on Stripe's document 22,000 of them, 40% of the code's
 * lines, and a declaration each for the type checker of whoever compiles the output to bind. Two
 * lines without the declaration do the same: `(vErrors ??= []).push({…}); errors++;`. The object
 * is folded in only when no `errN` is read anywhere else, so code of another shape stays as ajv
 * wrote it.
 */
export function compactErrorPushes(code: string): string {
  const pushed = code.replace(
    /\nif\(vErrors === null\)\{\nvErrors = \[(err\d+)\];\n\}\nelse \{\nvErrors\.push\(\1\);\n\}\nerrors\+\+;/g,
    "\n(vErrors ??= []).push($1);\nerrors++;",
  );
  const folded = pushed.replace(
    /\nconst (err\d+) = (\{.*\});\n\(vErrors \?\?= \[\]\)\.push\(\1\);/g,
    "\n(vErrors ??= []).push($2);",
  );
  return /\berr\d+\b/.test(folded) ? pushed : folded;
}

/**
 * Turns ajv's standalone output into an ES module that imports its helpers from `runtimeModule`.
 * The code is wrapped in one function scope, as ajv's own run-time compilation does: functions
 * that read module-level constants pay for a check on every read (V8 cannot prove a module
 * binding initialised), measurably slower than reading the same constants from a closure.
 */
function toEsModule(raw: string, runtimeModule: string): string {
  let code = compactErrorPushes(raw.replace(/^"use strict";\n?/, ""));
  const used = new Set<string>();
  for (const [expression, helper] of Object.entries(RUNTIME_HELPERS)) {
    if (code.includes(expression)) {
      used.add(helper);
      code = code.split(expression).join(helper);
    }
  }
  for (const name of [FORMATS_NAME, DUPLICATES_NAME, PATTERN_NAME]) {
    if (new RegExp(`\\b${name}\\b`).test(code)) used.add(name);
  }
  const leftover = /\brequire\s*\(\s*("[^"]*")/.exec(code);
  if (leftover)
    throw new Error(`compileStandalone: ajv's output needs ${leftover[1]}, which the run-time module lacks`);
  if (/\bnew Function\b|\beval\s*\(/.test(code))
    throw new Error("compileStandalone: ajv's output evaluates code");
  const exported: [string, string][] = [];
  code = code.replace(
    /^export const ([A-Za-z_$][\w$]*) = (validate\d+);\n/gm,
    (_line, name: string, fn: string) => {
      exported.push([name, fn]);
      return "";
    },
  );
  if (/^export /m.test(code))
    throw new Error("compileStandalone: an export of ajv's output was not recognised");
  const imports = [...used].sort();
  return [
    `import type { ${VALIDATOR_TYPE} } from "${runtimeModule}";`,
    ...(imports.length > 0 ? [`import { ${imports.join(", ")} } from "${runtimeModule}";`] : []),
    "",
    "const compiled = /* @__PURE__ */ (() => {",
    code.endsWith("\n") ? code.slice(0, -1) : code,
    `return { ${exported.map(([name, fn]) => `${name}: ${fn}`).join(", ")} };`,
    "})();",
    "",
    // Declared with their type, so that TypeScript never infers it from the code above (@ts-nocheck
    // spares that code the checks, not the inference a use of an untyped export asks for).
    ...exported.map(([name]) => `export const ${name}: ${VALIDATOR_TYPE} = compiled.${name};`),
    "",
  ].join("\n");
}
