// A change's message on the changelog page: a token too long for a phone's line is set as code.
import { describe, expect, it } from "vitest";
import { messageHtml } from "../src/changelog-page.js";

const cases: { given: string; want: string }[] = [
  { given: "description changed", want: "description changed" },
  {
    given: 'x-weight changed from 5 to {"weight":5,"parameter":"limit"}: counts differently',
    want: "x-weight changed from 5 to <code>{&quot;weight&quot;:5,&quot;parameter&quot;:&quot;limit&quot;}:</code> counts differently",
  },
  { given: "a <b> & c", want: "a &lt;b&gt; &amp; c" },
  { given: "a token of 23: abcdefghijklmnopqrstuvw", want: "a token of 23: abcdefghijklmnopqrstuvw" },
  {
    given: "a token of 24: abcdefghijklmnopqrstuvwx",
    want: "a token of 24: <code>abcdefghijklmnopqrstuvwx</code>",
  },
];

describe("messageHtml", () => {
  it.each(cases)("$given", ({ given, want }) => {
    expect(messageHtml(given)).toBe(want);
  });
});
