import type { Pacer, WeightRule } from "@marketapi/pacer";
import type { Client, HeadersOptions, Middleware } from "openapi-fetch";
import {
  byDeadline,
  type CallPlan,
  conductCall,
  type Deadline,
  type Hold,
  type LookedUpResult,
  LostAnswer,
  loadLookUp,
  loadRecovery,
  type RawResult,
  type RetryEvent,
  type Signed,
  type Stalls,
} from "./call-conduct.js";
import type { ApiFacts, OperationFact, OperationFacts } from "./call-facts.js";
import { checkDecimalText } from "./decimal-text.js";
import { type FetchFunction, fetchDirect, mergeHeaders, type ParseAs } from "./direct-fetch.js";
import { MissingCredentialsError } from "./missing-credentials-error.js";
import type { UntypedClient } from "./openapi-fetch-path.js";
import type { ParameterWire } from "./parameter-styles.js";
import type { BodyWire } from "./request-body.js";
import { ResponseValidationError } from "./response-validation-error.js";
import { isIdempotent, type RetryOptions, retryPolicy } from "./retry-policy.js";
import type { applyRequirement, Credential, Credentials, SchemeWire } from "./security.js";
import type { ClockReader, ServerClock } from "./server-clock.js";
import { createSigner } from "./sign-payload.js";
import { SpotApiError } from "./spot-api-error.js";
import { formatDecimal, formatValue, joinParams, percentEncode } from "./wire-encoding.js";

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
  readonly createOperationMethods: (call: never, iterate: never) => unknown;
  /** What the client paces, retries, pages and types errors by (facts.gen.ts); absent in older generated APIs. */
  readonly operationFacts?: OperationFacts;
  readonly apiFacts?: ApiFacts;
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
   * `init` holding only what differs from fetch's defaults (no `method` for a GET, no `headers` when
   * there are none), `init.headers` a plain object with lower-case names; or as `fetch(request)`
   * once middleware is in use.
   */
  fetch?: FetchFunction;
  /** The clock for `timestamp`, in epoch milliseconds (default `Date.now`); set it to follow the server's time. */
  now?: () => number;
  /** Throw a `SpotApiError` on every non-2xx answer instead of returning `{ error }`. */
  throwOnError?: boolean;
  /**
   * What is retried, and how (README, "Retries"): by default 2 more sends after a 429 (after its
   * Retry-After), a 418 (after the ban), and, for idempotent requests, a 5xx, a timeout or a lost
   * connection; a request that changes state and whose outcome is unknown is looked up
   * (x-outcome-lookup) before any resend. `false` turns all of it off.
   */
  retry?: RetryOptions | false;
  /** Milliseconds each send may take before it counts as lost (default 10000; 0: no timeout). */
  timeoutMs?: number;
  /**
   * Paces every request by its weight (x-weight), the orders it places and the limits the pacer
   * keeps (`createPacer` of `@marketapi/pacer`); share one pacer between the clients of one address.
   */
  pacer?: Pacer;
  /**
   * Measure the server's clock (x-server-time) before the first signed request, and again after a
   * timestamp is refused (-1021), and sign with the corrected time.
   */
  syncClock?: boolean;
  /** Told of every wait and resend: a 429's Retry-After, a 418 ban, a lost answer, a lookup. */
  onRetry?: (event: RetryEvent) => void;
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
  /** Overrides the client's `timeoutMs` for each send of this call. */
  timeoutMs?: number;
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

type Params = Readonly<Record<string, unknown>>;

/** What every send of one operation shares: its credentials applied, its parameters' wire. */
interface Prepared {
  readonly applied: ReturnType<typeof applyRequirement>;
  readonly acceptsWindow: boolean;
  /** Every parameter the operation declares (plain query parameters too), by name. */
  readonly wires: ReadonlyMap<string, ParameterWire>;
  /** Whether the path has parameters to fill in. */
  readonly templated: boolean;
  /** The base address and the path, for a path without parameters. */
  readonly address: string;
  /** Accept and the credentials' headers: the operation's own headers of a call that adds none. */
  readonly ownHeaders: Record<string, string>;
  /** What fetch gets in init.headers for a send without a body or headers of its own; undefined: none. */
  readonly fetchHeaders: Record<string, string> | undefined;
}

/** openapi-fetch options as the path-based methods receive them, plus our `recvWindow`. */
interface RawInit {
  params?: { query?: Params; path?: Params; header?: Params; cookie?: Params };
  body?: unknown;
  headers?: HeadersOptions;
  baseUrl?: string;
  recvWindow?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  [option: string]: unknown;
}

/**
 * Options of a call that are not `fetch`'s: the client's own, and openapi-fetch's (a path-based
 * call's), and the method, which is the operation's. The rest (`credentials`, `cache`, …) go into
 * `fetch`'s init.
 */
const NOT_FETCH_OPTIONS =
  /^(?:recvWindow|timeoutMs|signal|params|body|headers|method|baseUrl|parseAs|querySerializer|bodySerializer|pathSerializer|middleware|fetch|Request)$/;

const FORM = "application/x-www-form-urlencoded";

/** Sends one operation; a generated `createOperationMethods` binds it to every operationId. */
type Caller = (operationId: string, params: unknown, options: CallOptions | undefined) => Promise<unknown>;

/** Iterates over a paged operation's items; a generated `createOperationMethods` binds it to each. */
type Iterator = (
  operationId: string,
  params: unknown,
  options: CallOptions | undefined,
) => AsyncIterableIterator<unknown>;

const DEFAULT_TIMEOUT_MS = 10_000;

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
  const { apiKey, recvWindow, paramsIn = "query", throwOnError, validateResponse } = options;
  const localNow = options.now ?? Date.now;
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
  // What `fetch` receives in init.headers starts from these: the client's `headers`, after the
  // Content-Type a body gets by default (openapi-fetch's order), merged once.
  const clientHeaders = mergeHeaders({}, options.headers);
  const clientHeadersWithBody = mergeHeaders({ "content-type": "application/json" }, options.headers);
  const fetchImpl: FetchFunction = (input, init) => (options.fetch ?? globalThis.fetch)(input, init);
  // openapi-fetch, loaded for middleware, a per-call fetch or middleware, and paths the spec does not name.
  const middlewares: Middleware[] = [];
  let openapiFetch: Promise<typeof import("./openapi-fetch-path.js")> | undefined;
  let loaded: UntypedClient | undefined;
  const loadOpenapiFetch = async () => {
    openapiFetch ??= import("./openapi-fetch-path.js");
    const path = await openapiFetch;
    loaded ??= path.openapiFetchClient(baseUrl, options.headers, fetchImpl, middlewares);
    return { client: loaded, sendEncoded: path.sendEncoded };
  };
  const table: OperationTable = api.operationTable;
  const routes = new Map<string, string>();
  for (const id of Object.keys(table)) routes.set(`${table[id]!.method} ${table[id]!.path}`, id);

  const credentials: Credentials = {
    auth: options.auth ?? {},
    apiKey,
    bearerToken: options.bearerToken,
    hasSecret: sign !== undefined,
  };
  const facts = api.operationFacts ?? {};
  const apiFacts = api.apiFacts;
  const policy = retryPolicy(options.retry);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  checkTimeout(timeoutMs, "timeoutMs");
  const clock = options.syncClock ? lazyClock(apiFacts, localNow) : undefined;
  const now = clock ? clock.now : localNow;
  const hold: Hold = { until: 0, reason: "" };
  const stalls: Stalls = { abortUntil: 0 };
  // Resends and lookups, loaded with the first call, so that they are there when a connection drops.
  let recoveryLoading: Promise<boolean> | undefined;
  let lookupLoading = false;
  // Whether sending an operation twice has the effect of sending it once (its method), by operationId.
  const idempotentById = new Map<string, boolean>();
  const idempotentOf = (id: string) => {
    const idempotent = isIdempotent(table[id]!.method);
    idempotentById.set(id, idempotent);
    return idempotent;
  };
  const environment = {
    policy,
    pacer: options.pacer,
    hold,
    stalls,
    account: apiKey ?? "",
    signingNow: now,
    remeasureClock: clock?.remeasure,
    invalidTimestampCode: apiFacts?.invalidTimestampCode ?? null,
    onRetry: options.onRetry,
    attempt: (plan: CallPlan, signal: AbortSignal | undefined, deadline: Deadline | undefined) => {
      const call = plan as PlannedCall;
      return attempt(call.operationId, call.sent, call.form, call.requestBody, call.init, signal, deadline);
    },
  };
  /** What a send of an operation needs that its options and the client's credentials fix: worked out once. */
  const preparedById = new Map<string, Prepared>();
  // The security schemes' rules are loaded with the first send, outside the default import.
  let security: Promise<typeof import("./security.js")> | undefined;
  const prepare = async (id: string, op: OperationWire): Promise<Prepared> => {
    security ??= import("./security.js");
    stylesLoading ??= import("./parameter-styles.js");
    const [{ applyRequirement, chooseRequirement, legacySchemes, legacySecurity }, loadedStyles] =
      await Promise.all([security, stylesLoading]);
    styles = loadedStyles;
    const schemes = api.authentication.schemes ?? legacySchemes(apiKeyHeader, signing);
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
    const wires = new Map((op.parameters ?? []).map((wire) => [wire.name, wire]));
    for (const name of op.jsonEncoded)
      if (!wires.has(name)) wires.set(name, { name, in: "query", json: true });
    for (const name of op.queryParameters) if (!wires.has(name)) wires.set(name, { name, in: "query" });
    const windowName = signing?.recvWindowParameter;
    const applied = applyRequirement(choice.chosen, schemes, credentials);
    const ownHeaders: Record<string, string> = op.accept ? { Accept: op.accept } : {};
    Object.assign(ownHeaders, applied.headers);
    const fetchHeaders = mergeHeaders({ ...clientHeaders }, ownHeaders);
    const facts: Prepared = {
      applied,
      acceptsWindow: windowName !== undefined && op.queryParameters.includes(windowName),
      wires,
      templated: op.path.includes("{"),
      address: baseUrl + op.path,
      ownHeaders,
      fetchHeaders: Object.keys(fetchHeaders).length > 0 ? fetchHeaders : undefined,
    };
    preparedById.set(id, facts);
    return facts;
  };

  /**
   * Sends one operation. `params` holds its parameters by name, whatever their location; `form`
   * the parameters a call puts in the form body itself (path-based calls of `acceptsFormBody`
   * operations); `requestBody` the operation's own request body.
   */
  function send(
    id: string,
    params: Params | undefined,
    form: Params | undefined,
    requestBody: { value: unknown } | undefined,
    init?: RawInit,
  ): Promise<RawResult | LookedUpResult> {
    const conducted = conduct(id, params, form, requestBody, init);
    // Most answers need neither a check nor an error thrown: no further step, not even a promise.
    if (!validateResponse && throwOnError !== true) return conducted;
    return conducted.then((result) =>
      !validateResponse && ("lookedUp" in result || result.response.ok)
        ? result
        : finish(id, result, params, form, init, throwOnError === true),
    );
  }

  /** Validates the answer (`validateResponse`), and throws a SpotApiError on an error answer when asked. */
  async function finish(
    id: string,
    result: RawResult | LookedUpResult,
    params: Params | undefined,
    form: Params | undefined,
    init: RawInit | undefined,
    throwing: boolean,
  ): Promise<RawResult | LookedUpResult> {
    if ("lookedUp" in result) return result;
    const op = table[id]!;
    if (validateResponse) {
      const payload = result.response.ok ? result.data : result.error;
      // A name in both parts takes the query value, as the server reads it.
      const request = { ...form, ...params };
      const check = await validateResponse(op.operationId ?? id, result.response.status, payload, {
        request,
      });
      if (!check.valid) throw new ResponseValidationError(id, result.response, payload, check.errors);
    }
    if (throwing && !result.response.ok) {
      // The URL the request went to, query string included (a fetch of one's own may leave it empty).
      const url = result.response.url || `${init?.baseUrl ?? baseUrl}${op.path}`;
      throw new SpotApiError(op.method, url, result.response, result.error);
    }
    return result;
  }

  /**
   * Sends one operation through the pacer and the retry policy: each attempt is encoded and signed
   * anew (a fresh timestamp). A request that changes state and has a lookup gets its key (a client
   * order id) here when the caller sent none, so that every resend and every lookup names it.
   * A fault of the call's own (a decimal text, a timeout) rejects, as every fault of a call does.
   */
  function conduct(
    id: string,
    params: Params | undefined,
    form: Params | undefined,
    requestBody: { value: unknown } | undefined,
    init: RawInit | undefined,
  ): Promise<RawResult | LookedUpResult> {
    // Not an async function: it would add two turns of promise resolution to every call.
    try {
      return conductPlanned(id, params, form, requestBody, init);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function conductPlanned(
    id: string,
    params: Params | undefined,
    form: Params | undefined,
    requestBody: { value: unknown } | undefined,
    init: RawInit | undefined,
  ): Promise<RawResult | LookedUpResult> {
    const fact = facts[id];
    const lookup = fact?.lookup;
    if (!recoveryLoading) {
      recoveryLoading = loadRecovery().then(
        () => true,
        () => false,
      );
    }
    let sent = params;
    if (lookup && policy.lookups) {
      if (!lookupLoading) {
        lookupLoading = true;
        loadLookUp().catch(() => {});
      }
      if (params?.[lookup.key] === undefined && form?.[lookup.key] === undefined)
        sent = { ...params, [lookup.key]: newKey() };
    }
    const all = form === undefined ? (sent ?? {}) : { ...form, ...sent };
    if (fact?.decimals) checkDecimalText(id, fact.decimals, all);
    if (init?.timeoutMs !== undefined) checkTimeout(init.timeoutMs, "timeoutMs");
    const plan = new PlannedCall(
      id,
      idempotentById.get(id) ?? idempotentOf(id),
      fact,
      all,
      init?.timeoutMs ?? timeoutMs,
      sent,
      form,
      requestBody,
      init,
    );
    return conductCall(plan, environment);
  }

  /**
   * One call as the conduct sees it, and what its sends encode. Its lookup and its key for an
   * unknown outcome are worked out only when asked for (after a lost answer), not per call.
   */
  class PlannedCall implements CallPlan {
    readonly weight: number | WeightRule;
    readonly orders: number;
    readonly signal: AbortSignal | undefined;
    constructor(
      readonly operationId: string,
      readonly idempotent: boolean,
      readonly fact: OperationFact | undefined,
      readonly params: Params,
      readonly timeoutMs: number,
      /** What a send encodes: the parameters (with the key the client set), a form, a body, the options. */
      readonly sent: Params | undefined,
      readonly form: Params | undefined,
      readonly requestBody: { value: unknown } | undefined,
      readonly init: RawInit | undefined,
    ) {
      this.weight = fact?.weight ?? 1;
      this.orders = fact?.orders ?? 0;
      this.signal = init?.signal;
    }

    get lookup() {
      const fact = this.fact?.lookup;
      if (!fact) return undefined;
      const run = () => {
        const lookupParams: Record<string, unknown> = {};
        for (const [name, from] of Object.entries(fact.parameters)) lookupParams[name] = this.params[from];
        return conduct(fact.operation, lookupParams, undefined, undefined, {
          signal: this.signal,
        }) as Promise<RawResult>;
      };
      return { fact, run };
    }

    get outcome() {
      const key = this.fact?.lookup?.key;
      const value = key === undefined ? undefined : this.params[key];
      return {
        operationId: this.operationId,
        key: key !== undefined && value != null ? { name: key, value: String(value) } : undefined,
      };
    }
  }

  /** One send: encoded, authenticated and signed now. Rejects with a LostAnswer when no answer came. */
  async function attempt(
    id: string,
    params: Params | undefined,
    form: Params | undefined,
    requestBody: { value: unknown } | undefined,
    init: RawInit | undefined,
    signal: AbortSignal | undefined,
    deadline: Deadline | undefined,
  ): Promise<{ result: RawResult; signed?: Signed }> {
    const op = table[id]!;
    const prepared = preparedById.get(id) ?? (await prepare(id, op));
    const { applied, acceptsWindow, wires, templated } = prepared;
    const signed = applied.signed && signing !== null;
    const windowName = signing?.recvWindowParameter;
    if (init?.recvWindow !== undefined && !acceptsWindow) {
      throw new TypeError(`${id} does not accept recvWindow; only operations that declare it do`);
    }
    // Header and cookie parameters, when the call has any (most have none: no object for them).
    let header: Record<string, string> | undefined;
    let cookies: string[] | undefined;
    let search = "";
    for (const name in params) {
      const value = params[name];
      const wire = wires.get(name);
      // Path parameters are filled into the path's template below.
      if (wire === undefined || wire.in === "query")
        search = joinParams(search, queryPartOf(wire, name, value));
      else if (wire.in === "header") {
        const text = styles!.headerValue(wire, value);
        if (text !== undefined) {
          header ??= {};
          header[name] = text;
        }
      } else if (wire.in === "cookie") {
        const pair = styles!.cookiePair(wire, value);
        if (pair !== undefined) {
          cookies ??= [];
          cookies.push(pair);
        }
      }
    }
    let formText = "";
    for (const name in form) formText = joinParams(formText, queryPartOf(wires.get(name), name, form[name]));
    for (const [name, value] of applied.query)
      search = joinParams(search, queryPartOf(undefined, name, value));
    for (const [name, value] of applied.cookies) {
      cookies ??= [];
      cookies.push(styles!.cookiePair({ name, in: "cookie" }, value)!);
    }

    // A call that splits its parameters itself (query plus form body) keeps its split.
    const inForm = form !== undefined || (paramsIn === "body" && op.acceptsFormBody);
    if (inForm && form === undefined) {
      formText = search;
      search = "";
    }
    let body: BodyInit | undefined = inForm ? formText : undefined;
    let bodyText = inForm ? formText : "";
    let contentType = inForm ? FORM : undefined;
    if (requestBody !== undefined && requestBody.value !== undefined && op.body && !inForm) {
      // Loaded for the first body: most specs of this kind send their parameters in the query or a form.
      const { encodeBody } = await import("./request-body.js");
      const encoded = encodeBody(op.body, requestBody.value);
      body = encoded.body;
      bodyText = encoded.text ?? "";
      if (encoded.contentType) contentType = encoded.contentType;
      if (signed && encoded.text === undefined) {
        throw new TypeError(`${id} is signed, but its ${op.body.mediaType} body has no fixed bytes to sign`);
      }
    }
    let signedAs: Signed | undefined;
    if (signed && signing) {
      // Without syncClock there is no clock to wait for, and no promise turn to spend on it.
      if (clock) await clock.ready();
      // The signing envelope goes to the part that carries the parameters; the signature comes last.
      const window = acceptsWindow ? (init?.recvWindow ?? recvWindow) : undefined;
      const timestamp = Math.floor(now());
      const sentWindow = Number(params?.[windowName!] ?? form?.[windowName!] ?? window);
      signedAs = {
        timestamp,
        window: Number.isFinite(sentWindow) ? sentWindow : (apiFacts?.recvWindowDefault ?? maxWindow),
      };
      let envelope = `${signing.timestampParameter}=${formatDecimal(timestamp)}`;
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

    const path = templated ? styles!.fillPath(op.path, wires, params ?? {}) : op.path;
    const responseAs = op.responseAs ?? "json";
    const parseAs: ParseAs = responseAs === "none" ? "text" : responseAs;
    const query = search === "" ? "" : `?${search}`;
    const url =
      init?.baseUrl !== undefined || templated
        ? `${init?.baseUrl?.replace(/\/$/, "") ?? baseUrl}${path}${query}`
        : prepared.address + query;
    // The operation's own headers: its header parameters, Accept, the credentials', Cookie and Content-Type.
    const plainHeaders = header === undefined && cookies === undefined && contentType === undefined;
    const own = plainHeaders ? prepared.ownHeaders : { ...header, ...prepared.ownHeaders };
    if (cookies !== undefined) own.Cookie = cookies.join("; ");
    if (contentType !== undefined) own["Content-Type"] = contentType;
    let result: RawResult;
    try {
      if (middlewares.length > 0 || init?.middleware || init?.fetch) {
        const { client, sendEncoded } = await loadOpenapiFetch();
        const request = { method: op.method, path, search, header: own, body };
        result = await byDeadline(sendEncoded(client, request, parseAs, init, signal), deadline);
      } else {
        // fetch gets only what differs from its defaults: each member of init costs it work
        // (a GET without headers is `fetch(url, {})`, as cheap as `fetch(url)`).
        const requestInit: Record<string, unknown> = {};
        if (init) for (const key in init) if (!NOT_FETCH_OPTIONS.test(key)) requestInit[key] = init[key];
        if (op.method !== "GET") requestInit.method = op.method;
        // The client's own headers are merged once (with and without the JSON default), and with
        // the operation's own for a send without per-call headers or a body; a send copies them.
        const headers =
          plainHeaders && body === undefined && init?.headers === undefined
            ? prepared.fetchHeaders && { ...prepared.fetchHeaders }
            : mergeHeaders(
                {
                  ...(body === undefined || body instanceof FormData ? clientHeaders : clientHeadersWithBody),
                },
                init?.headers,
                own,
              );
        if (headers !== undefined)
          for (const _ in headers) {
            requestInit.headers = headers;
            break;
          }
        if (body !== undefined) requestInit.body = body;
        if (signal) requestInit.signal = signal;
        result = await byDeadline(fetchDirect(fetchImpl, url, requestInit as RequestInit, parseAs), deadline);
      }
    } catch (error) {
      throw new LostAnswer(error, signedAs);
    }
    if (responseAs === "none" && result.response.ok) result.data = undefined;
    return signedAs ? { result, signed: signedAs } : { result };
  }

  /** Path-based calls: operations of the spec get the same treatment as the per-operation methods. */
  function route(method: string, path: string, init?: RawInit): Promise<RawResult> {
    const id = routes.get(`${method} ${path}`);
    if (id === undefined) return loadOpenapiFetch().then(({ client }) => client.request(method, path, init));
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
  /** The data of a call's answer (or its lookup's); an error answer throws a SpotApiError. */
  const dataOf = async (id: string, params: Params | undefined, init: RawInit | undefined) => {
    const result = await finish(
      id,
      await conduct(id, params, undefined, undefined, init),
      params,
      undefined,
      init,
      true,
    );
    return "lookedUp" in result ? result.lookedUp : result.data;
  };
  clock?.bind((id) => dataOf(id, undefined, undefined));
  const iterate: Iterator = (id, params, callOptions) => {
    // Generated methods have `iterate` only where the facts state paging.
    const paging = facts[id]!.paging!;
    const read = (page: Params) => dataOf(id, page, callOptions as RawInit | undefined);
    return (async function* () {
      const { pageItems } = await import("./paging.js");
      yield* pageItems(id, paging, params as Params | undefined, read, now);
    })();
  };
  const methods = (api.createOperationMethods as (call: Caller, iterate: Iterator) => object)(call, iterate);
  const byPath = (method: string) => (path: string, init?: RawInit) => route(method, path, init);
  const client = {
    use(...added: Middleware[]) {
      for (const middleware of added) {
        if (!middleware) continue;
        if (
          typeof middleware !== "object" ||
          !("onRequest" in middleware || "onResponse" in middleware || "onError" in middleware)
        )
          throw new TypeError("Middleware must be an object with onRequest, onResponse or onError");
        middlewares.push(middleware);
      }
      loaded?.use(...added);
    },
    eject(...removed: Middleware[]) {
      for (const middleware of removed) {
        const i = middlewares.indexOf(middleware);
        if (i !== -1) middlewares.splice(i, 1);
      }
      loaded?.eject(...removed);
    },
    request: (method: string, path: string, init?: RawInit) => route(method.toUpperCase(), path, init),
    ...Object.fromEntries(HTTP_METHODS.map((method) => [method, byPath(method)])),
    ...methods,
  };
  return client as unknown as ApiClient<ApiTypes, "result" | "throw">;
}

/** openapi-fetch's path-based call names. */
const HTTP_METHODS = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"];

/** A key that names one request's result (a client order id): 32 random hex digits. */
function newKey(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/**
 * How parameters are written by their style (parameter-styles.ts): loaded with the first send of a
 * client (with the security rules), outside the default import. A scalar of a plain query
 * parameter, the common case, needs none of it.
 */
let stylesLoading: Promise<typeof import("./parameter-styles.js")> | undefined;
let styles: typeof import("./parameter-styles.js") | undefined;

/** `name=value` of a query (or form body) parameter; "" when it has no value. */
function queryPartOf(wire: ParameterWire | undefined, name: string, value: unknown): string {
  if (value === undefined || value === null) return "";
  const plain = wire === undefined || (!wire.json && !wire.allowReserved);
  if (plain && (typeof value !== "object" || value instanceof Date))
    return `${percentEncode(name)}=${percentEncode(formatValue(name, value, false))}`;
  return styles!.queryPart(wire ?? { name, in: "query" }, value);
}

function checkTimeout(value: number, name: string): void {
  if (!(value >= 0)) throw new RangeError(`${name} must be a number of ms, at least 0, got ${value}`);
}

/**
 * `syncClock`: the server's clock (x-server-time), whose module is loaded with the first
 * measurement, outside the default import.
 */
function lazyClock(apiFacts: ApiFacts | undefined, localNow: () => number) {
  let read: ClockReader | undefined;
  let clock: ServerClock | undefined;
  const loaded = async () =>
    (clock ??= (await import("./server-clock.js")).serverClock(localNow, apiFacts?.clock ?? null, read!));
  return {
    now: () => (clock ? clock.now() : localNow()),
    ready: async () => (await loaded()).ready(),
    remeasure: async () => (await loaded()).remeasure(),
    bind(reader: ClockReader) {
      read = reader;
    },
  };
}
