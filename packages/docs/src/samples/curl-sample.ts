// The shell sample of a request: curl, with the signature computed by openssl in the sample itself.
import { encodedArguments, type SampleRequest } from "./sample-requests.js";
import { type SampleSpec, SampleSpecError } from "./sample-spec.js";
import { assertMillisecondTimestamps, commentLines, ENV, hmacDigest, openingLines } from "./sample-text.js";

/** Characters that keep their meaning inside a double-quoted shell word. */
const SHELL_SPECIAL = /[$`"\\!]/;

function doubleQuoted(text: string, where: string): string {
  if (SHELL_SPECIAL.test(text)) {
    throw new SampleSpecError(`${where}: ${JSON.stringify(text)} cannot be written in double quotes`);
  }
  return text;
}

export function curlSample(request: SampleRequest, spec: SampleSpec): string {
  const { operation } = request;
  const where = operation.operationId;
  const method = operation.method.toUpperCase();
  const path = doubleQuoted(operation.path, `${where} path`);
  const params = doubleQuoted(encodedArguments(request), `${where} parameters`);
  const notes = request.arguments
    .filter((arg) => arg.parameter.kind === "json")
    .map((arg) => `${arg.parameter.name} is one value: the JSON text ${arg.text}, percent-encoded.`);
  const lines = commentLines("#", [...openingLines(request), ...notes]);
  lines.push(`${ENV.baseUrl}="\${${ENV.baseUrl}:-${doubleQuoted(spec.baseUrl, "server URL")}}"`);
  // -w '\n' ends the answer with a newline and keeps curl's exit status (22 on an error answer).
  const curl = `curl -sS --fail-with-body -w '\\n'${method === "GET" ? "" : ` -X ${method}`}`;
  const url = `$${ENV.baseUrl}${path}`;
  const query = params ? `?${params}` : "";
  // One option per line after the first, so that the lines fit the sample panel.
  const command = (...parts: string[]) => parts.join(" \\\n  ");

  const { credentials } = operation;
  switch (credentials.kind) {
    case "none":
      lines.push(command(`${curl} "${url}${query}"`));
      break;
    case "key-accepted":
      // curl sends no header at all for "Name: " with an empty value, so the key stays optional.
      lines.push(command(`${curl} "${url}${query}"`, `-H "${credentials.header}: $${ENV.apiKey}"`));
      break;
    case "signed": {
      const { signing } = credentials;
      assertMillisecondTimestamps(signing);
      const payload = request.placement === "body" ? "body" : "query";
      const timestamp = `${doubleQuoted(signing.timestampParameter, `${where} timestamp`)}=$(date +%s)000`;
      lines.push(`${payload}="${params ? `${params}&` : ""}${timestamp}"`);
      lines.push(
        `signature=$(printf '%s' "$${payload}" | openssl dgst -${hmacDigest(signing)} -hmac "$${ENV.apiSecret}" | sed 's/^.*= //')`,
      );
      const signed = `$${payload}&${doubleQuoted(signing.signatureParameter, `${where} signature`)}=$signature`;
      const header = `-H "${credentials.header}: $${ENV.apiKey}"`;
      lines.push(
        payload === "body"
          ? command(`${curl} "${url}"`, header, `--data "${signed}"`)
          : command(`${curl} "${url}?${signed}"`, header),
      );
      break;
    }
  }
  return `${lines.join("\n")}\n`;
}
