// The judgement of an answer to an overlong request line or overlong headers (the load phase's
// probe): HTTP's status for each (RFC 9110 414, RFC 6585 431) when the size is refused, never a
// server error, never an open connection left without an answer; a server with no such limit passes.
import { describe, expect, it } from "vitest";
import { overlongProblem } from "../src/checks/rate-limit-enforcement.js";

type Part = Parameters<typeof overlongProblem>[0];
type End = Parameters<typeof overlongProblem>[2];

describe("the answer to an overlong part of a request", () => {
  const cases: Array<{ given: [Part, number | undefined, End]; want: RegExp | undefined }> = [
    { given: ["request line", 200, "answered"], want: undefined },
    { given: ["headers", 200, "answered"], want: undefined },
    { given: ["request line", 414, "answered"], want: undefined },
    { given: ["headers", 431, "answered"], want: undefined },
    { given: ["request line", 400, "answered"], want: undefined },
    { given: ["request line", 431, "answered"], want: /refused with 431; HTTP's status for it is 414/ },
    { given: ["headers", 414, "answered"], want: /refused with 414; HTTP's status for it is 431/ },
    { given: ["headers", 413, "answered"], want: /refused with 413; HTTP's status for it is 431/ },
    { given: ["request line", 500, "answered"], want: /got a server error, status 500/ },
    { given: ["headers", 503, "answered"], want: /got a server error, status 503/ },
    { given: ["request line", undefined, "closed"], want: undefined },
    { given: ["headers", undefined, "error"], want: undefined },
    { given: ["headers", undefined, "timeout"], want: /got no answer, and the connection stayed open/ },
  ];
  it.each(cases)("$given → $want", ({ given: [part, status, end], want }) => {
    const problem = overlongProblem(part, status === undefined ? undefined : { status }, end);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});
