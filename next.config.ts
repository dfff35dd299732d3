import type { NextConfig } from "next";

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
    "@napi-rs/canvas",
    "sharp",
    "exceljs",
    "mailparser",
  ],
  poweredByHeader: false,
  // Lets several builds of one checkout coexist (parallel test runs); default .next.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // Pages get their Content-Security-Policy (with a nonce) from proxy.ts. No page may be framed (clickjacking)
  // and none sends a Referer elsewhere. Not "no-referrer": the OAuth consent form's POST would then carry
  // `Origin: null`, which the origin rule (lib/auth/origin.ts) refuses.
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
      // API answers are data, never a page: nothing loads or runs in them (server.mjs sends the same for MCP).
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" }] },
    ];
  },
};

export default nextConfig;
