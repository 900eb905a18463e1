// The shell sample of a request: curl, with the signature computed by openssl in the sample itself.

import { multipartFields } from "./multipart.js";
import {
  bodyText,
  cookieArguments,
  encodedArguments,
  filledPath,
  headerArguments,
  type SampleRequest,
} from "./sample-requests.js";
import { type CredentialPart, type SampleSpec, SampleSpecError } from "./sample-spec.js";
import { assertMillisecondTimestamps, commentLines, ENV, hmacDigest, openingLines } from "./sample-text.js";

/** Characters that keep their meaning inside a double-quoted shell word. */
const SHELL_SPECIAL = /[$`"\\!]/;

function doubleQuoted(text: string, where: string): string {
  if (SHELL_SPECIAL.test(text)) {
    throw new SampleSpecError(`${where}: ${JSON.stringify(text)} cannot be written in double quotes`);
  }
  return text;
}

/** A single-quoted shell word: any text, a quote written as '\''. */
function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** The body's JSON text: on one line when short, else indented (the server reads either). */
export function jsonText(value: unknown): string {
  const compact = JSON.stringify(value);
  return compact.length <= 60 ? compact : JSON.stringify(value, null, 2);
}

/** curl options for the credentials of a requirement: headers, cookies and query parameters. */
function credentialOptions(parts: readonly CredentialPart[]): {
  headers: string[];
  cookies: string[];
  query: string[];
} {
  const out = { headers: [] as string[], cookies: [] as string[], query: [] as string[] };
  for (const part of parts) {
    switch (part.type) {
      case "apiKey": {
        const name = doubleQuoted(part.name, `security scheme ${part.scheme} name`);
        if (part.in === "header") out.headers.push(`-H "${name}: $${part.env}"`);
        else if (part.in === "cookie") out.cookies.push(`${name}=$${part.env}`);
        else out.query.push(`${name}=$${part.env}`);
        break;
      }
      case "bearer":
        out.headers.push(`-H "Authorization: Bearer $${part.env}"`);
        break;
      case "basic":
        out.headers.push(`-u "$${part.userEnv}:$${part.passwordEnv}"`);
        break;
      case "authorization":
        out.headers.push(`-H "Authorization: ${part.authScheme} $${part.env}"`);
        break;
    }
  }
  return out;
}

/** The options that send the request body, and a command whose output curl reads as a file part. */
function bodyOptions(request: SampleRequest, where: string): { options: string[]; stdin?: string } {
  const body = request.body;
  if (!body) return { options: [] };
  const type = `-H "Content-Type: ${doubleQuoted(body.spec.mediaType, `${where} media type`)}"`;
  switch (body.spec.kind) {
    case "json":
      return { options: [type, `--data-binary ${singleQuoted(jsonText(body.value))}`] };
    case "form":
    case "text":
    case "bytes":
      return { options: [type, `--data-binary ${singleQuoted(bodyText(request) ?? "")}`] };
    case "multipart": {
      const options: string[] = [];
      let stdin: string | undefined;
      for (const field of multipartFields(request)) {
        if (field.file) {
          if (stdin !== undefined) {
            throw new SampleSpecError(
              `${where}: the shell sample sends one file part (from its standard input); this body has more`,
              body.spec.pointer,
            );
          }
          stdin = `printf '%s' ${singleQuoted(field.text)}`;
          options.push(`-F ${singleQuoted(`${field.name}=@-;filename=${field.file}`)}`);
        } else if (field.contentType) {
          if (/[;"]/.test(field.text.replace(/"[^"]*"/g, "")) || /^[@<]/.test(field.text)) {
            throw new SampleSpecError(
              `${where}: the field ${field.name} cannot be written as a curl form part`,
              body.spec.pointer,
            );
          }
          options.push(`-F ${singleQuoted(`${field.name}=${field.text};type=${field.contentType}`)}`);
        } else options.push(`--form-string ${singleQuoted(`${field.name}=${field.text}`)}`);
      }
      return { options, ...(stdin !== undefined ? { stdin } : {}) };
    }
  }
}

export function curlSample(request: SampleRequest, spec: SampleSpec): string {
  const { operation } = request;
  const where = operation.operationId;
  const method = operation.method.toUpperCase();
  const path = doubleQuoted(filledPath(request), `${where} path`);
  const params = doubleQuoted(encodedArguments(request), `${where} parameters`);
  const notes = request.arguments
    .filter((arg) => arg.parameter.kind === "json")
    .map((arg) => `${arg.parameter.name} is one value: the JSON text ${arg.text}, percent-encoded.`);
  const { credentials } = operation;
  const auth = credentialOptions(credentials.kind === "schemes" ? credentials.parts : []);
  if (auth.query.length > 0 || auth.cookies.length > 0) {
    notes.push(
      "The key is sent as it is: a key with characters outside A-Z a-z 0-9 - . _ ~ must be percent-encoded.",
    );
  }
  const lines = commentLines("#", [...openingLines(request), ...notes]);
  lines.push(`${ENV.baseUrl}="\${${ENV.baseUrl}:-${doubleQuoted(spec.baseUrl, "server URL")}}"`);
  // -w '\n' ends the answer with a newline and keeps curl's exit status (22 on an error answer).
  const curl = `curl -sS --fail-with-body -w '\\n'${method === "GET" ? "" : method === "HEAD" ? " --head" : ` -X ${method}`}`;
  const url = `$${ENV.baseUrl}${path}`;
  const query = [params, ...auth.query].filter((part) => part !== "").join("&");
  const headers = [
    ...(operation.accept ? [`-H "Accept: ${doubleQuoted(operation.accept, `${where} Accept`)}"`] : []),
    ...headerArguments(request).map(
      ([name, value]) => `-H "${doubleQuoted(`${name}: ${value}`, `${where} header ${name}`)}"`,
    ),
    ...auth.headers,
  ];
  const cookies = [
    ...cookieArguments(request).map((pair) => doubleQuoted(pair, `${where} cookie`)),
    ...auth.cookies,
  ];
  if (cookies.length > 0) headers.push(`-H "Cookie: ${cookies.join("; ")}"`);
  const body = bodyOptions(request, where);
  const extra = [...headers, ...body.options];
  // One option per line after the first, so that the lines fit the sample panel.
  const command = (...parts: string[]) =>
    `${body.stdin !== undefined ? `${body.stdin} | ` : ""}${[...parts, ...extra].join(" \\\n  ")}`;

  switch (credentials.kind) {
    case "none":
    case "schemes":
      lines.push(command(`${curl} "${url}${query ? `?${query}` : ""}"`));
      break;
    case "key-accepted":
      // curl sends no header at all for "Name: " with an empty value, so the key stays optional.
      lines.push(
        command(`${curl} "${url}${query ? `?${query}` : ""}"`, `-H "${credentials.header}: $${ENV.apiKey}"`),
      );
      break;
    case "signed": {
      const { signing } = credentials;
      assertMillisecondTimestamps(signing);
      if (request.body) {
        throw new SampleSpecError(
          `${where}: the samples sign the query string or form body of the parameters; a signed ${request.body.spec.mediaType} body is not written`,
          request.body.spec.pointer,
        );
      }
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
