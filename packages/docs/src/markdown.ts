// Helpers for writing CommonMark (as rendered by Redoc) from values taken out of the spec.

/** Inline code span that survives backticks inside the value (CommonMark: a longer fence). */
export function code(value: string | number | boolean): string {
  const text = String(value);
  let fence = "`";
  while (text.includes(fence)) fence += "`";
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * Plain text for a markdown paragraph or table cell: backslash-escapes the characters that would
 * otherwise start markup (emphasis, links, HTML, code, Markdoc tags, table pipes) and folds newlines.
 */
export function text(value: string): string {
  return value.replace(/\s*\n\s*/g, " ").replace(/[\\`*_[\]<>|{}#]/g, (c) => `\\${c}`);
}

/** A cell for a markdown table: pipes escaped and newlines folded (the content is already markdown). */
export function cell(markdown: string): string {
  return markdown.replace(/\s*\n\s*/g, " ").replace(/(?<!\\)\|/g, "\\|");
}

/** A GitHub-flavoured markdown table; every cell is markdown already. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

/** A bulleted list; every item is markdown already (newlines folded, so each stays one item). */
export function bulletList(items: readonly string[]): string {
  return items.map((item) => `- ${item.replace(/\s*\n\s*/g, " ")}`).join("\n");
}

/** A fenced code block whose fence is longer than any backtick run in the content. */
export function codeBlock(content: string, language = ""): string {
  let fence = "```";
  while (content.includes(fence)) fence += "`";
  return `${fence}${language}\n${content}\n${fence}`;
}
