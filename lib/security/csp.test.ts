import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newNonce, pagePolicy, scriptHash } from "./csp";

const directives = (policy: string) => new Map(policy.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));

describe("the pages' Content-Security-Policy", () => {
  it("runs scripts by nonce or an inline script's hash only, and forbids framing", () => {
    const nonce = newNonce();
    const script = "document.title='x'";
    const p = directives(pagePolicy(nonce, [scriptHash(script)]));
    const hash = `'sha256-${createHash("sha256").update(script).digest("base64")}'`;
    expect(p.get("script-src")).toEqual(["'self'", `'nonce-${nonce}'`, hash, "'strict-dynamic'"]);
    expect(p.get("frame-ancestors")).toEqual(["'none'"]);
    expect(p.get("img-src")).toEqual(["'self'", "data:"]);
    expect(p.get("connect-src")).toEqual(["'self'"]);
    expect(p.get("object-src")).toEqual(["'none'"]);
    expect(pagePolicy(nonce)).not.toMatch(/unsafe-eval/);
  });
  it("makes a new nonce each time", () => {
    expect(newNonce()).not.toBe(newNonce());
    expect(newNonce()).toMatch(/^[A-Za-z0-9+/]{24}$/);
  });
});
