// A request the client has fully encoded goes straight to `fetch(url, init)`, and its answer is read
// as openapi-fetch reads it ({ data } / { error }). openapi-fetch itself is loaded only for what
// needs it (middleware, a per-call fetch, paths the spec does not name): in the default import it
// cost more than the rest of the runtime, and most of the time of a call on loopback.

import type { HeadersOptions } from "openapi-fetch";

/** The fetch the client sends with: the standard signature. */
export type FetchFunction = (input: string | Request, init?: RequestInit) => Promise<Response>;

/** How a success answer is read. */
export type ParseAs = "json" | "text" | "blob" | "stream";

/** Request headers as `fetch` receives them in `init.headers`: a plain object, names in lower case. */
export type HeaderRecord = Record<string, string>;

/**
 * Merges headers into `into`, in order, as openapi-fetch merges them (and as a `Headers` object
 * would): names compared in lower case, `null` removes a name, a list appends each value (joined
 * with ", ", as `Headers` joins them), `undefined` is skipped.
 */
export function mergeHeaders(into: HeaderRecord, ...all: (HeadersOptions | undefined)[]): HeaderRecord {
  for (const headers of all) {
    if (!headers || typeof headers !== "object") continue;
    const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
    for (const [key, value] of entries as Iterable<[string, unknown]>) {
      const name = key.toLowerCase();
      if (value === null) delete into[name];
      else if (Array.isArray(value))
        for (const item of value) into[name] = name in into ? `${into[name]}, ${item}` : String(item);
      else if (value !== undefined) into[name] = String(value);
    }
  }
  return into;
}

/** Sends the request and reads the answer: `{ data, response }` on 2xx, `{ error, response }` otherwise. */
export async function fetchDirect(
  fetchImpl: FetchFunction,
  url: string,
  init: RequestInit,
  parseAs: ParseAs,
): Promise<{ data?: unknown; error?: unknown; response: Response }> {
  const response = await fetchImpl(url, init);
  // A JSON answer, the common case, is read as text: empty (however framed) is no data, so its
  // headers need not be read.
  if (parseAs === "json" && response.ok && response.status !== 204 && init.method !== "HEAD") {
    const text = await response.text();
    return { data: text ? JSON.parse(text) : undefined, response };
  }
  const length = response.headers.get("Content-Length");
  if (
    response.status === 204 ||
    init.method === "HEAD" ||
    (length === "0" && !response.headers.get("Transfer-Encoding")?.includes("chunked"))
  )
    return response.ok ? { data: undefined, response } : { error: undefined, response };
  if (response.ok) {
    if (parseAs === "stream") return { data: response.body, response };
    if (parseAs === "json" && !length) {
      const text = await response.text();
      return { data: text ? JSON.parse(text) : undefined, response };
    }
    return { data: await response[parseAs](), response };
  }
  let error: unknown = await response.text();
  try {
    error = JSON.parse(error as string);
  } catch {}
  return { error, response };
}
