/**
 * The security headers of every answer, defined once: next.config.ts sends them with Next.js's answers,
 * server.mjs with the ones it makes itself (MCP, a malformed path). Plain JS: server.mjs cannot import TypeScript.
 */

/** Every answer: no MIME sniffing, never framed (clickjacking), no Referer to other sites. */
export const COMMON_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  // Not "no-referrer": the OAuth consent form's POST would then carry `Origin: null`, which the origin rule refuses.
  "Referrer-Policy": "same-origin",
};

/** API answers are data, never a page: nothing loads or runs in them. */
export const API_HEADERS = { ...COMMON_HEADERS, "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'" };
