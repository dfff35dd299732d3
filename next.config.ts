import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // LanceDB ships a native module; it must be required at run time, not bundled. esbuild bundles an MCP Apps
  // view's script when no build made it (lib/apps/bundle.ts).
  serverExternalPackages: ["@lancedb/lancedb", "apache-arrow", "unpdf", "mammoth", "linkedom", "@node-rs/jieba", "esbuild"],
  poweredByHeader: false,
  // Lets several builds of one checkout coexist (parallel test runs); default .next.
  distDir: process.env.NEXT_DIST_DIR || ".next",
};

export default nextConfig;
