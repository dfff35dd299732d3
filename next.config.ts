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
  // The OAuth consent page must not be framed by another site (clickjacking an Allow click), and sends no
  // Referer elsewhere. Not "no-referrer": the consent form's POST would then carry `Origin: null`, which the
  // origin rule (lib/auth/origin.ts) refuses.
  async headers() {
    return [
      {
        source: "/oauth/:path*",
        headers: [
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};

export default nextConfig;
