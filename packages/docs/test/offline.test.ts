// Nothing a spec writes makes the site load from the network: the rewrites of offline.ts, as a
// given/want table, and the Content-Security-Policy every page carries (the browser tests open
// pages of a spec that tries each way: fork-site.test.ts).
import { describe, expect, it } from "vitest";
import {
  CONTENT_SECURITY_POLICY,
  isRemoteUrl,
  withoutRemoteFetches,
  withoutRemoteLoads,
} from "../src/offline.js";

describe("withoutRemoteLoads", () => {
  it.each([
    [
      "a Markdown image",
      "See ![the flow](https://x.example/f.png).",
      "See [the flow](https://x.example/f.png).",
    ],
    [
      "a Markdown image with a title",
      '![a](https://x.example/a.png "A")',
      '[a](https://x.example/a.png "A")',
    ],
    ["a local Markdown image", "![a](images/a.png)", "![a](images/a.png)"],
    [
      "an img",
      '<img src="https://x.example/b.png" alt="banner">',
      '<a href="https://x.example/b.png">banner</a>',
    ],
    [
      "a protocol-relative img",
      "<img src='//x.example/p.png'>",
      '<a href="//x.example/p.png">//x.example/p.png</a>',
    ],
    ["an img of data", '<img src="data:image/png;base64,AAAA">', '<img src="data:image/png;base64,AAAA">'],
    [
      "an iframe",
      '<iframe src="https://x.example/"></iframe>',
      '<a href="https://x.example/">https://x.example/</a></iframe>',
    ],
    [
      "a script",
      '<script src="https://x.example/x.js"></script>',
      '<a href="https://x.example/x.js">https://x.example/x.js</a></script>',
    ],
    [
      "a stylesheet link",
      '<link rel="stylesheet" href="https://x.example/s.css">',
      '<a href="https://x.example/s.css">https://x.example/s.css</a>',
    ],
    [
      "a srcset",
      '<source srcset="https://x.example/a.webp 1x, https://x.example/b.webp 2x">',
      '<a href="https://x.example/a.webp">https://x.example/a.webp</a>',
    ],
    [
      "a video poster",
      '<video poster="https://x.example/p.png"></video>',
      '<a href="https://x.example/p.png">https://x.example/p.png</a></video>',
    ],
    [
      "a style's url()",
      "<div style=\"background: url('https://x.example/bg.png')\">x</div>",
      '<div style="background: ">x</div>',
    ],
    ["an @import", '<style>@import "https://x.example/s.css";</style>', "<style>;</style>"],
    [
      "a plain link, which loads nothing",
      '<a href="https://x.example/">docs</a>',
      '<a href="https://x.example/">docs</a>',
    ],
  ])("%s", (_, given, want) => {
    expect(withoutRemoteLoads(given)).toBe(want);
  });
});

describe("withoutRemoteFetches", () => {
  it("rewrites descriptions and summaries everywhere, and turns a remote externalValue into a link", () => {
    const given = {
      info: { description: "![x](https://x.example/x.png)" },
      paths: {
        "/a": {
          get: {
            summary: "<img src=https://x.example/s.png>",
            responses: {
              "200": {
                content: {
                  "application/json": { examples: { e: { externalValue: "https://x.example/e.json" } } },
                },
              },
            },
          },
        },
      },
    };
    const got = withoutRemoteFetches(given) as typeof given;
    expect(got.info.description).toBe("[x](https://x.example/x.png)");
    expect(got.paths["/a"].get.summary).toBe('<a href="https://x.example/s.png">https://x.example/s.png</a>');
    expect(got.paths["/a"].get.responses["200"].content["application/json"].examples.e).toEqual({
      description: "The example is at <https://x.example/e.json>.",
    });
    expect(given.info.description).toBe("![x](https://x.example/x.png)");
  });
});

describe("what counts as remote", () => {
  it.each([
    ["https://x.example/a.png", true],
    ["HTTP://x.example/", true],
    ["//x.example/a.png", true],
    ["ftp://x.example/a", true],
    ["data:image/svg+xml,<svg/>", false],
    ["blob:http://127.0.0.1/x", false],
    ["images/logo.png", false],
    ["/logo.png", false],
  ])("%s: %s", (url, remote) => expect(isRemoteUrl(url)).toBe(remote));

  it("the pages' policy loads from nowhere but the page itself, inline code and data: URLs", () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/https?:|\*/);
  });
});
