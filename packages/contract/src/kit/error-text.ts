/**
 * Whether an error's message is what a person can act on, by the marks of a message built from a
 * value that was not there, in any common server language (readable_errors; the load phase's raw
 * probes judge their refusals by it too). Pure.
 */
import { isObject } from "@marketapi/spec/model";
import type { WireRequest } from "../http/request.js";
import type { RoundTrip } from "../session/round-trip.js";

/** The marks, in any common server language, of a message that is not what a person can act on. */
const LEAKS: ReadonlyArray<{ what: string; pattern: RegExp }> = [
  { what: "undefined", pattern: /\bundefined\b/ },
  { what: "NaN", pattern: /\bNaN\b/ },
  { what: "[object Object]", pattern: /\[object [A-Z]\w*\]/ },
  { what: "<nil>", pattern: /<nil>/ },
  { what: "a format verb left unfilled", pattern: /%!\w\(|%[sdv]\b|\{\d+\}/ },
  {
    what: "a stack trace",
    pattern:
      /\n\s*at \S.*:\d+(:\d+)?\)?|Traceback \(most recent call last\)|\bgoroutine \d+ \[|Exception in thread /,
  },
];

/**
 * What is wrong with an error's message `msg` for a request whose text (its URL, body and header
 * values) is `sent`: a mark the request carried may come back quoted, and is no fault.
 */
export function errorTextProblems(msg: string, sent: string): string[] {
  if (msg.trim() === "") return ["the error's msg is empty; the spec calls it a human-readable message"];
  return LEAKS.flatMap(({ what, pattern }) => {
    const found = pattern.exec(msg);
    if (!found || sent.includes(found[0])) return [];
    return [
      `the error's msg carries ${what} (${JSON.stringify(found[0])}), which the request did not: a message built from a value that was not there, where the spec calls it human-readable; msg: ${JSON.stringify(msg.slice(0, 200))}`,
    ];
  });
}

/** What the request carried, as sent and with its percent-encoding undone. */
export function sentText(request: WireRequest): string {
  const { url, body = "", headers } = request;
  const raw = [url, body, ...Object.values(headers)].join("\n");
  try {
    return `${raw}\n${decodeURIComponent(raw.replace(/\+/g, " "))}`;
  } catch {
    return raw;
  }
}

/**
 * What is wrong with an error answer's `msg`, judged against what its request carried; undefined
 * when there is nothing to judge: no answer, no error, or no `msg` as text (the schema's to judge).
 */
export function errorAnswerProblems(exchange: Pick<RoundTrip, "request" | "response">): string[] | undefined {
  const response = exchange.response;
  if (!response || response.status < 400) return undefined;
  const msg = isObject(response.json) ? response.json.msg : undefined;
  return typeof msg === "string" ? errorTextProblems(msg, sentText(exchange.request)) : undefined;
}
