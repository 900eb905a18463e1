// The fetch orval's generated functions call (its `mutator` option): orval emits paths relative to
// no base URL and knows nothing of keys or signatures, so this is where both are added.
import { signedFetch } from "./signing.js";

let target: { baseUrl: string; apiKey: string; apiSecret: string } | undefined;

/** Points the generated functions at a server, with the credentials to send. */
export function configureOrval(options: { baseUrl: string; apiKey: string; apiSecret: string }): void {
  target = options;
}

export async function orvalFetch<T>(url: string, init: RequestInit): Promise<T> {
  if (!target) throw new Error("orvalFetch: call configureOrval({ baseUrl, apiKey, apiSecret }) first");
  const request = new Request(`${target.baseUrl}${url}`, init);
  const response = await signedFetch(request, target);
  const text = await response.text();
  return {
    data: text === "" ? undefined : JSON.parse(text),
    status: response.status,
    headers: response.headers,
  } as T;
}
