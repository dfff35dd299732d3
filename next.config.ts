import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // LanceDB ships a native module; it must be required at run time, not bundled.
  serverExternalPackages: ["@lancedb/lancedb", "apache-arrow", "unpdf", "mammoth", "linkedom", "@node-rs/jieba"],
  poweredByHeader: false,
  // Lets several builds of one checkout coexist (parallel test runs); default .next.
  distDir: process.env.NEXT_DIST_DIR || ".next",
};

export default nextConfig;
