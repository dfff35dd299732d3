/**
 * The Content-Security-Policy every page is sent with (proxy.ts sets it, with a fresh nonce per request).
 * Scripts run only by nonce (Next.js reads it from this header and puts it on its own scripts) or, for the
 * theme script in app/layout.tsx, by hash (proxy.ts passes it); 'strict-dynamic' lets those load the app's chunks. Images only
 * from the app or data: (a document's remote image is never fetched: components/markdown shows a link),
 * requests only to the app, and no page may be framed by any other (clickjacking). Styles may be inline:
 * the server-rendered HTML carries style attributes, and a style cannot run code.
 *
 * No form-action: the OAuth consent form's answer is a redirect to the client's own address.
 */
import { createHash, randomBytes } from "node:crypto";

/** The CSP source that allows one inline script by its text. */
export function scriptHash(script: string): string {
  return `'sha256-${createHash("sha256").update(script).digest("base64")}'`;
}

/** A fresh nonce for one response. */
export function newNonce(): string {
  return randomBytes(18).toString("base64");
}

/** The policy for one page: `nonce` for Next.js's scripts, `hashes` (scriptHash) for inline scripts of the app's own. */
export function pagePolicy(nonce: string, hashes: readonly string[] = [], dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' ${[...hashes, "'strict-dynamic'"].join(" ")}${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-src 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}
