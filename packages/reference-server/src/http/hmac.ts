/**
 * HMAC-SHA256 of a signed payload, as RFC 2104 defines it: SHA256((K ^ opad) || SHA256((K ^ ipad) || m)).
 * Every signed request computes one. A `createHmac` object per request looks the digest up in
 * OpenSSL, hashes both key pads again and builds a stream object; here the pads are made once per
 * secret and each request costs two one-shot digests. That form needs the payload's bytes as
 * UTF-8 text, which they are when every character is ASCII (payloads hold the received bytes as
 * latin1 characters) and the key pads are ASCII too; anything else goes through `createHmac`.
 */
import { createHash, createHmac, createSecretKey, hash, type KeyObject } from "node:crypto";

/** SHA-256 reads its input in blocks of 64 bytes: a key is padded (or first hashed) to one block. */
const BLOCK_BYTES = 64;
const DIGEST_BYTES = 32;
const INNER_PAD = 0x36;
const OUTER_PAD = 0x5c;
const NON_ASCII = /[\u0080-\uffff]/;

/** One API secret, ready to sign with. */
export class HmacKey {
  private readonly key: KeyObject;
  /** The key XOR ipad as ASCII text; undefined when the one-shot form does not apply. */
  private readonly innerPad: string | undefined;
  /** The key XOR opad, then room for the inner digest: the outer digest's whole input. */
  private readonly outerInput: Buffer;

  constructor(secret: string) {
    this.key = createSecretKey(secret, "utf8");
    const bytes = Buffer.from(secret, "utf8");
    const block = Buffer.alloc(BLOCK_BYTES);
    (bytes.length > BLOCK_BYTES ? createHash("sha256").update(bytes).digest() : bytes).copy(block);
    const inner = block.map((byte) => byte ^ INNER_PAD);
    this.outerInput = Buffer.alloc(BLOCK_BYTES + DIGEST_BYTES);
    for (let i = 0; i < BLOCK_BYTES; i += 1) this.outerInput[i] = (block[i] as number) ^ OUTER_PAD;
    const innerText = Buffer.from(inner).toString("latin1");
    // A secret of non-ASCII characters (or longer than a block, hashed) has pad bytes of 0x80 and
    // up, which one-shot hashing of text would encode as two bytes each.
    this.innerPad = typeof hash === "function" && !NON_ASCII.test(innerText) ? innerText : undefined;
  }

  /** The lower-case hex HMAC-SHA256 of the payload's bytes (one latin1 character per byte). */
  hex(payload: string): string {
    if (this.innerPad === undefined || NON_ASCII.test(payload)) {
      return createHmac("sha256", this.key).update(payload, "latin1").digest("hex");
    }
    // The inner digest as latin1 ("binary") text written into place: cheaper than a Buffer copied there.
    this.outerInput.write(hash("sha256", this.innerPad + payload, "binary"), BLOCK_BYTES, "latin1");
    return hash("sha256", this.outerInput, "hex");
  }
}
