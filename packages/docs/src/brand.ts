// The project's look, shared by the Redoc page and the static pages: name, colours, wordmark.

export const BRAND = {
  name: "marketapi",
  /** Teal scale; step 6 is the primary colour (white text on it has a contrast of about 5:1). */
  palette: {
    1: "#effcf9",
    2: "#dff6f1",
    3: "#c6ede5",
    4: "#a6e0d4",
    5: "#6cc2b2",
    6: "#0d7a6b",
    7: "#0b6b5e",
    8: "#0a5c51",
    9: "#094d44",
    10: "#08443c",
    11: "#0d3d38",
  },
} as const;

function svgDataUri(svg: string): string {
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** The wordmark: a teal square with "m" and the project name, drawn inline (no request). */
export function wordmarkDataUri(): string {
  const { palette, name } = BRAND;
  return svgDataUri(
    `<svg xmlns="http://www.w3.org/2000/svg" width="150" height="32" viewBox="0 0 150 32"><rect width="32" height="32" rx="7" fill="${palette[6]}"/><text x="16" y="22" text-anchor="middle" font-family="system-ui,sans-serif" font-size="18" font-weight="700" fill="#fff">m</text><text x="40" y="22" font-family="system-ui,sans-serif" font-size="18" font-weight="600" fill="${palette[9]}">${name}</text></svg>`,
  );
}

/** A <link rel="icon"> with an inline image, so that browsers do not ask for /favicon.ico. */
export function faviconLink(): string {
  const icon = svgDataUri(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="${BRAND.palette[6]}"/><text x="16" y="23" text-anchor="middle" font-family="system-ui,sans-serif" font-size="20" font-weight="700" fill="#fff">m</text></svg>`,
  );
  return `<link rel="icon" href="${icon}">`;
}

/**
 * An icon for TypeScript samples in Redoc's language menu, which has icons for curl, Python and
 * others but none for TypeScript: the letters "TS" on a blue square, drawn inline.
 */
export function typescriptIconDataUri(): string {
  return svgDataUri(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 14 14"><rect width="14" height="14" rx="2" fill="#3178c6"/><text x="13" y="12.2" text-anchor="end" font-family="system-ui,sans-serif" font-size="7.5" font-weight="700" fill="#fff">TS</text></svg>`,
  );
}
