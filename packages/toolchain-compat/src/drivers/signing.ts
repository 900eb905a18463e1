// The signing middleware every third-party client needs: none of the generators reads
// `x-auth-class` or `x-signing`, so a request is given the API key and, for the trade and
// user_data classes, `timestamp` and an HMAC-SHA256 `signature` over the exact bytes sent,
// appended last to the part that carries the parameters (the form body when there is one).
import { createHmac } from "node:crypto";
import { loadOpenApi } from "@marketapi/spec";
import { type AuthClass, buildSpecModel } from "@marketapi/spec/model";

export interface Credentials {
  apiKey: string;
  apiSecret: string;
}

const model = buildSpecModel(loadOpenApi());
if (!model.signing?.apiKeyHeader) throw new Error("signing: the bundled spec states no signing rule");
const rule = model.signing;
const apiKeyHeader = rule.apiKeyHeader as string;

/** x-auth-class by "METHOD /path", read once from the bundled spec. */
const authClasses: ReadonlyMap<string, AuthClass> = new Map(
  model.operations.map((operation) => [
    `${operation.method.toUpperCase()} ${operation.path}`,
    operation.authClass,
  ]),
);

export function authClassOf(request: Request): AuthClass {
  const found = authClasses.get(`${request.method} ${new URL(request.url).pathname}`);
  if (!found) throw new Error(`signing: ${request.method} ${request.url} is not an operation of the spec`);
  return found;
}

const join = (left: string, right: string) => (left === "" ? right : `${left}&${right}`);

/** The request with the credentials its operation's x-auth-class asks for. */
export async function signRequest(
  request: Request,
  credentials: Credentials,
  now = Date.now,
): Promise<Request> {
  const authClass = authClassOf(request);
  if (authClass === "none") return request;
  const headers = new Headers(request.headers);
  headers.set(apiKeyHeader, credentials.apiKey);
  if (authClass === "market_data") return new Request(request, { headers });
  const url = new URL(request.url);
  let query = url.search.replace(/^\?/, "");
  let body = request.body === null ? "" : await request.clone().text();
  const sign = (payload: string) =>
    `${rule.signatureParameter}=${createHmac("sha256", credentials.apiSecret).update(payload).digest("hex")}`;
  const envelope = `${rule.timestampParameter}=${Math.floor(now())}`;
  if (body !== "") {
    body = join(body, envelope);
    body = join(body, sign(query + body));
  } else {
    query = join(query, envelope);
    query = join(query, sign(query));
  }
  return new Request(`${url.origin}${url.pathname}?${query}`, {
    method: request.method,
    headers,
    ...(body === "" ? {} : { body }),
  });
}

/** fetch with signRequest applied. */
export async function signedFetch(request: Request, credentials: Credentials): Promise<Response> {
  return fetch(await signRequest(request, credentials));
}
