import { describe, expect, it } from "vitest";
import { isLocalUrl } from "./support/chromium.js";

describe("isLocalUrl (the browser tests' network guard)", () => {
  it.each([
    "http://127.0.0.1:4173/api.html",
    "http://127.9.8.7/x",
    "http://localhost:80/",
    "http://[::1]:9000/",
    "data:image/svg+xml,%3Csvg%3E",
    "blob:http://127.0.0.1:4173/0f6c",
    "about:blank",
  ])("accepts %s", (url) => expect(isLocalUrl(url)).toBe(true));

  it.each([
    "https://cdn.redoc.ly/redoc/logo-mini-full.svg",
    "https://otel.cloud.redocly.com/v1/traces",
    "http://127.0.0.1.example.com/",
    "http://10.0.0.1/",
    "http://[::2]/",
    "not a url",
  ])("refuses %s", (url) => expect(isLocalUrl(url)).toBe(false));
});
