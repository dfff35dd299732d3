/**
 * Where to go after signing in (`next`, a return path): only a path of this site. Browser-safe; the one rule for
 * every return path, server and browser. The value is judged after the URL parser's normalisation, which drops
 * tabs and newlines and reads "\" as "/": "/\t/evil.example" is "//evil.example" to a browser.
 */
const BASE = "http://return-path.invalid";

export function safeReturnPath(raw: string | null | undefined): string {
  if (typeof raw !== "string" || !raw.startsWith("/")) return "/";
  const url = URL.parse(raw, BASE);
  if (!url || url.origin !== BASE) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  // A path that still begins with two slashes (or a backslash) would be read as another host once written out.
  return /^\/[/\\]/.test(path) ? "/" : path;
}
