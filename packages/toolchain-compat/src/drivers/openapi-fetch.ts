// Every operation through openapi-typescript's types and openapi-fetch: the path-based call of
// the operation's method and path, with the planned query.
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "../generated/openapi-fetch/schema.js";
import { type CallOutcome, driverOf, SIGNED, WITH_JSON_PARAMETER } from "./driver.js";
import { signRequest } from "./signing.js";

let client: Client<paths> | undefined;

function api(): Client<paths> {
  if (!client) throw new Error("openapi-fetch driver: connect() first");
  return client;
}

type PathCall = (
  path: string,
  init: { params: { query: Record<string, unknown> } },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

export const openapiFetchDriver = driverOf({
  generator: "openapi-fetch",
  responseVariant: "RESULT",
  connect(context) {
    client = createClient<paths>({ baseUrl: context.baseUrl });
    client.use({ onRequest: ({ request }) => signRequest(request, context) });
  },
  async invoke(request) {
    // The JSON-encoded parameters go as their JSON text (the workaround below).
    const query = Object.fromEntries(
      request.arguments.map(({ parameter, value }) => [
        parameter.name,
        parameter.encoding === "json" ? JSON.stringify(value) : value,
      ]),
    );
    const method = request.operation.method.toUpperCase();
    const call = (api() as unknown as Record<string, PathCall>)[method];
    if (!call) throw new Error(`openapi-fetch has no ${method} call`);
    const result = await call(request.operation.path, { params: { query } });
    return {
      status: result.response.status,
      body: result.data ?? result.error,
      sent: query,
    } satisfies CallOutcome;
  },
  workarounds: [
    {
      key: "symbols",
      problem:
        "openapi-typescript types a `content: application/json` query parameter as `string` (the schema's array is not used)",
      fix: "pass `JSON.stringify([...])`; openapi-fetch percent-encodes it into the one query value the API expects",
      operations: WITH_JSON_PARAMETER,
    },
    {
      key: "signing",
      problem:
        "no generator reads `x-auth-class`/`x-signing`; the key header and the HMAC signature are not sent",
      fix: "`client.use({ onRequest })` middleware adds `X-MBX-APIKEY`, `timestamp` and `signature` (over the exact query string)",
      operations: SIGNED,
    },
  ],
});
