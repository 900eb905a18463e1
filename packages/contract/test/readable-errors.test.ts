// readable_errors' judgement of one error message against what its request carried.
import { describe, expect, it } from "vitest";
import { errorTextProblems } from "../src/kit/error-text.js";

const SENT = "http://127.0.0.1:8080/api/v3/depth?limit=5\n";

describe("errorTextProblems", () => {
  it.each([
    { given: "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed.", want: [] },
    { given: "Invalid symbol.", want: [] },
    {
      given:
        "Illegal characters found in parameter 'price'; legal range is '^([0-9]{1,20})(\\.[0-9]{1,20})?$'.",
      want: [],
    },
    { given: "", want: ["is empty"] },
    { given: "  ", want: ["is empty"] },
    { given: "Mandatory parameter 'undefined' was not sent", want: ["carries undefined"] },
    { given: "Price NaN is below the minimum", want: ["carries NaN"] },
    { given: "Invalid filter [object Object].", want: ["carries [object Object]"] },
    { given: "value <nil> is not allowed", want: ["carries <nil>"] },
    { given: "Mandatory parameter '%s' was not sent", want: ["carries a format verb left unfilled"] },
    { given: "Parameter {0} is invalid", want: ["carries a format verb left unfilled"] },
    {
      given: "TypeError: x is not a function\n    at handle (/srv/app/server.js:12:7)",
      want: ["carries a stack trace"],
    },
    { given: 'Traceback (most recent call last):\n  File "app.py"', want: ["carries a stack trace"] },
    { given: "undefined and NaN", want: ["carries undefined", "carries NaN"] },
  ])("$given → $want", ({ given, want }) => {
    const problems = errorTextProblems(given, SENT);
    expect(problems).toHaveLength(want.length);
    for (const [i, part] of want.entries()) expect(problems[i]).toContain(part);
  });

  it.each([
    { given: "Illegal characters found in parameter 'price': 'NaN'.", sent: "price=NaN" },
    { given: "Invalid symbol 'undefined'.", sent: "symbol=undefined" },
    { given: "Invalid value '%s'.", sent: "newClientOrderId=%25s" },
  ])("a mark the request carried is no fault: $given", ({ given, sent }) => {
    const decoded = `${sent}\n${decodeURIComponent(sent)}`;
    expect(errorTextProblems(given, decoded)).toEqual([]);
  });
});
