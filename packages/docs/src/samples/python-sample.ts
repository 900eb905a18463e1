// The Python sample of a request: the standard library only (urllib, hmac, hashlib, json), with
// the signature computed in the sample itself.
import type { SampleArgument, SampleRequest } from "./sample-requests.js";
import { type SampleSpec, SampleSpecError } from "./sample-spec.js";
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

/** The argument as a Python expression that urlencode turns into the wire text. */
function pythonValue(arg: SampleArgument): string {
  switch (arg.parameter.kind) {
    case "integer":
      return arg.text;
    case "json":
      return `json.dumps([${(arg.value as readonly string[]).map(pythonString).join(", ")}], separators=(",", ":"))`;
    default:
      // Decimals too: as text, because str(0.00001) is "1e-05" and the API wants plain decimals.
      return pythonString(arg.text);
  }
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

/** The request's headers as a Python expression, or undefined when it sends none. */
function headersExpression(request: SampleRequest, formBody: boolean): string | undefined {
  const { credentials } = request.operation;
  const entries: string[] = [];
  if (credentials.kind === "signed") entries.push(`${pythonString(credentials.header)}: ${ENV.apiKey}`);
  if (formBody) entries.push('"Content-Type": "application/x-www-form-urlencoded"');
  if (credentials.kind === "key-accepted") {
    const key = `${pythonString(credentials.header)}: ${ENV.apiKey}`;
    return `{${[key, ...entries].join(", ")}} if ${ENV.apiKey} else {${entries.join(", ")}}`;
  }
  return entries.length === 0 ? undefined : `{${entries.join(", ")}}`;
}

export function pythonSample(request: SampleRequest, spec: SampleSpec): string {
  const { operation } = request;
  const { credentials } = operation;
  const signing = credentials.kind === "signed" ? credentials.signing : undefined;
  const hasParams = request.arguments.length > 0 || signing !== undefined;
  const modules = new Set(["json", "os", "sys", "urllib.error", "urllib.request"]);
  if (hasParams) modules.add("urllib.parse");
  if (signing) for (const name of ["hashlib", "hmac", "time"]) modules.add(name);

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
  lines.push("");

  if (hasParams) {
    lines.push(...commentLines("#", encodingNotes(request.arguments)), "params = {");
    for (const arg of request.arguments) {
      lines.push(`    ${pythonString(arg.parameter.name)}: ${pythonValue(arg)},`);
    }
    if (signing) {
      assertMillisecondTimestamps(signing);
      lines.push(`    ${pythonString(signing.timestampParameter)}: int(time.time() * 1000),`);
    }
    lines.push("}");
  }

  const url = `{${ENV.baseUrl}}${fStringText(operation.path)}`;
  let target = url;
  let data: string | undefined;
  if (hasParams) {
    const payload = request.placement === "body" ? "body" : "query";
    lines.push(`${payload} = urllib.parse.urlencode(params)`);
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
  const headers = headersExpression(request, data !== undefined);
  lines.push(
    "request = urllib.request.Request(",
    `    f"${target}",`,
    ...(data === undefined ? [] : [`    data=${data},`]),
    ...(headers === undefined ? [] : [`    headers=${headers},`]),
    `    method=${pythonString(operation.method.toUpperCase())},`,
    ")",
    "try:",
    "    with urllib.request.urlopen(request) as response:",
    "        print(json.dumps(json.load(response), indent=2))",
    "except urllib.error.HTTPError as error:",
    '    sys.exit(f"HTTP {error.code}: {error.read().decode()}")',
  );
  return `${lines.join("\n")}\n`;
}
