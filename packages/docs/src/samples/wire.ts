// Percent-encoding as the samples write it on the wire: RFC 3986, every character but the
// unreserved ones (A–Z a–z 0–9 - . _ ~) encoded. This is what @marketapi/client sends and what
// Python's urllib.parse.urlencode writes, so the three languages send the same bytes.

export function percentEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `name=value&…` from pairs of unencoded text. */
export function formEncode(pairs: readonly (readonly [string, string])[]): string {
  return pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join("&");
}
