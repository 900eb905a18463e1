import createClient, { type Client, type HeadersOptions } from "openapi-fetch";
import { deferredTransport, type FetchFunction, REAL_REQUEST } from "./deferred-request.js";
import { MissingCredentialsError } from "./missing-credentials-error.js";
import { ResponseValidationError } from "./response-validation-error.js";
import { createSigner } from "./sign-payload.js";
import { SpotApiError } from "./spot-api-error.js";
import { encodeParams, formatDecimal, joinParams } from "./wire-encoding.js";

/** How one operation travels on the wire: an entry of a generated `operations.gen.ts`. */
export interface OperationWire {
  readonly method: string;
  readonly path: string;
  /** The operation's `x-auth-class`. */
  readonly authClass: "none" | "market_data" | "trade" | "user_data";
  readonly queryParameters: readonly string[];
  readonly jsonEncoded: readonly string[];
  readonly acceptsFormBody: boolean;
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
  params?: { query?: Params };
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

  async function send(id: string, query: Params | undefined, body: Params | undefined, init?: RawInit) {
    const op = table[id]!;
    const signed = op.authClass === "trade" || op.authClass === "user_data";
    const header: Record<string, string> = {};
    if (signed) {
      const missing: ("apiKey" | "apiSecret")[] = [];
      if (!apiKey) missing.push("apiKey");
      if (!sign) missing.push("apiSecret");
      if (missing.length > 0) throw new MissingCredentialsError(id, op.authClass, missing);
    }
    if (signed && !signing)
      throw new TypeError(`${id} is signed, but the spec states no signing rule (x-signing)`);
    if (apiKey && apiKeyHeader && op.authClass !== "none") header[apiKeyHeader] = apiKey;
    const windowName = signing?.recvWindowParameter;
    const acceptsWindow = windowName !== undefined && op.queryParameters.includes(windowName);
    if (init?.recvWindow !== undefined && !acceptsWindow) {
      throw new TypeError(`${id} does not accept recvWindow; only operations that declare it do`);
    }
    let search = encodeParams(query, op.jsonEncoded);
    let form = body === undefined ? "" : encodeParams(body, op.jsonEncoded);
    // A call that splits its parameters itself (query plus body) keeps its split.
    const inBody = body !== undefined || (paramsIn === "body" && op.acceptsFormBody);
    if (inBody && body === undefined) {
      form = search;
      search = "";
    }
    if (signed && signing) {
      // The signing envelope goes to the part that carries the parameters; the signature comes last.
      const window = acceptsWindow ? (init?.recvWindow ?? recvWindow) : undefined;
      let envelope = `${signing.timestampParameter}=${formatDecimal(Math.floor(now()))}`;
      if (window !== undefined && query?.[windowName!] === undefined && body?.[windowName!] === undefined) {
        envelope = `${windowName}=${formatDecimal(window)}&${envelope}`;
      }
      if (inBody) form = joinParams(form, envelope);
      else search = joinParams(search, envelope);
      const signature = `${signing.signatureParameter}=${await sign!(search + form)}`;
      if (inBody) form += `&${signature}`;
      else search += `&${signature}`;
    }
    if (inBody) header["Content-Type"] = FORM;

    const request: Record<string | symbol, unknown> = {
      params: { header },
      querySerializer: () => search,
      body: inBody ? form : undefined,
      bodySerializer: passThrough,
    };
    if (init) for (const key in init) if (!(key in request) && key !== "recvWindow") request[key] = init[key];
    const result = await untyped.request(op.method, op.path, withRealRequest(request));

    if (validateResponse) {
      const payload = result.response.ok ? result.data : result.error;
      // A name in both parts takes the query value, as the server reads it.
      const request = { ...body, ...query };
      const check = await validateResponse(id, result.response.status, payload, { request });
      if (!check.valid) throw new ResponseValidationError(id, result.response, payload, check.errors);
    }
    if (throwOnError && !result.response.ok) {
      const url = `${init?.baseUrl ?? baseUrl}${op.path}${search === "" ? "" : `?${search}`}`;
      throw new SpotApiError(op.method, url, result.response, result.error);
    }
    return result;
  }

  /** Path-based calls: operations of the spec get the same treatment as the per-operation methods. */
  function route(method: string, path: string, init?: RawInit): Promise<RawResult> {
    const id = routes.get(`${method} ${path}`);
    if (id === undefined) return untyped.request(method, path, init && withRealRequest({ ...init }));
    return send(id, init?.params?.query, init?.body as Params | undefined, init);
  }

  // `send` returns openapi-fetch's result for the operation's path and method, which is what the
  // generated methods' OperationResult<K> describes.
  const call: Caller = (id, params, callOptions) =>
    send(id, params as Params | undefined, undefined, callOptions as RawInit | undefined);
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
