// Which credentials a request carries: the operation's security requirements (alternatives of
// schemes, as the spec lists them) against the credentials the client was given.

/** A security scheme as a generated `authentication.schemes` states it. */
export type SchemeWire =
  | { readonly type: "apiKey"; readonly in: "header" | "query" | "cookie"; readonly name: string }
  | { readonly type: "http"; readonly scheme: string }
  | { readonly type: "oauth2" | "openIdConnect" }
  /** A client certificate: presented by the TLS connection of the `fetch` the client is given. */
  | { readonly type: "mutualTLS" }
  /** The spec's signing rule (x-signing): timestamp and signature, keyed by the API secret. */
  | { readonly type: "signing" };

/** A username and password for an HTTP basic scheme. */
export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

/** The credential of one scheme: a key or token, or a username and password (HTTP basic). */
export type Credential = string | BasicCredentials;

/** The credentials of the client: by scheme name, and the shorthands of the options. */
export interface Credentials {
  readonly auth: Readonly<Record<string, Credential | undefined>>;
  /** For every apiKey scheme without its own entry in `auth`. */
  readonly apiKey: string | undefined;
  /** For every bearer, OAuth 2 and OpenID Connect scheme without its own entry in `auth`. */
  readonly bearerToken: string | undefined;
  readonly hasSecret: boolean;
}

/** What a request adds for its credentials. */
export interface Applied {
  headers: Record<string, string>;
  query: [string, string][];
  cookies: [string, string][];
  signed: boolean;
}

/** What the option that supplies a scheme's credential is called, for MissingCredentialsError. */
export function optionFor(name: string, scheme: SchemeWire | undefined): string {
  if (scheme?.type === "signing") return "apiSecret";
  if (scheme?.type === "apiKey") return "apiKey";
  if (scheme?.type === "oauth2" || scheme?.type === "openIdConnect") return "bearerToken";
  if (scheme?.type === "http" && scheme.scheme.toLowerCase() === "bearer") return "bearerToken";
  return `auth.${name}`;
}

function credentialOf(
  name: string,
  scheme: SchemeWire | undefined,
  given: Credentials,
): Credential | undefined {
  const own = given.auth[name];
  if (own !== undefined && own !== "") return own;
  if (scheme?.type === "apiKey") return given.apiKey || undefined;
  if (scheme?.type === "signing") return given.hasSecret ? "secret" : undefined;
  if (scheme?.type === "mutualTLS") return "certificate of the fetch";
  const bearer =
    scheme?.type === "oauth2" ||
    scheme?.type === "openIdConnect" ||
    (scheme?.type === "http" && scheme.scheme.toLowerCase() === "bearer");
  return bearer ? given.bearerToken || undefined : undefined;
}

/**
 * The alternative a request uses: of those whose every scheme has a credential, the one with the
 * most schemes (so an optional API key is sent when the client has one), the first on a tie.
 * Returns the missing option names of the first alternative when none can be met.
 */
export function chooseRequirement(
  alternatives: readonly (readonly string[])[],
  schemes: Readonly<Record<string, SchemeWire>>,
  given: Credentials,
): { chosen: readonly string[] } | { missing: string[] } {
  let best: readonly string[] | undefined;
  for (const alternative of alternatives) {
    const met = alternative.every((name) => credentialOf(name, schemes[name], given) !== undefined);
    if (met && (best === undefined || alternative.length > best.length)) best = alternative;
  }
  if (best !== undefined || alternatives.length === 0) return { chosen: best ?? [] };
  const first = alternatives[0]!;
  const missing = first
    .filter((name) => credentialOf(name, schemes[name], given) === undefined)
    .map((name) => optionFor(name, schemes[name]));
  return { missing: [...new Set(missing)] };
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The headers, query parameters and cookies of the chosen schemes (the signature is added later). */
export function applyRequirement(
  chosen: readonly string[],
  schemes: Readonly<Record<string, SchemeWire>>,
  given: Credentials,
): Applied {
  const applied: Applied = { headers: {}, query: [], cookies: [], signed: false };
  for (const name of chosen) {
    const scheme = schemes[name];
    const credential = credentialOf(name, scheme, given);
    if (scheme === undefined || credential === undefined) continue;
    if (scheme.type === "signing") {
      applied.signed = true;
      continue;
    }
    if (scheme.type === "mutualTLS") continue;
    if (scheme.type === "apiKey") {
      const key = typeof credential === "string" ? credential : credential.password;
      if (scheme.in === "header") applied.headers[scheme.name] = key;
      else if (scheme.in === "query") applied.query.push([scheme.name, key]);
      else applied.cookies.push([scheme.name, key]);
      continue;
    }
    if (scheme.type === "http" && scheme.scheme.toLowerCase() === "basic") {
      const pair =
        typeof credential === "string" ? credential : `${credential.username}:${credential.password}`;
      applied.headers.Authorization = `Basic ${base64(pair)}`;
      continue;
    }
    const token = typeof credential === "string" ? credential : credential.password;
    const kind = scheme.type === "http" ? scheme.scheme : "Bearer";
    applied.headers.Authorization = `${kind.toLowerCase() === "bearer" ? "Bearer" : kind} ${token}`;
  }
  return applied;
}

/** The schemes of a table generated before `schemes` existed: the API key header and the signing rule. */
export function legacySchemes(
  apiKeyHeader: string | null,
  signing: object | null,
): Readonly<Record<string, SchemeWire>> {
  const schemes: Record<string, SchemeWire> = {};
  if (apiKeyHeader !== null) schemes.apiKey = { type: "apiKey", in: "header", name: apiKeyHeader };
  if (signing !== null) schemes.signature = { type: "signing" };
  return schemes;
}

/** The requirements an operation of an older table has, from its x-auth-class. */
export function legacySecurity(
  op: { readonly authClass: string },
  schemes: Readonly<Record<string, SchemeWire>>,
): readonly (readonly string[])[] {
  const key = "apiKey" in schemes ? ["apiKey"] : [];
  if (op.authClass === "none") return [];
  if (op.authClass === "market_data") return [[], key];
  return [[...key, "signature"]];
}
