import { decodeParameters, type ParameterText } from "./decode.js";
import { check, invalid, VALID, type ValidationError, type ValidationResult } from "./explain.js";
import type { CompiledSchema, OperationValidators } from "./generated/validators-runtime.gen.js";

/** The generated tables of one spec (`validators.ts` of a `marketapi-codegen --validators` run). */
export interface ApiTables<Operation extends string = string, Schema extends string = string> {
  operations: Readonly<Record<Operation, OperationValidators>>;
  schemas: Readonly<Record<Schema, CompiledSchema>>;
}

export interface RequestOptions {
  /**
   * "values" (default): `params` holds decoded values (`{ limit: 5 }`).
   * "query": `params` is parameter text as a server receives it, in a query string or a form body
   * (a string, URLSearchParams, or an object of strings); it is decoded first (see `parseRequest`).
   */
  from?: "values" | "query";
  /** Also require the signing envelope (`timestamp`, `signature`) of signed operations. */
  signed?: boolean;
}

export interface ResponseOptions {
  /**
   * The body variant to check, for operations with `x-response-variant-by` (new_order: "ACK",
   * "RESULT" or "FULL"; the tickers: "present" or "absent", after `symbol`). Without it (and
   * without `request`), the body is checked against the variant its shape claims: a new_order body
   * with `fills` is a FULL, one with the order's state a RESULT, any other an ACK; a ticker object
   * is the one-symbol answer, an array the all-symbols answer.
   */
  variant?: string;
  /** The request's parameters: the variant is read from them (or the parameter's default). */
  request?: Readonly<Record<string, unknown>>;
}

export type ParseResult =
  | { valid: true; params: Record<string, unknown> }
  | { valid: false; errors: ValidationError[]; params: Record<string, unknown> };

/** The validation functions over one spec's generated tables. */
export interface ApiValidators<Operation extends string = string, Schema extends string = string> {
  /** Checks an operation's parameters (decoded values, or text with `{ from: "query" }`). */
  validateRequest(
    operationId: Operation | (string & {}),
    params: unknown,
    options?: RequestOptions,
  ): ValidationResult;
  /** Decodes parameter text (query string or form body) and checks it; gives the decoded params. */
  parseRequest(
    operationId: Operation | (string & {}),
    text: ParameterText,
    options?: { signed?: boolean },
  ): ParseResult;
  /** Checks a response body against the schema documented for its status. */
  validateResponse(
    operationId: Operation | (string & {}),
    status: number | string,
    body: unknown,
    options?: ResponseOptions,
  ): ValidationResult;
  /** Checks a value against a named schema of components.schemas. */
  validateSchema(name: Schema | (string & {}), data: unknown): ValidationResult;
  /**
   * validateResponse with the operation, status and options resolved once: a function of the body.
   * An unknown operation, status or variant gives a function that always returns that error.
   */
  responseValidator(
    operationId: Operation | (string & {}),
    status: number | string,
    options?: ResponseOptions,
  ): (body: unknown) => ValidationResult;
}

function fault(rule: string, message: string): ValidationResult {
  return invalid([{ path: "", rule, keyword: rule, params: {}, message }]);
}

/** What a numeric status resolves to, once: its documented key, body schema and variants. */
interface Resolved {
  key: string;
  schema: CompiledSchema | null;
  /** The variants, when x-response-variant-by applies to this status. */
  variants?: Map<string, CompiledSchema>;
}

/** An operation's tables, with what validateResponse resolves once and then looks up. */
interface Prepared {
  id: string;
  op: OperationValidators;
  /** By numeric status, filled as statuses are seen (at most the 500 status codes). */
  byCode: Map<number, Resolved>;
  variants?: Map<string, CompiledSchema>;
  variantStatuses: ReadonlySet<string>;
}

/** Builds the validation functions over generated tables (the package binds its own spec's). */
export function createValidators<Operation extends string, Schema extends string>(
  tables: ApiTables<Operation, Schema>,
): ApiValidators<Operation, Schema> {
  const prepared = new Map<unknown, Prepared>();
  for (const [id, op] of Object.entries<OperationValidators>(tables.operations)) {
    prepared.set(id, {
      id,
      op,
      byCode: new Map(),
      ...(op.variants ? { variants: new Map(Object.entries(op.variants.schemas)) } : {}),
      variantStatuses: new Set(op.variants?.statuses ?? []),
    });
  }
  const schemas = new Map<unknown, CompiledSchema>(Object.entries(tables.schemas));
  const unknownOperation = (id: unknown) =>
    fault(
      "operationId",
      `unknown operation ${JSON.stringify(id)}; known operations: ${[...prepared.keys()].join(", ")}`,
    );

  function withSignature(
    op: OperationValidators,
    params: unknown,
    result: ValidationResult,
  ): ValidationResult {
    if (!op.signing || typeof params !== "object" || params === null) return result;
    const given = params as Record<string, unknown>;
    // The usual case, both sent, builds no lists.
    if (given[op.signing.timestamp] !== undefined && given[op.signing.signature] !== undefined) return result;
    const missing: ValidationError[] = [op.signing.timestamp, op.signing.signature]
      .filter((name) => (params as Record<string, unknown>)[name] === undefined)
      .map((name) => ({
        path: `/${name}`,
        rule: "required",
        keyword: "required",
        params: { missing: [name] },
        message: `/${name} is required (signed request)`,
      }));
    if (missing.length === 0) return result;
    return invalid([...(result.valid ? [] : result.errors), ...missing]);
  }

  function parse(id: unknown, text: ParameterText, signed: boolean): ParseResult {
    const entry = prepared.get(id);
    if (!entry)
      return { ...(unknownOperation(id) as { valid: false; errors: ValidationError[] }), params: {} };
    const decoded = decodeParameters(entry.op, text);
    let result = check(entry.op.request, decoded.params);
    if (signed) result = withSignature(entry.op, decoded.params, result);
    if (result.valid && decoded.errors.length === 0) return { valid: true, params: decoded.params };
    // A value that could not be decoded is left out: drop what validation says about its absence.
    const failed = new Set(decoded.errors.map((e) => e.path));
    const errors = [
      ...decoded.errors,
      ...(result.valid ? [] : result.errors.filter((e) => !failed.has(e.path))),
    ];
    return errors.length === 0
      ? { valid: true, params: decoded.params }
      : { valid: false, errors, params: decoded.params };
  }

  return {
    validateRequest(id, params, options) {
      if (options?.from === "query") {
        const parsed = parse(id, params as ParameterText, options.signed === true);
        return parsed.valid ? VALID : invalid(parsed.errors);
      }
      const entry = prepared.get(id);
      if (!entry) return unknownOperation(id);
      const result = check(entry.op.request, params);
      return options?.signed ? withSignature(entry.op, params, result) : result;
    },

    parseRequest(id, text, options) {
      return parse(id, text, options?.signed === true);
    },

    validateResponse(id, status, body, options) {
      const entry = prepared.get(id);
      if (!entry) return unknownOperation(id);
      const resolved = resolve(entry, status);
      if ("valid" in resolved) return resolved;
      let schema = resolved.schema;
      if (options?.variant === undefined && options?.request === undefined) {
        if (resolved.variants !== undefined)
          schema = claimedVariant(entry, resolved.variants, body) ?? schema;
      } else {
        const { variant, request } = options;
        if (variant !== undefined && request === undefined && resolved.variants !== undefined) {
          // The common case, without the general lookup below.
          schema = resolved.variants.get(variant) ?? null;
          if (schema === null) return unknownVariant(entry, variant);
        } else if (variant !== undefined || request !== undefined) {
          const chosen = chooseVariant(entry, resolved, options);
          if (chosen !== undefined) {
            if ("valid" in chosen) return chosen;
            schema = chosen;
          }
        }
      }
      return schema === null ? noBody(entry, resolved, body) : check(schema, body);
    },

    responseValidator(id, status, options) {
      const entry = prepared.get(id);
      const resolved = entry ? resolve(entry, status) : unknownOperation(id);
      if ("valid" in resolved) return () => resolved;
      let schema = resolved.schema;
      if (options !== undefined && (options.variant !== undefined || options.request !== undefined)) {
        const chosen = chooseVariant(entry!, resolved, options);
        if (chosen !== undefined && "valid" in chosen) return () => chosen;
        if (chosen !== undefined) schema = chosen;
      } else if (resolved.variants !== undefined) {
        const variants = resolved.variants;
        const documented = schema;
        return (body) => {
          const claimed = claimedVariant(entry!, variants, body) ?? documented;
          return claimed === null ? noBody(entry!, resolved, body) : check(claimed, body);
        };
      }
      if (schema === null) return (body) => noBody(entry!, resolved, body);
      const compiled = schema;
      return (body) => check(compiled, body);
    },

    validateSchema(name, data) {
      const schema = schemas.get(name);
      return schema ? check(schema, data) : fault("schema", `unknown schema ${JSON.stringify(name)}`);
    },
  };
}

/** What a status resolves to for an operation; numeric statuses are resolved once. */
function resolve(entry: Prepared, status: number | string): Resolved | ValidationResult {
  const cached = typeof status === "number" ? entry.byCode.get(status) : undefined;
  if (cached !== undefined) return cached;
  const key = statusKey(entry.op, status);
  if (typeof key !== "string") return key;
  const resolved: Resolved = {
    key,
    schema: entry.op.responses[key] ?? null,
    ...(entry.variants && entry.variantStatuses.has(key) ? { variants: entry.variants } : {}),
  };
  if (typeof status === "number") entry.byCode.set(status, resolved);
  return resolved;
}

/** A response documented without a body: valid when none was given. */
function noBody(entry: Prepared, resolved: Resolved, body: unknown): ValidationResult {
  return body === undefined || body === null || body === ""
    ? VALID
    : fault("body", `status ${resolved.key} of ${entry.id} has no body, but one was given`);
}

/** The documented status a response status falls under: exact code, then "4XX"-style range, then default. */
function statusKey(op: OperationValidators, status: number | string): string | ValidationResult {
  const text =
    typeof status === "number"
      ? String(status)
      : typeof status === "string"
        ? status.trim().toUpperCase()
        : "";
  const isCode = /^[1-5][0-9]{2}$/.test(text);
  if (!isCode && !/^[1-5]XX$|^DEFAULT$/.test(text)) {
    return fault(
      "status",
      `${JSON.stringify(status)} is not an HTTP status code (100 to 599, "4XX" or "default")`,
    );
  }
  const candidates = isCode ? [text, `${text[0]}XX`, "default"] : [text === "DEFAULT" ? "default" : text];
  const key = candidates.find((c) => Object.hasOwn(op.responses, c));
  if (key === undefined) {
    const documented = Object.keys(op.responses).join(", ");
    return fault(
      "status",
      `status ${text} is not documented for ${op.method.toUpperCase()} ${op.path} (documented: ${documented})`,
    );
  }
  return key;
}

function unknownVariant(entry: Prepared, chosen: unknown): ValidationResult {
  return fault(
    "x-response-variant-by",
    `${JSON.stringify(chosen)} is not a ${entry.op.variants?.parameter} of ${entry.id} (one of ${[...(entry.variants?.keys() ?? [])].join(", ")})`,
  );
}

/**
 * The schema of the variant a body claims by its shape (x-response-variant-by `shapes`, most
 * specific first): a new_order body with `fills` claims FULL and is checked as one, so a malformed
 * fill fails instead of passing as an ACK with an extra field. Undefined for a body of no
 * variant's type, which the documented schema then rejects.
 */
function claimedVariant(
  entry: Prepared,
  variants: Map<string, CompiledSchema>,
  body: unknown,
): CompiledSchema | undefined {
  const shapes = entry.op.variants?.shapes ?? [];
  const type = Array.isArray(body)
    ? "array"
    : typeof body === "object" && body !== null
      ? "object"
      : undefined;
  for (const shape of shapes) {
    if (shape.type !== type) continue;
    if (shape.markers.length > 0 && !shape.markers.some((name) => Object.hasOwn(body as object, name)))
      continue;
    const schema = variants.get(shape.variant);
    if (schema !== undefined) return schema;
  }
  return undefined;
}

/** The variant `options` choose (by name, or from the request's parameter, or its default). */
function chooseVariant(
  entry: Prepared,
  resolved: Resolved,
  options: ResponseOptions,
): CompiledSchema | ValidationResult | undefined {
  const spec = entry.op.variants;
  if (!spec) {
    return options.variant === undefined
      ? undefined
      : fault(
          "x-response-variant-by",
          `${entry.id} has no response variants (asked for ${JSON.stringify(options.variant)})`,
        );
  }
  if (!resolved.variants) return undefined;
  const fromRequest =
    options.request !== undefined && Object.hasOwn(options.request, spec.parameter)
      ? options.request[spec.parameter]
      : undefined;
  if (spec.by === "presence" && options.variant === undefined) {
    const chosen = fromRequest === undefined ? "absent" : "present";
    return resolved.variants.get(chosen) ?? unknownVariant(entry, chosen);
  }
  const chosen = options.variant ?? fromRequest ?? spec.default;
  if (chosen === undefined) return undefined;
  return (
    (typeof chosen === "string" ? resolved.variants.get(chosen) : undefined) ?? unknownVariant(entry, chosen)
  );
}
