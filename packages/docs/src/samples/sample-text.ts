// Words and names shared by the three sample languages: the opening comment, the environment
// variables, the digest of the signing rule.
import type { SampleRequest } from "./sample-requests.js";
import { type CredentialPart, SampleSpecError, type SigningRule } from "./sample-spec.js";

export { ENV } from "./sample-spec.js";

/** The signing rule's digest, as `openssl dgst -<name>` and Python's `hashlib.<name>` call it. */
export function hmacDigest(signing: SigningRule): string {
  const match = /^HMAC-SHA(1|224|256|384|512)$/i.exec(signing.algorithm);
  if (!match) {
    throw new SampleSpecError(
      `x-signing.algorithm: expected HMAC-SHA1/224/256/384/512, found ${JSON.stringify(signing.algorithm)}`,
    );
  }
  return `sha${match[1]}`;
}

/** Checks that the timestamp is in epoch milliseconds, the only unit the samples write. */
export function assertMillisecondTimestamps(signing: SigningRule): void {
  const unit = signing.words.timestampUnit ?? "";
  if (!/^epoch milli ?seconds$/i.test(unit)) {
    throw new SampleSpecError(
      `x-signing.timestamp.unit: expected epoch milliseconds, found ${JSON.stringify(unit)}`,
    );
  }
}

/** Where the signed parameters travel, in words. */
export function payloadName(request: SampleRequest): string {
  return request.placement === "body" ? "form body" : "query string";
}

/** Width of comment lines: the sample panel beside the page shows about 60 characters. */
export const COMMENT_WIDTH = 60;

/** Comment lines of at most COMMENT_WIDTH characters (marker included), broken between words. */
export function commentLines(marker: string, paragraphs: readonly string[]): string[] {
  const lines: string[] = [];
  for (const paragraph of paragraphs) {
    let line = "";
    for (const word of paragraph.split(/\s+/).filter((w) => w !== "")) {
      if (line !== "" && marker.length + 1 + line.length + 1 + word.length > COMMENT_WIDTH) {
        lines.push(`${marker} ${line}`);
        line = word;
      } else line = line === "" ? word : `${line} ${word}`;
    }
    if (line !== "") lines.push(`${marker} ${line}`);
  }
  return lines;
}

/** The sample's opening comment, as paragraphs: what it calls and what it needs. */
export function openingLines(request: SampleRequest): string[] {
  const { operation } = request;
  const { credentials } = operation;
  const title = `${operation.summary ?? operation.operationId}: ${operation.method.toUpperCase()} ${operation.path}`;
  const authClass = operation.authClass ? ` (${operation.authClass})` : "";
  switch (credentials.kind) {
    case "none":
      return [title, `No credentials${authClass}.`];
    case "key-accepted":
      return [
        title,
        `The API key is accepted, not required${authClass}: sent in ${credentials.header} when set.`,
      ];
    case "signed":
      return [
        title,
        `Signed${authClass}: the API key in ${credentials.header}; ${credentials.signing.signatureParameter} = ${credentials.signing.algorithm} of the ${payloadName(request)} as sent, keyed with the API secret, appended last.`,
      ];
    case "schemes": {
      const sent = credentials.parts.map(credentialWords).join("; ");
      return [title, `${credentials.optional ? "Accepted, not required" : "Credentials"}: ${sent}.`];
    }
  }
}

/** What a credential is and where it goes, in words. */
export function credentialWords(part: CredentialPart): string {
  switch (part.type) {
    case "apiKey":
      return `the API key ${part.env} in the ${part.in} ${part.in === "query" ? "parameter" : part.in} ${part.name}`;
    case "bearer":
      return `the ${part.what} access token ${part.env} as a bearer token${part.what === "HTTP bearer" ? "" : " (get one by the scheme's flow first)"}`;
    case "basic":
      return `${part.userEnv} and ${part.passwordEnv} by HTTP basic`;
    case "authorization":
      return `${part.env} in Authorization: ${part.authScheme}`;
  }
}
