/**
 * Next.js's request proxy (formerly middleware): every page and route outside /api and the static assets gets
 * the Content-Security-Policy of lib/security/csp.ts with a fresh nonce. The nonce goes on the request's own
 * CSP header too, where Next.js reads it while rendering. The other security headers are in next.config.ts.
 */
import { type NextRequest, NextResponse } from "next/server";
import { THEME_SCRIPT } from "@/components/theme-script";
import { newNonce, pagePolicy, scriptHash } from "@/lib/security/csp";

/** The app's own inline scripts (app/layout.tsx), allowed by hash. */
const INLINE_SCRIPTS = [scriptHash(THEME_SCRIPT)];

export function proxy(request: NextRequest) {
  const policy = pagePolicy(newNonce(), INLINE_SCRIPTS, process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: ["/((?!api/|_next/static/|_next/image|favicon\\.ico).*)"],
};
