import { describe, expect, it } from "vitest";
import { decodedPayload, OPEN_REDIRECT_PAYLOADS } from "./open-redirect-payloads";
import { safeReturnPath } from "./return-path";

describe("safeReturnPath (where sign-in goes next)", () => {
  it("keeps a path of this site, with its query and fragment", () => {
    expect(safeReturnPath("/documents?kb=default#top")).toBe("/documents?kb=default#top");
    expect(safeReturnPath("/oauth/authorize?request_id=abc")).toBe("/oauth/authorize?request_id=abc");
    expect(safeReturnPath("/%09literal")).toBe("/%09literal");
  });

  it("never leaves the site, after the URL parser's normalisation", () => {
    // What URLSearchParams hands over for next=/%09/evil.example/x and its kin: the control characters decoded.
    for (const raw of [
      "/\t/evil.example/x",
      "/\n/evil.example/x",
      "/\r/evil.example/x",
      "/\r\n/evil.example/x",
      "\t//evil.example/x",
      "//evil.example/x",
      "/\\evil.example/x",
      "\\\\evil.example/x",
      "/\\/evil.example/x",
      "https://evil.example/x",
      "javascript:alert(1)",
      "/./\t/evil.example",
      "evil.example",
      "",
    ]) {
      const out = safeReturnPath(raw);
      expect(out, JSON.stringify(raw)).not.toMatch(/evil|javascript/);
      expect(new URL(out, "http://app.test").origin, JSON.stringify(raw)).toBe("http://app.test");
    }
    for (const payload of OPEN_REDIRECT_PAYLOADS) {
      const out = safeReturnPath(decodedPayload(payload));
      expect(new URL(out, "http://app.test").origin, payload).toBe("http://app.test");
      expect(out, payload).not.toMatch(/evil|script:|data:/i);
    }
    expect(safeReturnPath(null)).toBe("/");
    expect(safeReturnPath(undefined)).toBe("/");
  });
});
