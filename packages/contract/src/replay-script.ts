/**
 * Shell scripts that send recorded requests. A failing sequence of the exploration as a shell script: every request of the minimal sequence
 * in order, as curl commands that sign themselves when they run (the timestamp is taken and the
 * HMAC computed with openssl at that moment, so the script stays valid), and that carry the
 * orderIds the target assigns from one step to the next (an order placed at step 2 is cancelled
 * at step 4 by the id the target gives it when the script runs, not the one it gave the tester).
 */
import type { ContractSigning } from "./core/operations.js";
import type { ExchangeRecord, SequenceEvidence } from "./session/verdicts.js";

type RecordedRequest = Pick<ExchangeRecord["request"], "method" | "url" | "headers" | "body">;

const dq = (text: string) => `"${text.replace(/(["\\$`])/g, "\\$1")}"`;

/** The parameters of a query or body without the signing envelope's timestamp and signature. */
function unsigned(text: string, signing: ContractSigning): { params: string; signed: boolean } {
  const pairs = text === "" ? [] : text.split("&");
  const name = (pair: string) => decodeURIComponent(pair.split("=")[0] ?? "");
  const signed = pairs.some((p) => name(p) === signing.signatureParameter);
  const kept = pairs.filter(
    (p) => ![signing.signatureParameter, signing.timestampParameter].includes(name(p)),
  );
  return { params: kept.join("&"), signed };
}

/** The orderId an answer carries (its body excerpt may be cut short, so read it as text). */
function orderIdOf(record: ExchangeRecord): string | undefined {
  return /"orderId":(\d+)/.exec(record.response?.bodyExcerpt ?? "")?.[1];
}

function withOrderIds(text: string, names: Map<string, string>): string {
  return text.replace(/(^|&)(orderId)=(\d+)/g, (all, lead: string, key: string, id: string) =>
    names.has(id) ? `${lead}${key}=\${${names.get(id)}}` : all,
  );
}

/** The shell functions a script's signed requests use: the HMAC of a payload, the time in ms. */
const SHELL_HELPERS = [
  `sign() { printf %s "$1" | openssl dgst -sha256 -hmac "$MARKETAPI_API_SECRET" | sed 's/^.* //'; }`,
  "now() { echo $(( $(date +%s) * 1000 )); }",
];

/** The script's lines for one request. */
function stepLines(
  request: RecordedRequest,
  signing: ContractSigning,
  names: Map<string, string>,
  capture: string | undefined,
): string[] {
  const url = new URL(request.url);
  const path = url.pathname;
  const query = unsigned(url.search.replace(/^\?/, ""), signing);
  const body = request.body === undefined ? undefined : unsigned(request.body, signing);
  const signed = query.signed || (body?.signed ?? false);
  // Percent-encoded text holds no quote, dollar or backslash: it goes inside double quotes as it is.
  const lines = [`q="${withOrderIds(query.params, names)}"`];
  if (body) lines.push(`b="${withOrderIds(body.params, names)}"`);
  if (signed) {
    const part = body ? "b" : "q";
    lines.push(`${part}="\${${part}:+$${part}&}${signing.timestampParameter}=$(now)"`);
    lines.push(`${part}="$${part}&${signing.signatureParameter}=$(sign "$q${body ? "$b" : ""}")"`);
  }
  const key = Object.keys(request.headers).some(
    (h) => h.toLowerCase() === signing.apiKeyHeader.toLowerCase(),
  );
  const curl = [
    `curl -sS -X ${request.method}`,
    `"$base${path}\${q:+?$q}"`,
    ...(key ? [`-H "${signing.apiKeyHeader}: $MARKETAPI_API_KEY"`] : []),
    ...(body ? [`-H 'content-type: application/x-www-form-urlencoded' --data "$b"`] : []),
  ].join(" ");
  if (capture) {
    lines.push(`r=$(${curl}); echo "$r"`);
    lines.push(`${capture}=$(printf %s "$r" | sed -n 's/.*"orderId":\\([0-9]*\\).*/\\1/p')`);
  } else lines.push(`${curl}; echo`);
  return lines;
}

/** The whole script; `base` is the target's base URL. */
export function sequenceScript(sequence: SequenceEvidence, signing: ContractSigning, base: string): string {
  const names = new Map<string, string>();
  const out = [
    "#!/bin/sh",
    `# A minimal failing sequence of the contract tester's exploration (seed ${sequence.seed}, ${sequence.shrinks} shrinks).`,
    "# Needs curl, openssl and sed; MARKETAPI_API_KEY and MARKETAPI_API_SECRET in the environment.",
    "set -u",
    `base=${dq(base)}`,
    ...SHELL_HELPERS,
  ];
  let last = -1;
  for (const { step, description, exchange } of sequence.steps) {
    if (step !== last) out.push("", `# step ${step}: ${description.replace(/\n/g, " ")}`);
    last = step;
    const placed = exchange.request.method === "POST" ? orderIdOf(exchange) : undefined;
    const capture = placed !== undefined && !names.has(placed) ? `o${names.size + 1}` : undefined;
    out.push(...stepLines(exchange.request, signing, names, capture));
    if (capture && placed !== undefined) names.set(placed, capture);
  }
  return `${out.join("\n")}\n`;
}

/**
 * One request as shell lines that send it with curl, signing it when they run (a fresh timestamp
 * and its HMAC), so that they stay valid however long after the replay they are run.
 */
export function requestScript(request: RecordedRequest, signing: ContractSigning): string[] {
  const lines = stepLines(request, signing, new Map(), undefined);
  const signed = lines.some((line) => line.includes("$(sign "));
  return [`base=${dq(new URL(request.url).origin)}`, ...(signed ? SHELL_HELPERS : []), ...lines];
}
