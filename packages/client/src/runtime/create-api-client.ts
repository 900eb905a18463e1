import createClient, { type Client, type HeadersOptions } from "openapi-fetch";
import { deferredTransport, type FetchFunction, REAL_REQUEST } from "./deferred-request.js";
import { MissingCredentialsError } from "./missing-credentials-error.js";
import { cookiePair, fillPath, headerValue, type ParameterWire, queryPart } from "./parameter-styles.js";
import { type BodyWire, encodeBody } from "./request-body.js";
import { ResponseValidationError } from "./response-validation-error.js";
import {
  applyRequirement,
  type Credential,
  type Credentials,
  chooseRequirement,
  type SchemeWire,
} from "./security.js";
import { createSigner } from "./sign-payload.js";
import { SpotApiError } from "./spot-api-error.js";
import { formatDecimal, joinParams } from "./wire-encoding.js";

/** How one operation travels on the wire: an entry of a generated `operations.gen.ts`. */
export interface OperationWire {
  /** The spec's operationId, where the table's key differs from it (one the types could not keep). */
  readonly operationId?: string;
  readonly method: string;
  readonly path: string;
  /** The operation's `x-auth-class`. */
  readonly authClass: "none" | "market_data" | "trade" | "user_data";
  readonly queryParameters: readonly string[];
  readonly jsonEncoded: readonly string[];
  readonly acceptsFormBody: boolean;
  /**
   * The security requirements, each a list of scheme names that must all be met (`[]`: none is
   * needed); the client meets the one with the most schemes it has credentials for. Absent: from
   * `authClass` (older generated tables).
   */
  readonly security?: readonly (readonly string[])[];
  /** The parameters that are not plain query parameters (path, header, cookie, styled query ones). */
  readonly parameters?: readonly ParameterWire[];
  /** The request body it takes (not the form body of `acceptsFormBody`, which carries the parameters). */
  readonly body?: BodyWire;
  /** How a success answer is read: JSON (default), text, a Blob, or not at all (no content declared). */
  readonly responseAs?: "json" | "text" | "blob" | "none";
  /** The Accept header sent, where the answer may come in other media types than the one read. */
  readonly accept?: string;
}

/** A generated `operationTable`: the wire facts of each operation, by operationId. */
export type OperationTable = Readonly<Record<string, OperationWire>>;

/** One case of the spec's `x-signing.testVectors`: HMAC of `query` + `body` keyed by `secret`. */
export interface SigningTestVector {
  readonly secret: string;
  readonly query: string;
  readonly body: string;
  readonly signature: string;
}

/** The signing rule (`x-signing`) as a generated `operations.gen.ts` states it. */
export interface SigningTable {
  readonly signatureParameter: string;
  readonly timestampParameter: string;
  readonly recvWindowParameter: string;
  readonly recvWindowMaximum: number;
  readonly testVectors: readonly SigningTestVector[];
}

/** A generated `authentication`: the API key's header and the signing rule, `null` where the spec has none. */
export interface AuthenticationTable {
  readonly apiKeyHeader: string | null;
  readonly signing: SigningTable | null;
  /** The security schemes the operations' requirements name, by name. */
  readonly schemes?: Readonly<Record<string, SchemeWire>>;
}

/** The types a generated `client.gen.ts` declares (`SpotApiTypes`): paths, and methods for any options and mode. */
export interface ApiTypes {
  readonly paths: {};
  readonly options: unknown;
  readonly mode: "result" | "throw";
  readonly methods: unknown;
}

/**
 * A generated API as `client.gen.ts` of a `marketapi-codegen --client` run exports it (`spotApi`):
 * the operation table and the method binder, plus its types (never set at run time).
 */
export interface ApiDefinition<
  Table extends OperationTable = OperationTable,
  Types extends ApiTypes = ApiTypes,
> {
  readonly operationTable: Table;
  readonly authentication: AuthenticationTable;
  readonly createOperationMethods: (call: never) => unknown;
  readonly types?: Types;
}

/**
 * The per-operation methods of an API, with this runtime's per-call options; with mode "throw"
 * every method resolves to the success branch only.
 */
export type MethodsOf<Types extends ApiTypes, Mode extends "result" | "throw" = "result"> = (Types & {
  readonly options: CallOptions;
  readonly mode: Mode;
})["methods"];

/** What a `validateResponse` hook answers (the shape `@marketapi/validators` returns). */
export interface ResponseCheck {
  valid: boolean;
  errors?: unknown;
}

/** The options of `createApiClient`; `Id` is the API's operationIds. */
export interface ApiClientOptions<Id extends string = string> {
  /** Base address of the API, such as `https://api.binance.com` or `http://127.0.0.1:8080`. */
  baseUrl: string;
  /**
   * API key, sent in the spec's API key header (`X-MBX-APIKEY`) by `trade` and `user_data` operations (required there), and by
   * `market_data` operations when given (accepted there, not required). `undefined` is accepted
   * (even under `exactOptionalPropertyTypes`) so that `apiKey: process.env.API_KEY` compiles.
   */
  apiKey?: string | undefined;
  /** API secret; signs `trade` and `user_data` requests (HMAC-SHA256). Never sent. */
  apiSecret?: string | undefined;
  /** The token of every HTTP bearer, OAuth 2 and OpenID Connect scheme without its own entry in `auth`. */
  bearerToken?: string | undefined;
  /**
   * Credentials by security scheme name, for specs with several schemes: a key or token, or
   * `{ username, password }` for HTTP basic. An entry wins over `apiKey` and `bearerToken`.
   */
  auth?: Readonly<Record<string, Credential | undefined>>;
  /**
   * `recvWindow` in milliseconds (1 to the spec's maximum, 60000), added to the requests of operations that declare a
   * `recvWindow` parameter (in this spec only `new_order`); the server's default (5000) when absent.
   */
  recvWindow?: number;
  /**
   * Where POST and DELETE operations that accept a form body send their parameters and signature:
   * `"query"` (default, as the official connectors do) or `"body"` (`application/x-www-form-urlencoded`).
   * GET parameters always travel in the query string.
   */
  paramsIn?: "query" | "body";
  /** Headers sent with every request. */
  headers?: HeadersOptions;
  /**
   * The fetch to send requests with (default `globalThis.fetch`). It is called as `fetch(url, init)`,
   * or as `fetch(request)` once middleware is in use.
   */
  fetch?: FetchFunction;
  /** The clock for `timestamp`, in epoch milliseconds (default `Date.now`); set it to follow the server's time. */
  now?: () => number;
  /** Throw a `SpotApiError` on every non-2xx answer instead of returning `{ error }`. */
  throwOnError?: boolean;
  /**
   * Checks every answer before it is returned, for example `validateResponse` from
   * `@marketapi/validators`; an answer it rejects throws a `ResponseValidationError`. `request`
   * holds the parameters sent (query and body, signing envelope aside), so that a body whose shape
   * the request chooses (`newOrderRespType`, a ticker's `symbol`) is checked against that shape.
   */
  validateResponse?(
    operationId: Id,
    status: number,
    body: unknown,
    options: { request: Readonly<Record<string, unknown>> },
  ): ResponseCheck | Promise<ResponseCheck>;
}

/** Per-call options of the per-operation methods (path-based calls take openapi-fetch's options plus `recvWindow`). */
export interface CallOptions {
  signal?: AbortSignal;
  headers?: HeadersOptions;
  /** Overrides the client's `recvWindow` for this call; only for operations that declare it. */
  recvWindow?: number;
}

/** A result of a client created with `throwOnError: true`: the error branch cannot occur. */
export type Succeeded<R> = Exclude<R, { error: unknown }>;

/**
 * The openapi-fetch client of an API (`GET`, `POST`, `DELETE`… by path) plus one method per
 * operationId. Both apply the spec's wire rules and authentication.
 */
export type ApiClient<Types extends ApiTypes, Mode extends "result" | "throw" = "result"> = Client<
  Types["paths"]
> &
  MethodsOf<Types, Mode>;

interface RawResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

type Params = Readonly<Record<string, unknown>>;

/** openapi-fetch options as the path-based methods receive them, plus our `recvWindow`. */
interface RawInit {
  params?: { query?: Params; path?: Params; header?: Params; cookie?: Params };
  body?: unknown;
  headers?: HeadersOptions;
  baseUrl?: string;
  recvWindow?: number;
  [option: string]: unknown;
}

interface UntypedClient {
  request(method: string, path: string, init?: Record<string | symbol, unknown>): Promise<RawResult>;
}

/** openapi-fetch hands per-call middleware and a per-call fetch a Request of its own making. */
function withRealRequest(init: Record<string | symbol, unknown>): Record<string | symbol, unknown> {
  if (init.middleware || init.fetch) init[REAL_REQUEST] = true;
  return init;
}

const FORM = "application/x-www-form-urlencoded";
const passThrough = (body: unknown) => body;

/** Sends one operation; a generated `createOperationMethods` binds it to every operationId. */
type Caller = (operationId: string, params: unknown, options: CallOptions | undefined) => Promise<unknown>;

/**
 * Creates the client of a generated API: `createApiClient(spotApi, { baseUrl })` with `spotApi`
 * from the `client.gen.ts` that `marketapi-codegen --client` wrote. Authentication follows each operation's `x-auth-class`: nothing for `none`;
 * the API key header (`authentication.apiKeyHeader`, `X-MBX-APIKEY` in this spec) for `market_data`
 * when an API key was given (it is not required); the header plus `timestamp` and an HMAC-SHA256
 * `signature` (computed over the exact bytes sent, appended last; the names are the spec's, from
 * `authentication.signing`) for `trade` and `user_data`. `recvWindow` is sent only to operations that declare
 * it. An operation whose credentials are missing throws `MissingCredentialsError` before anything
 * is sent.
 */
export function createApiClient<Table extends OperationTable, Types extends ApiTypes>(
  api: ApiDefinition<Table, Types>,
  options: ApiClientOptions<keyof Table & string> & { throwOnError: true },
): ApiClient<Types, "throw">;
export function createApiClient<Table extends OperationTable, Types extends ApiTypes>(
  api: ApiDefinition<Table, Types>,
  options: ApiClientOptions<keyof Table & string>,
): ApiClient<Types>;
export function createApiClient(
  api: ApiDefinition,
  options: ApiClientOptions,
): ApiClient<ApiTypes, "result" | "throw"> {
  const { apiKey, recvWindow, paramsIn = "query", now = Date.now, throwOnError, validateResponse } = options;
  if (typeof options.baseUrl !== "string") throw new TypeError("createApiClient: baseUrl must be a string");
  const { apiKeyHeader, signing } = api.authentication;
  const maxWindow = signing?.recvWindowMaximum ?? 0;
  if (recvWindow !== undefined && !(recvWindow > 0 && recvWindow <= maxWindow)) {
    throw new RangeError(
      `createApiClient: recvWindow must be within 1..${maxWindow} milliseconds, got ${recvWindow}`,
    );
  }
  const baseUrl = options.baseUrl.replace(/\/$/, "");
  const sign = options.apiSecret ? createSigner(options.apiSecret) : undefined;
  let middlewareInUse = false;
  const transport = deferredTransport(
    () => options.fetch ?? globalThis.fetch,
    () => middlewareInUse,
  );
  const base = createClient<{}>({ baseUrl, headers: options.headers, ...transport });
  const untyped = base as unknown as UntypedClient;
  const table: OperationTable = api.operationTable;
  const routes = new Map<string, string>();
  for (const id of Object.keys(table)) routes.set(`${table[id]!.method} ${table[id]!.path}`, id);

  const schemes = api.authentication.schemes ?? legacySchemes(apiKeyHeader, signing);
  const credentials: Credentials = {
    auth: options.auth ?? {},
    apiKey,
    bearerToken: options.bearerToken,
    hasSecret: sign !== undefined,
  };
  const wiresById = new Map<string, Map<string, ParameterWire>>();
  const wiresOf = (id: string, op: OperationWire) => {
    let wires = wiresById.get(id);
    if (!wires) {
      wires = new Map((op.parameters ?? []).map((wire) => [wire.name, wire]));
      for (const name of op.jsonEncoded)
        if (!wires.has(name)) wires.set(name, { name, in: "query", json: true });
      wiresById.set(id, wires);
    }
    return wires;
  };

  /**
   * Sends one operation. `params` holds its parameters by name, whatever their location; `form`
   * the parameters a call puts in the form body itself (path-based calls of `acceptsFormBody`
   * operations); `requestBody` the operation's own request body.
   */
  async function send(
    id: string,
    params: Params | undefined,
    form: Params | undefined,
    requestBody: { value: unknown } | undefined,
    init?: RawInit,
  ) {
    const op = table[id]!;
    const signedClass = op.authClass === "trade" || op.authClass === "user_data";
    if (signedClass && !signing)
      throw new TypeError(`${id} is signed, but the spec states no signing rule (x-signing)`);
    let alternatives = op.security ?? legacySecurity(op, schemes);
    if (signedClass) alternatives = alternatives.filter((a) => a.some((n) => schemes[n]?.type === "signing"));
    const choice = chooseRequirement(alternatives, schemes, credentials);
    if ("missing" in choice) {
      // Our vocabulary (authentication classes) only for an API that uses our signing rule.
      const requirement = signing
        ? `authentication class ${op.authClass}`
        : `security ${alternatives.map((names) => names.join(" + ")).join(" or ")}`;
      throw new MissingCredentialsError(id, requirement, choice.missing);
    }
    const applied = applyRequirement(choice.chosen, schemes, credentials);
    const signed = applied.signed && signing !== null;

    const windowName = signing?.recvWindowParameter;
    const acceptsWindow = windowName !== undefined && op.queryParameters.includes(windowName);
    if (init?.recvWindow !== undefined && !acceptsWindow) {
      throw new TypeError(`${id} does not accept recvWindow; only operations that declare it do`);
    }
    const wires = wiresOf(id, op);
    const header: Record<string, string> = {};
    const cookies: string[] = [];
    const pathValues: Record<string, unknown> = {};
    let search = "";
    for (const name in params) {
      const value = params[name];
      const wire = wires.get(name) ?? { name, in: "query" as const };
      if (wire.in === "path") pathValues[name] = value;
      else if (wire.in === "query") search = joinParams(search, queryPart(wire, value));
      else if (wire.in === "header") {
        const text = headerValue(wire, value);
        if (text !== undefined) header[name] = text;
      } else {
        const pair = cookiePair(wire, value);
        if (pair !== undefined) cookies.push(pair);
      }
    }
    let formText = "";
    for (const name in form)
      formText = joinParams(formText, queryPart(wires.get(name) ?? { name, in: "query" }, form[name]));
    for (const [name, value] of applied.query)
      search = joinParams(search, queryPart({ name, in: "query" }, value));
    for (const [name, value] of applied.cookies) cookies.push(cookiePair({ name, in: "cookie" }, value)!);
    if (op.accept) header.Accept = op.accept;
    Object.assign(header, applied.headers);
    if (cookies.length > 0) header.Cookie = cookies.join("; ");

    // A call that splits its parameters itself (query plus form body) keeps its split.
    const inForm = form !== undefined || (paramsIn === "body" && op.acceptsFormBody);
    if (inForm && form === undefined) {
      formText = search;
      search = "";
    }
    let body: BodyInit | undefined = inForm ? formText : undefined;
    let bodyText = inForm ? formText : "";
    if (inForm) header["Content-Type"] = FORM;
    if (requestBody !== undefined && requestBody.value !== undefined && op.body && !inForm) {
      const encoded = encodeBody(op.body, requestBody.value);
      body = encoded.body;
      bodyText = encoded.text ?? "";
      if (encoded.contentType) header["Content-Type"] = encoded.contentType;
      if (signed && encoded.text === undefined) {
        throw new TypeError(`${id} is signed, but its ${op.body.mediaType} body has no fixed bytes to sign`);
      }
    }
    if (signed && signing) {
      // The signing envelope goes to the part that carries the parameters; the signature comes last.
      const window = acceptsWindow ? (init?.recvWindow ?? recvWindow) : undefined;
      let envelope = `${signing.timestampParameter}=${formatDecimal(Math.floor(now()))}`;
      if (window !== undefined && params?.[windowName!] === undefined && form?.[windowName!] === undefined) {
        envelope = `${windowName}=${formatDecimal(window)}&${envelope}`;
      }
      if (inForm) bodyText = joinParams(bodyText, envelope);
      else search = joinParams(search, envelope);
      const signature = `${signing.signatureParameter}=${await sign!(search + bodyText)}`;
      if (inForm) bodyText += `&${signature}`;
      else search += `&${signature}`;
      if (inForm) body = bodyText;
    }

    const path = fillPath(op.path, wires, pathValues);
    const responseAs = op.responseAs ?? "json";
    const request: Record<string | symbol, unknown> = {
      params: { header },
      querySerializer: () => search,
      body,
      bodySerializer: passThrough,
      parseAs: responseAs === "none" ? "text" : responseAs,
    };
    if (init) for (const key in init) if (!(key in request) && key !== "recvWindow") request[key] = init[key];
    const result = await untyped.request(op.method, path, withRealRequest(request));
    if (responseAs === "none" && result.response.ok) result.data = undefined;

    if (validateResponse) {
      const payload = result.response.ok ? result.data : result.error;
      // A name in both parts takes the query value, as the server reads it.
      const request = { ...form, ...params };
      const operationId = op.operationId ?? id;
      const check = await validateResponse(operationId, result.response.status, payload, { request });
      if (!check.valid) throw new ResponseValidationError(id, result.response, payload, check.errors);
    }
    if (throwOnError && !result.response.ok) {
      const url = `${init?.baseUrl ?? baseUrl}${path}${search === "" ? "" : `?${search}`}`;
      throw new SpotApiError(op.method, url, result.response, result.error);
    }
    return result;
  }

  /** Path-based calls: operations of the spec get the same treatment as the per-operation methods. */
  function route(method: string, path: string, init?: RawInit): Promise<RawResult> {
    const id = routes.get(`${method} ${path}`);
    if (id === undefined) return untyped.request(method, path, init && withRealRequest({ ...init }));
    const op = table[id]!;
    const p = init?.params ?? {};
    const params = { ...p.path, ...p.header, ...p.cookie, ...p.query };
    if (op.acceptsFormBody) return send(id, params, init?.body as Params | undefined, undefined, init);
    return send(id, params, undefined, init && "body" in init ? { value: init.body } : undefined, init);
  }

  // `send` returns openapi-fetch's result for the operation's path and method, which is what the
  // generated methods' OperationResult<K> describes.
  const call: Caller = (id, params, callOptions) => {
    const op = table[id]!;
    if (op.body && !op.acceptsFormBody && params !== undefined && params !== null) {
      const { body, ...rest } = params as Params & { body?: unknown };
      return send(id, rest, undefined, { value: body }, callOptions as RawInit | undefined);
    }
    return send(id, params as Params | undefined, undefined, undefined, callOptions as RawInit | undefined);
  };
  const methods = (api.createOperationMethods as (call: Caller) => object)(call);
  const client = {
    ...base,
    use: (...middleware: Parameters<typeof base.use>) => {
      // Real Requests from now on, also after eject(): the middleware may have kept some.
      middlewareInUse = true;
      base.use(...middleware);
    },
    request: (method: string, path: string, init?: RawInit) => route(method.toUpperCase(), path, init),
    GET: (path: string, init?: RawInit) => route("GET", path, init),
    PUT: (path: string, init?: RawInit) => route("PUT", path, init),
    POST: (path: string, init?: RawInit) => route("POST", path, init),
    DELETE: (path: string, init?: RawInit) => route("DELETE", path, init),
    PATCH: (path: string, init?: RawInit) => route("PATCH", path, init),
    ...methods,
  };
  return client as unknown as ApiClient<ApiTypes, "result" | "throw">;
}

/** The schemes of a table generated before `schemes` existed: the API key header and the signing rule. */
function legacySchemes(
  apiKeyHeader: string | null,
  signing: SigningTable | null,
): Readonly<Record<string, SchemeWire>> {
  const schemes: Record<string, SchemeWire> = {};
  if (apiKeyHeader !== null) schemes.apiKey = { type: "apiKey", in: "header", name: apiKeyHeader };
  if (signing !== null) schemes.signature = { type: "signing" };
  return schemes;
}

/** The requirements an operation of an older table has, from its x-auth-class. */
function legacySecurity(
  op: OperationWire,
  schemes: Readonly<Record<string, SchemeWire>>,
): readonly (readonly string[])[] {
  const key = "apiKey" in schemes ? ["apiKey"] : [];
  if (op.authClass === "none") return [];
  if (op.authClass === "market_data") return [[], key];
  return [[...key, "signature"]];
}
