// HMAC-SHA256 request signatures through WebCrypto (`crypto.subtle`), so the same code runs in
// Node ≥ 20 and in browsers (which offer crypto.subtle in secure contexts only: https or localhost).

const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Signs payloads with one secret; the WebCrypto key is imported once, on the first call. */
export function createSigner(secret: string): (payload: string) => Promise<string> {
  let importing: Promise<CryptoKey> | undefined;
  let key: CryptoKey | undefined;
  return async (payload) => {
    if (key === undefined) {
      importing ??= subtle().importKey(
        "raw",
        encoder.encode(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      key = await importing;
    }
    const mac = new Uint8Array(await subtle().sign("HMAC", key, encoder.encode(payload)));
    let hex = "";
    for (const byte of mac) hex += HEX[byte];
    return hex;
  };
}

/**
 * The request signature of the API: HMAC-SHA256 of `payload` (the query string as sent, followed
 * directly by the form body as sent) keyed with the UTF-8 bytes of `secret`, as 64 lower-case hex
 * characters.
 */
export function signPayload(payload: string, secret: string): Promise<string> {
  return createSigner(secret)(payload);
}

function subtle(): SubtleCrypto {
  const found = globalThis.crypto?.subtle;
  if (!found) {
    throw new Error(
      "signing needs WebCrypto (crypto.subtle): use Node ≥ 20, or a browser page served over https or localhost",
    );
  }
  return found;
}
