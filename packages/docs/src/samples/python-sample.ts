// The Python sample of a request: the standard library only (urllib, hmac, hashlib, json, base64),
// with the signature computed in the sample itself.
import { multipartFields } from "./multipart.js";
import {
  bodyText,
  cookieArguments,
  encodedArguments,
  filledPath,
  headerArguments,
  type SampleArgument,
  type SampleRequest,
} from "./sample-requests.js";
import { type CredentialPart, type SampleSpec, SampleSpecError } from "./sample-spec.js";
import {
  assertMillisecondTimestamps,
  commentLines,
  ENV,
  hmacDigest,
  openingLines,
  payloadName,
} from "./sample-text.js";

function pythonString(text: string): string {
  // JSON string syntax is valid Python for these values (no code points that differ).
  return JSON.stringify(text);
}

/** A JSON value as a Python literal (dicts, lists, strings, numbers, True, False, None). */
export function pythonLiteral(value: unknown, indent = ""): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "None";
  if (typeof value === "string") return pythonString(value);
  const inner = `${indent}    `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const oneLine = `[${value.map((v) => pythonLiteral(v)).join(", ")}]`;
    if (oneLine.length <= 60 && !oneLine.includes("\n")) return oneLine;
    return `[\n${value.map((v) => `${inner}${pythonLiteral(v, inner)},`).join("\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return "{}";
  const oneLine = `{${entries.map(([k, v]) => `${pythonString(k)}: ${pythonLiteral(v)}`).join(", ")}}`;
  if (oneLine.length <= 60 && !oneLine.includes("\n")) return oneLine;
  return `{\n${entries.map(([k, v]) => `${inner}${pythonString(k)}: ${pythonLiteral(v, inner)},`).join("\n")}\n${indent}}`;
}

/** The argument as a Python expression that urlencode turns into the wire text. */
function pythonValue(arg: SampleArgument): string {
  switch (arg.parameter.kind) {
    case "integer":
      return arg.text;
    case "json":
      return `json.dumps(${pythonLiteral(arg.value)}, separators=(",", ":"))`;
    default:
      // Decimals too: as text, because str(0.00001) is "1e-05" and the API wants plain decimals.
      return pythonString(arg.text);
  }
}

/** Whether urlencode writes the argument as the client does: a plain value, form style, exploded. */
function urlencodes(arg: SampleArgument): boolean {
  const { parameter, value } = arg;
  const plainStyle =
    (parameter.style ?? "form") === "form" && parameter.explode !== false && !parameter.allowReserved;
  return parameter.kind === "json" || (plainStyle && (typeof value !== "object" || value === null));
}

/** Comments on the encodings the parameters use, said once each, before the parameters. */
function encodingNotes(args: readonly SampleArgument[]): string[] {
  const says: Partial<Record<string, string>> = {
    json: "A JSON parameter is one value: the array as compact JSON text.",
    decimal: "Decimals are sent as plain text: str(0.00001) would send 1e-05.",
  };
  return Object.entries(says)
    .filter(([kind]) => args.some((arg) => arg.parameter.kind === kind))
    .map(([, note]) => note ?? "");
}

/** The text of an f-string literal: braces doubled; quotes and backslashes are refused. */
function fStringText(text: string): string {
  if (/["\\\n]/.test(text))
    throw new SampleSpecError(`${JSON.stringify(text)} cannot go into a Python f-string`);
  return text.replace(/[{}]/g, (c) => c + c);
}

/** The header entries of a requirement's credentials, and its cookies as f-string text. */
function credentialEntries(parts: readonly CredentialPart[]): { headers: string[]; cookies: string[] } {
  const headers: string[] = [];
  const cookies: string[] = [];
  for (const part of parts) {
    switch (part.type) {
      case "apiKey":
        if (part.in === "header") headers.push(`${pythonString(part.name)}: ${part.env}`);
        else if (part.in === "cookie")
          cookies.push(`${fStringText(part.name)}={urllib.parse.quote(${part.env}, safe='')}`);
        break;
      case "bearer":
        headers.push(`"Authorization": f"Bearer {${part.env}}"`);
        break;
      case "basic":
        headers.push(
          `"Authorization": "Basic " + base64.b64encode(f"{${part.userEnv}}:{${part.passwordEnv}}".encode()).decode()`,
        );
        break;
      case "authorization":
        headers.push(`"Authorization": f"${fStringText(part.authScheme)} {${part.env}}"`);
        break;
    }
  }
  return { headers, cookies };
}

/** The request's headers as a Python expression, or undefined when it sends none. */
function headersExpression(request: SampleRequest, contentType: string | undefined): string | undefined {
  const { operation } = request;
  const { credentials } = operation;
  const entries: string[] = [];
  if (credentials.kind === "signed") entries.push(`${pythonString(credentials.header)}: ${ENV.apiKey}`);
  if (contentType !== undefined) entries.push(`"Content-Type": ${contentType}`);
  if (operation.accept) entries.push(`"Accept": ${pythonString(operation.accept)}`);
  for (const [name, value] of headerArguments(request))
    entries.push(`${pythonString(name)}: ${pythonString(value)}`);
  const auth = credentialEntries(credentials.kind === "schemes" ? credentials.parts : []);
  entries.push(...auth.headers);
  const cookies = [...cookieArguments(request).map(fStringText), ...auth.cookies];
  if (cookies.length > 0) entries.push(`"Cookie": f"${cookies.join("; ")}"`);
  if (credentials.kind === "key-accepted") {
    const key = `${pythonString(credentials.header)}: ${ENV.apiKey}`;
    return `{${[key, ...entries].join(", ")}} if ${ENV.apiKey} else {${entries.join(", ")}}`;
  }
  if (entries.length === 0) return undefined;
  const oneLine = `{${entries.join(", ")}}`;
  return oneLine.length <= 80 ? oneLine : `{\n${entries.map((e) => `        ${e},`).join("\n")}\n    }`;
}

/** The variables a requirement's credentials come from. */
function credentialVariables(parts: readonly CredentialPart[]): string[] {
  return parts.flatMap((part) => (part.type === "basic" ? [part.userEnv, part.passwordEnv] : [part.env]));
}

const MULTIPART_BOUNDARY = "sample-boundary-7MA4YWxkTrZu0gW";

/** The lines that build a request body in `data`, and the Content-Type expression it needs. */
function bodyLines(request: SampleRequest): { lines: string[]; contentType: string } | undefined {
  const body = request.body;
  if (!body) return undefined;
  const mediaType = pythonString(body.spec.mediaType);
  switch (body.spec.kind) {
    case "json":
      return {
        lines: [
          `body = ${pythonLiteral(body.value)}`,
          'data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()',
        ],
        contentType: mediaType,
      };
    case "form":
    case "text":
    case "bytes":
      return { lines: [`data = ${pythonString(bodyText(request) ?? "")}.encode()`], contentType: mediaType };
    case "multipart": {
      const parts = multipartFields(request).map(
        (f) =>
          `    (${pythonString(f.name)}, ${f.file ? pythonString(f.file) : "None"}, ${f.contentType ? pythonString(f.contentType) : "None"}, ${pythonString(f.text)}.encode()),`,
      );
      return {
        lines: [
          ...commentLines("#", [
            "multipart/form-data, written out: (name, file name, media type, content) per part.",
          ]),
          `boundary = ${pythonString(MULTIPART_BOUNDARY)}`,
          "parts = [",
          ...parts,
          "]",
          'data = b"".join(',
          `    f'--{boundary}\\r\\nContent-Disposition: form-data; name="{name}"'.encode()`,
          `    + (f'; filename="{file}"'.encode() if file else b"")`,
          '    + (f"\\r\\nContent-Type: {media}".encode() if media else b"")',
          '    + b"\\r\\n\\r\\n" + content + b"\\r\\n"',
          "    for name, file, media, content in parts",
          ') + f"--{boundary}--\\r\\n".encode()',
        ],
        contentType: 'f"multipart/form-data; boundary={boundary}"',
      };
    }
  }
}

/** The lines that print the answer, by how the operation's answer is read. */
function answerLines(request: SampleRequest, spec: SampleSpec): string[] {
  // This repository's answers are JSON, always (the samples' golden text shows them printed so).
  if (spec.strict) return ["        print(json.dumps(json.load(response), indent=2))"];
  switch (request.operation.answer) {
    case "json":
      return [
        "        answer = response.read()",
        '        if "json" in response.headers.get("Content-Type", ""):',
        "            print(json.dumps(json.loads(answer), indent=2))",
        "        else:",
        '            print(answer.decode(errors="replace") or f"HTTP {response.status}")',
      ];
    case "text":
      return [
        "        answer = response.read()",
        '        print(answer.decode(errors="replace") or f"HTTP {response.status}")',
      ];
    case "blob":
      return [
        "        answer = response.read()",
        "        print(f\"{len(answer)} bytes of {response.headers.get('Content-Type')}\")",
      ];
    case "none":
      return ['        print(f"HTTP {response.status}")'];
  }
}

export function pythonSample(request: SampleRequest, spec: SampleSpec): string {
  const { operation } = request;
  const { credentials } = operation;
  const signing = credentials.kind === "signed" ? credentials.signing : undefined;
  const parts = credentials.kind === "schemes" ? credentials.parts : [];
  const queryKeys = parts.filter((p) => p.type === "apiKey" && p.in === "query");
  const asDict = request.arguments.every(urlencodes);
  const hasParams = request.arguments.length > 0 || signing !== undefined || queryKeys.length > 0;
  const body = bodyLines(request);
  if (signing && body) {
    throw new SampleSpecError(
      `${operation.operationId}: the samples sign the query string or form body of the parameters; a signed ${request.body?.spec.mediaType} body is not written`,
      request.body?.spec.pointer,
    );
  }
  const modules = new Set(["json", "os", "sys", "urllib.error", "urllib.request"]);
  const cookieKeys = parts.some((p) => p.type === "apiKey" && p.in === "cookie");
  if (hasParams || cookieKeys) modules.add("urllib.parse");
  if (signing) for (const name of ["hashlib", "hmac", "time"]) modules.add(name);
  if (parts.some((p) => p.type === "basic")) modules.add("base64");

  const lines = commentLines("#", openingLines(request));
  lines.push(...[...modules].sort().map((name) => `import ${name}`), "");
  lines.push(`${ENV.baseUrl} = os.environ.get(${pythonString(ENV.baseUrl)}, ${pythonString(spec.baseUrl)})`);
  if (credentials.kind === "key-accepted") {
    lines.push(`${ENV.apiKey} = os.environ.get(${pythonString(ENV.apiKey)}, "")`);
  }
  if (signing) {
    lines.push(`${ENV.apiKey} = os.environ[${pythonString(ENV.apiKey)}]`);
    lines.push(`${ENV.apiSecret} = os.environ[${pythonString(ENV.apiSecret)}]`);
  }
  for (const name of credentialVariables(parts)) lines.push(`${name} = os.environ[${pythonString(name)}]`);
  lines.push("");

  const url = `{${ENV.baseUrl}}${fStringText(filledPath(request))}`;
  let target = url;
  let data: string | undefined;
  if (hasParams) {
    const payload = request.placement === "body" ? "body" : "query";
    if (asDict) {
      // urlencode's quote_plus writes a space as "+"; quote writes "%20", as the other samples do.
      const spaced = request.arguments.some((arg) => /\s/.test(arg.text));
      lines.push(...commentLines("#", encodingNotes(request.arguments)), "params = {");
      for (const arg of request.arguments) {
        lines.push(`    ${pythonString(arg.parameter.name)}: ${pythonValue(arg)},`);
      }
      for (const key of queryKeys)
        if (key.type === "apiKey") lines.push(`    ${pythonString(key.name)}: ${key.env},`);
      if (signing) {
        assertMillisecondTimestamps(signing);
        lines.push(`    ${pythonString(signing.timestampParameter)}: int(time.time() * 1000),`);
      }
      lines.push("}");
      lines.push(
        `${payload} = urllib.parse.urlencode(params${spaced || queryKeys.length > 0 ? ", quote_via=urllib.parse.quote" : ""})`,
      );
    } else {
      // Styled parameters (arrays, objects, other styles than form) are written out as sent.
      lines.push(
        ...commentLines("#", ["The parameters as sent, each in its OpenAPI style, percent-encoded."]),
        `${payload} = ${pythonString(encodedArguments(request))}`,
      );
      for (const key of queryKeys) {
        if (key.type === "apiKey")
          lines.push(`${payload} += "&${key.name}=" + urllib.parse.quote(${key.env}, safe="")`);
      }
      if (signing) {
        assertMillisecondTimestamps(signing);
        lines.push(`${payload} += f"&${signing.timestampParameter}={int(time.time() * 1000)}"`);
      }
    }
    let sent = `{${payload}}`;
    if (signing) {
      lines.push(
        ...commentLines("#", [
          `${signing.signatureParameter}: ${signing.algorithm} of the ${payloadName(request)} as sent, keyed with the API secret, appended last`,
        ]),
        `signature = hmac.new(${ENV.apiSecret}.encode(), ${payload}.encode(), hashlib.${hmacDigest(signing)}).hexdigest()`,
      );
      sent = `{${payload}}&${fStringText(signing.signatureParameter)}={signature}`;
    }
    if (payload === "body") data = `f"${sent}".encode()`;
    else target = `${url}?${sent}`;
  }
  if (body) {
    lines.push(...body.lines);
    data = "data";
  }
  const contentType = body
    ? body.contentType
    : data !== undefined
      ? '"application/x-www-form-urlencoded"'
      : undefined;
  const headers = headersExpression(request, contentType);
  lines.push(
    "request = urllib.request.Request(",
    `    f"${target}",`,
    ...(data === undefined ? [] : [`    data=${data},`]),
    ...(headers === undefined ? [] : [`    headers=${headers},`]),
    `    method=${pythonString(operation.method.toUpperCase())},`,
    ")",
    "try:",
    "    with urllib.request.urlopen(request) as response:",
    ...answerLines(request, spec),
    "except urllib.error.HTTPError as error:",
    '    sys.exit(f"HTTP {error.code}: {error.read().decode()}")',
  );
  return `${lines.join("\n")}\n`;
}
