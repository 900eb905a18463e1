// The site loads nothing from the network, whatever the spec holds. A vendor's spec can make a
// Redoc page fetch in these ways, each handled here: a remote `info.x-logo` (brand.ts keeps only a
// local one), a Markdown image in any description, HTML in a description that loads something
// (img, iframe, script, link, object, embed, video, audio, source, track, input, image, frame,
// style's url()), and an Example object's `externalValue`, which Redoc fetches to show it. The
// remote images become links the reader may follow; what they named stays readable. Behind these
// rewrites the pages carry a Content-Security-Policy (CONTENT_SECURITY_POLICY) that lets the
// browser load nothing but the page itself, inline code and data: URLs, so a way no rewrite here
// knows is refused by the browser too.
import { isObject, type JsonObject } from "./json.js";

/** A URL that leaves the machine: a scheme other than data: or blob:, or protocol-relative (//host). */
export function isRemoteUrl(url: string): boolean {
  const trimmed = url.trim();
  if (/^\/\//.test(trimmed)) return true;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed)?.[1]?.toLowerCase();
  return scheme !== undefined && scheme !== "data" && scheme !== "blob";
}

/**
 * What a page of the site may load: itself (scripts, styles and images inline or as data:
 * URLs, Redoc's search worker from a blob:), nothing from elsewhere. Redoc's bundle evaluates code it
 * builds ('unsafe-eval') and injects its styles inline.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' data: blob:",
  "worker-src 'self' blob:",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/** The meta element of CONTENT_SECURITY_POLICY, for every page's head. */
export const CONTENT_SECURITY_POLICY_META = `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`;

/** A Markdown image whose source is remote: `![alt](https://… "title")`. */
const MARKDOWN_IMAGE = /!\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(\s+"[^"\n]*")?\s*\)/g;
/** An HTML element that loads what an attribute names. */
const LOADING_TAG =
  /<(img|iframe|script|link|object|embed|video|audio|source|track|input|image|frame|frameset|picture|style|svg|use|body|table|td|meta)\b[^>]*>/gi;
const URL_ATTRIBUTE =
  /\b(src|srcset|href|xlink:href|data|poster|background|content|action|formaction)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/gi;
const CSS_URL = /url\(\s*(['"]?)([^'")\s]+)\1\s*\)|@import\s+(['"])([^'"]+)\3/gi;

/** The Markdown or HTML text with nothing in it that loads from the network (remote images become links). */
export function withoutRemoteLoads(markdown: string): string {
  return markdown
    .replace(MARKDOWN_IMAGE, (whole, alt: string, url: string, title: string | undefined) =>
      isRemoteUrl(url) ? `[${alt || url}](${url}${title ?? ""})` : whole,
    )
    .replace(LOADING_TAG, (tag: string, name: string) => {
      const remote = [...tag.matchAll(URL_ATTRIBUTE)]
        .map((m) => m[3] ?? m[4] ?? m[5] ?? "")
        .flatMap((value) => value.split(/,\s*/).map((part) => part.trim().split(/\s+/)[0] ?? ""))
        .filter((value) => isRemoteUrl(value) || /url\(/i.test(value));
      const inStyle = [...tag.matchAll(CSS_URL)].some((m) => isRemoteUrl(m[2] ?? m[4] ?? ""));
      if (remote.length === 0 && !inStyle) return tag;
      // An <a href> is a link, not a load; a <link> or any other element that names a remote URL is.
      const url = remote.find(isRemoteUrl);
      const alt = /\balt\s*=\s*("([^"]*)"|'([^']*)')/i.exec(tag);
      const text = alt?.[2] ?? alt?.[3] ?? url ?? name;
      return url ? `<a href="${url}">${text}</a>` : "";
    })
    .replace(
      CSS_URL,
      (whole, _q: string, url: string | undefined, _q2: string, imported: string | undefined) =>
        isRemoteUrl(url ?? imported ?? "") ? "" : whole,
    );
}

/**
 * A copy of the document the page renders with nothing that loads from the network: every
 * description and summary rewritten by withoutRemoteLoads, and every Example object's remote
 * `externalValue` turned into a link in its description.
 */
export function withoutRemoteFetches(document: JsonObject): JsonObject {
  return rewrite(document) as JsonObject;
}

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      typeof value === "string" && (key === "description" || key === "summary")
        ? withoutRemoteLoads(value)
        : key === "x-codeSamples"
          ? value
          : rewrite(value);
  }
  const external = out.externalValue;
  if (typeof external === "string" && isRemoteUrl(external)) {
    delete out.externalValue;
    const link = `The example is at <${external}>.`;
    out.description = typeof out.description === "string" ? `${out.description}\n\n${link}` : link;
  }
  return out;
}
