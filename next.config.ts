import type { NextConfig } from "next";
import { API_HEADERS, COMMON_HEADERS } from "./lib/security/headers.mjs";

const asList = (h: Readonly<Record<string, string>>) => Object.entries(h).map(([key, value]) => ({ key, value }));

const nextConfig: NextConfig = {
  // LanceDB, sharp, @napi-rs/canvas and onnxruntime (under @gutenye/ocr-node) ship native modules; they must be
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
    "@gutenye/ocr-node",
    "@gutenye/ocr-common",
    "@napi-rs/canvas",
    "sharp",
    "exceljs",
    "mailparser",
  ],
  poweredByHeader: false,
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
