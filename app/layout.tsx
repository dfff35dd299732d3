import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import { ViewerProvider } from "@/components/account/viewer";
import { HtmlLang } from "@/components/HtmlLang";
import { THEME_SCRIPT } from "@/components/theme-script";
import "./globals.css";

export const metadata: Metadata = {
  title: "Knowledge Chat",
  description: "Chat with your documents; retrieval served as an MCP server.",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page is rendered per request: Next.js puts the request's CSP nonce (proxy.ts) on its scripts then.
  await connection();
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* The remembered theme, before the first paint. */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script of our own */}
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-white font-sans text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <HtmlLang />
        <ViewerProvider>{children}</ViewerProvider>
      </body>
    </html>
  );
}
