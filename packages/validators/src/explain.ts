import type { CompiledSchema, RawError, SchemaHint } from "./generated/validators-runtime.gen.js";

/**
 * The facts of a fault, as data (like ajv's `params`), so that programs never read them out of
 * `message`. Which keys are present depends on the check that failed.
 */
export interface ValidationParams {
  /** A required value is absent: its name, or the names of which at least one is required. */
  missing?: string[];
  /** The given value whose presence requires `missing` (dependentRequired, x-parameter-conditions). */
  property?: string;
  /** Two names given together that cannot be combined (x-mutually-exclusive, exactlyOneOf). */
  pair?: [string, string];
  /** A name that is not allowed here: unknown, or forbidden by a rule. */
  forbidden?: string;
  /** How many times a name was given (a duplicate). */
  count?: number;
  /** The values allowed (enum, const). */
  allowedValues?: unknown[];
  /** The bound of a size or range check. */
  limit?: number;
  /** The JSON types allowed. */
  type?: string[];
  /** The regular expression a string must match (pattern). */
  pattern?: string;
  /** The format a string must have. */
  format?: string;
}

/** One fault: where it is, which rule it breaks, its facts, and what a person should read. */
export interface ValidationError {
  /** JSON Pointer of the fault inside the validated value ("" is the value itself). */
  path: string;
  /** The rule that failed: a JSON Schema keyword ("required", "pattern", ...) or a spec rule ("x-order-type-rules"). */
  rule: string;
  /**
   * The check that failed, whatever rule it belongs to: a JSON Schema keyword ("required", "not",
   * "false schema", ...), or a check of the text ("duplicate", "json", "type").
   */
  keyword: string;
  /** The facts of the fault, to act on (see ValidationParams). */
  params: ValidationParams;
  /** The fault in words, starting with the path: "/price must be a decimal string such as "0.1"". For people only. */
  message: string;
}

export type ValidationResult = { valid: true } | { valid: false; errors: ValidationError[] };

/** The one result object every valid outcome returns (frozen: results are read, not changed). */
export const VALID: { valid: true } = Object.freeze({ valid: true });

export function invalid(errors: ValidationError[]): ValidationResult {
  return { valid: false, errors };
}

/**
 * Runs a compiled schema. Never throws: a value nested so deeply that the validator runs out of
 * stack, or an object whose getters throw, is reported as an error result.
 */
export function check(schema: CompiledSchema, data: unknown): ValidationResult {
  let valid: boolean;
  try {
    valid = schema.validate(data);
  } catch (error) {
    const tooDeep = error instanceof RangeError;
    return invalid([
      {
        path: "",
        rule: tooDeep ? "depth" : "error",
        keyword: tooDeep ? "depth" : "error",
        params: {},
        message: tooDeep
          ? `${schema.label} is nested too deeply to validate`
          : `${schema.label} could not be read: ${(error as Error)?.message ?? String(error)}`,
      },
    ]);
  }
  return valid ? VALID : invalid(explain(schema.validate.errors ?? [], schema));
}

/** Turns the generated code's errors into ValidationErrors, one per fault, in the order found. */
export function explain(errors: readonly RawError[], schema: CompiledSchema): ValidationError[] {
  const seen = new Set<string>();
  const out: ValidationError[] = [];
  for (const error of collapse(errors, 0, errors.length, schema)) {
    if (error.keyword === "if") continue;
    const described = describe(error, schema);
    const key = `${described.path}\u0000${described.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(described);
  }
  return out;
}

function branchOffsets(error: RawError): readonly number[] | undefined {
  const offsets = (error.params as { branchErrors?: unknown }).branchErrors;
  return Array.isArray(offsets) ? (offsets as number[]) : undefined;
}

/**
 * Replaces each failed anyOf/oneOf, together with the errors of its branches, by what explains it
 * best (see `explainUnion`). Branch errors precede the union's own error; `branchErrors` tells,
 * counting back from the union's error, where each branch's errors begin.
 */
function collapse(errors: readonly RawError[], from: number, to: number, schema: CompiledSchema): RawError[] {
  const reversed: RawError[] = [];
  let j = to - 1;
  while (j >= from) {
    const error = errors[j]!;
    const offsets = branchOffsets(error);
    const starts = offsets?.map((offset) => j - offset);
    const consistent =
      starts !== undefined &&
      starts.length > 0 &&
      starts.every((start, i) => start >= from && start <= j && (i === 0 || start >= starts[i - 1]!));
    if (!consistent) {
      reversed.push(error);
      j--;
      continue;
    }
    const branches = starts.map((start, i) => collapse(errors, start, starts[i + 1] ?? j, schema));
    reversed.push(...explainUnion(error, branches, schema).reverse());
    j = starts[0]! - 1;
  }
  return reversed.reverse();
}

/**
 * What a failed union reports:
 * - a oneOf that more than one branch matched: that fact;
 * - the order-type rule "one of these parameters is required": one error naming them;
 * - a value of a kind no branch accepts: one type error listing the kinds;
 * - a tag (a const/enum property such as filterType) no branch accepts: one error listing the tags;
 * - otherwise the errors of the branch that came closest (tag matched, fewest errors).
 */
function explainUnion(union: RawError, branches: RawError[][], schema: CompiledSchema): RawError[] {
  const at = union.instancePath;
  const hint = hintOf(schema, nodeOf(union.schemaPath));
  const passing = (union.params as { passingSchemas?: unknown }).passingSchemas;
  if (Array.isArray(passing)) return [{ ...union, params: { passing: passing.length } }];
  if (hint?.oneOfNames) {
    return [
      {
        ...union,
        keyword: "required",
        params: { missingProperty: hint.oneOfNames[0], oneOf: hint.oneOfNames },
      },
    ];
  }
  const wrongKind = (list: RawError[]) => list.some((e) => e.keyword === "type" && e.instancePath === at);
  if (branches.length > 0 && branches.every(wrongKind)) {
    const types = branches.flatMap((list) =>
      list
        .filter((e) => e.keyword === "type" && e.instancePath === at)
        .flatMap((e) => String(e.params.type).split(",")),
    );
    return [
      {
        instancePath: at,
        schemaPath: union.schemaPath,
        keyword: "type",
        params: { type: [...new Set(types)].join(",") },
      },
    ];
  }
  const candidates = branches.filter((list) => !wrongKind(list));
  const tagOf = (list: RawError[]) =>
    list.find((e) => (e.keyword === "const" || e.keyword === "enum") && isChildOf(e.instancePath, at));
  const tags = candidates.map(tagOf);
  if (
    candidates.length > 0 &&
    tags.every((tag) => tag !== undefined && tag.instancePath === tags[0]!.instancePath)
  ) {
    const allowed = tags.flatMap((tag) =>
      tag!.keyword === "const" ? [tag!.params.allowedValue] : (tag!.params.allowedValues as unknown[]),
    );
    return [{ ...tags[0]!, keyword: "enum", params: { allowedValues: [...new Set(allowed)] } }];
  }
  const untagged = candidates.filter((list) => tagOf(list) === undefined);
  const pool = untagged.length > 0 ? untagged : candidates.length > 0 ? candidates : branches;
  const best = pool.reduce<RawError[] | undefined>(
    (closest, list) => (closest === undefined || list.length < closest.length ? list : closest),
    undefined,
  );
  return best && best.length > 0 ? best : [union];
}

function isChildOf(path: string, parent: string): boolean {
  return path.startsWith(`${parent}/`) && !path.slice(parent.length + 1).includes("/");
}

/** The schema node an error's schemaPath points into: the path without its keyword. */
function nodeOf(schemaPath: string): string {
  return schemaPath.slice(0, schemaPath.lastIndexOf("/"));
}

function hintOf(schema: CompiledSchema, node: string): SchemaHint | undefined {
  return Object.hasOwn(schema.hints, node) ? schema.hints[node] : undefined;
}

/** The nearest hint above `schemaPath` (itself included) that has `key`. */
function inheritedHint(
  schema: CompiledSchema,
  schemaPath: string,
  key: keyof SchemaHint,
): SchemaHint | undefined {
  for (let node = schemaPath; node.length > 1; node = nodeOf(node)) {
    const hint = hintOf(schema, node);
    if (hint?.[key] !== undefined) return hint;
  }
  return undefined;
}

function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  null: "null",
};

/** "a", "a or b", "a, b or c". */
function orList(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? "")
    : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

function values(list: readonly unknown[]): string {
  const shown = list.slice(0, 12).map((v) => JSON.stringify(v));
  return list.length > 12 ? `${shown.join(", ")} (or ${list.length - 12} more)` : orList(shown);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** One error in words. */
function describe(error: RawError, schema: CompiledSchema): ValidationError {
  const params = error.params as Record<string, unknown>;
  const node = nodeOf(error.schemaPath);
  const hint = hintOf(schema, node);
  const context = inheritedHint(schema, error.schemaPath, "when");
  const when = context?.when ? ` ${context.when}` : "";
  const rule = inheritedHint(schema, error.schemaPath, "rule")?.rule ?? error.keyword;
  const keyword = error.keyword;
  let path = error.instancePath;
  const name = (p: string) => (p === "" ? schema.label : p);
  const fault = (facts: ValidationParams, message: string): ValidationError => ({
    path,
    rule,
    keyword,
    params: facts,
    message,
  });
  let text: string;
  switch (keyword) {
    case "required": {
      const names = Array.isArray(params.oneOf)
        ? (params.oneOf as string[])
        : [String(params.missingProperty)];
      const pointers = names.map((n) => `${path}/${escapeToken(n)}`);
      path = pointers[0]!;
      return fault({ missing: names }, `${orList(pointers)} is required${when}`);
    }
    case "dependentRequired":
      path = `${path}/${escapeToken(String(params.missingProperty))}`;
      return fault(
        { missing: [String(params.missingProperty)], property: String(params.property) },
        `${path} is required when ${String(params.property)} is given`,
      );
    case "additionalProperties":
    case "unevaluatedProperties": {
      const property = String(params.additionalProperty ?? params.unevaluatedProperty);
      path = `${path}/${escapeToken(property)}`;
      return fault({ forbidden: property }, `${path} ${hint?.unknown ?? "is not an allowed property"}`);
    }
    case "false schema":
      return fault({ forbidden: lastToken(path) }, `${name(path)} is not allowed${when}`);
    case "not":
      if (hint?.exclusive) {
        const pair: [string, string] = [hint.exclusive[0]!, hint.exclusive[1]!];
        const [first, second] = pair.map((n) => `${path}/${escapeToken(n)}`);
        path = second!;
        return fault({ pair }, `${second} cannot be given together with ${first}${when}`);
      }
      text = "must not match the excluded schema";
      break;
    case "type":
      text =
        hint?.expect ??
        orList(
          String(params.type)
            .split(",")
            .map((t) => TYPE_WORDS[t] ?? t),
        );
      text = `must be ${text}`;
      break;
    case "pattern":
      text = `must be ${hint?.expect ?? `a string matching ${String(params.pattern)}`}`;
      break;
    case "format":
      text = `must be ${hint?.expect ?? `a valid ${String(params.format)}`}`;
      break;
    case "enum":
      text = `must be ${(params.allowedValues as unknown[]).length === 1 ? "" : "one of "}${values(params.allowedValues as unknown[])}`;
      break;
    case "const":
      text = `must be ${JSON.stringify(params.allowedValue)}`;
      break;
    case "minLength":
      text =
        params.limit === 1
          ? "must not be empty"
          : `must be at least ${plural(Number(params.limit), "character")} long`;
      break;
    case "maxLength":
      text = `must be at most ${plural(Number(params.limit), "character")} long`;
      break;
    case "minItems":
      text =
        params.limit === 1
          ? "must not be empty"
          : `must have at least ${plural(Number(params.limit), "item")}`;
      break;
    case "maxItems":
    case "items":
      text =
        params.limit === 0 ? "must be empty" : `must have at most ${plural(Number(params.limit), "item")}`;
      break;
    case "minProperties":
      text = `must have at least ${plural(Number(params.limit), "property")}`.replace(
        "propertys",
        "properties",
      );
      break;
    case "maxProperties":
      text =
        params.limit === 0
          ? "must have no properties"
          : `must have at most ${plural(Number(params.limit), "property")}`.replace(
              "propertys",
              "properties",
            );
      break;
    case "minimum":
      text = `must be at least ${String(params.limit)}`;
      break;
    case "maximum":
      text = `must be at most ${String(params.limit)}`;
      break;
    case "exclusiveMinimum":
      text = `must be greater than ${String(params.limit)}`;
      break;
    case "exclusiveMaximum":
      text = `must be less than ${String(params.limit)}`;
      break;
    case "multipleOf":
      text = `must be a multiple of ${String(params.multipleOf)}`;
      break;
    case "uniqueItems":
      text = `must not contain duplicates (items ${String(params.j)} and ${String(params.i)} are equal)`;
      break;
    case "contains":
    case "minContains":
    case "maxContains":
      text =
        params.maxContains !== undefined
          ? `must contain at most ${plural(Number(params.maxContains), "matching item")}`
          : `must contain at least ${plural(Number(params.minContains ?? 1), "matching item")}`;
      break;
    case "propertyNames":
      text = `has a property name that is not allowed (${JSON.stringify(params.propertyName)})`;
      break;
    case "oneOf":
      text =
        typeof params.passing === "number"
          ? `must match exactly one of the allowed shapes, but matches ${params.passing}`
          : "must match exactly one of the allowed shapes";
      break;
    case "anyOf":
      text = "must match one of the allowed shapes";
      break;
    default:
      text = `is not valid (${error.keyword})`;
  }
  return fault(factsOf(params), `${name(path)} ${text}${when}`);
}

/** The facts of a keyword's ajv params, under ValidationParams' names. */
function factsOf(params: Record<string, unknown>): ValidationParams {
  const facts: ValidationParams = {};
  if (Array.isArray(params.allowedValues)) facts.allowedValues = params.allowedValues;
  if ("allowedValue" in params) facts.allowedValues = [params.allowedValue];
  if (typeof params.limit === "number") facts.limit = params.limit;
  if (typeof params.type === "string") facts.type = params.type.split(",");
  if (typeof params.pattern === "string") facts.pattern = params.pattern;
  if (typeof params.format === "string") facts.format = params.format;
  return facts;
}

/** The last reference token of a JSON Pointer, unescaped: "/a/b~1c" → "b/c". */
function lastToken(pointer: string): string {
  const token = pointer.slice(pointer.lastIndexOf("/") + 1);
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}
