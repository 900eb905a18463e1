// Escaping for the static HTML pages. Every value from a spec goes through one of these.

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for use in element content and in quoted attribute values. */
export function escapeHtml(value: string | number | boolean): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * Turns `backtick` spans of a plain-text description into <code> elements; everything else is
 * escaped. The descriptions of the Endpoint schema are plain text that quote names this way.
 */
export function proseToHtml(value: string): string {
  return value
    .split(/(`[^`\n]+`)/)
    .map((part, i) => (i % 2 === 1 ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : escapeHtml(part)))
    .join("");
}

/** A fragment id made of safe characters only. */
export function anchorId(prefix: string, name: string): string {
  return `${prefix}-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}
