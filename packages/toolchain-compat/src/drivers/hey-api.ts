// Every operation through @hey-api/openapi-ts's SDK and its fetch client: the SDK function named
// after the operationId, with the planned query; where the operation takes a form body, the
// parameters the query string requires go there and the rest (and the signature) in the body.
import { client } from "../generated/hey-api/client.gen.js";
import * as sdk from "../generated/hey-api/sdk.gen.js";
import {
  argumentsOf,
  type CallOutcome,
  driverOf,
  generatedFunction,
  type PlannedArgument,
  SIGNED,
  WITH_JSON_PARAMETER,
} from "./driver.js";
import { signRequest } from "./signing.js";

type SdkCall = (options: {
  query?: object;
  body?: object;
  querySerializer?: (query: Record<string, unknown>) => string;
}) => Promise<{ data?: unknown; error?: unknown; response?: Response }>;

/** One query value holding JSON for arrays (the `symbols` encoding); the rest as usual. */
function jsonArrays(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    search.append(name, Array.isArray(value) ? JSON.stringify(value) : String(value));
  }
  return search.toString();
}

export const heyApiDriver = driverOf({
  generator: "hey-api",
  responseVariant: "FULL",
  connect(context) {
    client.setConfig({
      baseUrl: context.baseUrl,
      // The generated SDK knows the apiKey scheme: this callback is all the key needs.
      auth: (scheme) => (scheme.name === "X-MBX-APIKEY" ? context.apiKey : undefined),
    });
    client.interceptors.request.clear();
    client.interceptors.request.use((request) => signRequest(request, context));
  },
  async invoke(request) {
    const call = generatedFunction<SdkCall>(sdk, "hey-api", request.operation.operationId);
    const inBody = (a: PlannedArgument) => request.operation.acceptsFormBody && !a.parameter.required;
    const query = argumentsOf(request, (a) => !inBody(a));
    const body = argumentsOf(request, inBody);
    const hasJson = request.arguments.some((a) => a.parameter.encoding === "json");
    const result = await call({
      ...(Object.keys(query).length > 0 ? { query } : {}),
      ...(Object.keys(body).length > 0 ? { body } : {}),
      ...(hasJson ? { querySerializer: jsonArrays } : {}),
    });
    if (!result.response) throw new Error("hey-api driver: the request failed before any response");
    return {
      status: result.response.status,
      body: result.data ?? result.error,
      sent: { ...query, ...body },
    } satisfies CallOutcome;
  },
  workarounds: [
    {
      key: "symbols",
      problem:
        "`symbols` is typed `Array<SymbolName>` but sent as repeated keys (`symbols=A&symbols=B`), which the API refuses",
      fix: "a per-call `querySerializer` that writes an array as one JSON query value",
      operations: WITH_JSON_PARAMETER,
    },
    {
      key: "signing",
      problem:
        "the `auth` callback sends the key, but nothing computes `signature`, which covers the final query and form body",
      fix: "`client.interceptors.request.use()` adds `timestamp` and `signature` to the form body (or the query string without one)",
      operations: SIGNED,
    },
  ],
});
