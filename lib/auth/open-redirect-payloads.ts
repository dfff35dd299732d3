/**
 * Classic open-redirect payloads for a return parameter (`next`, `from`), written as they appear in a query
 * string (percent-encoded where an attacker would encode them). The unit test of the return-path rule and the
 * browser test of every return parameter (e2e/return-paths.spec.ts) both run this one list: following any of
 * them must stay on the app's origin.
 */
export const OPEN_REDIRECT_PAYLOADS: readonly string[] = [
  "//evil.example",
  "///evil.example",
  "////evil.example/x",
  "%2F%2Fevil.example",
  "/%2F/evil.example",
  "/%5Cevil.example",
  "/%5C/evil.example",
  "%5C%5Cevil.example",
  "/%5C%5Cevil.example",
  "%2F%5Cevil.example",
  "/%09/evil.example",
  "%2F%09%2Fevil.example",
  "/%0A/evil.example",
  "/%0D/evil.example",
  "/%0D%0A/evil.example",
  "%09//evil.example",
  "%20//evil.example",
  "/.//evil.example",
  "/%2E%2E//evil.example",
  "//evil%E3%80%82example",
  "//127.0.0.1@evil.example",
  "https://evil.example",
  "http://evil.example",
  "https:evil.example",
  "https:/evil.example",
  "HTTPS://evil.example",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "%20javascript:alert(1)",
  "java%09script:alert(1)",
  "data:text/html,%3Cscript%3Ealert(1)%3C/script%3E",
  "vbscript:msgbox(1)",
  "evil.example",
  "%0D%0ALocation:%20http://evil.example",
];

/** What URLSearchParams hands the app for `payload` (the control characters and escapes decoded). */
export function decodedPayload(payload: string): string {
  return new URLSearchParams(`p=${payload}`).get("p") ?? "";
}
