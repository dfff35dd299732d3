"use client";

import { usePathname, useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useState } from "react";
import { apiFetch, forgetStoredAdminSecret } from "@/components/api";
import { safeReturnPath } from "@/lib/auth/return-path";
import { type AccessLimit, limitOf, mayWrite, type Viewer } from "@/lib/auth/roles";
// On every page, before any zod parser runs in the browser: no eval under the CSP.
import "@/lib/security/zod-jitless";

export interface SessionInfo {
  viewer: Viewer | null;
  csrf: string | null;
  sso: { name: string } | null;
}

/** Pages anyone may open: signing in, joining, and the OAuth consent (which asks on its own). */
const OPEN_PATHS = ["/signin", "/invite", "/oauth/"];

const ViewerContext = createContext<Viewer | null>(null);

/** Who is using the app: null until known. Every page reads it to show only what the role allows. */
export function useViewer(): Viewer | null {
  return useContext(ViewerContext);
}

/** What the viewer may reach (nothing until known; the server decides anyway). */
export function useAccess(): AccessLimit & { admin: boolean; canWrite: (kb: string) => boolean } {
  const viewer = useViewer();
  const limit: AccessLimit = viewer ? limitOf(viewer) : { kbs: [], write: false };
  return { ...limit, admin: viewer?.role === "admin", canWrite: (kb) => mayWrite(limit, kb) };
}

/** Loads the session once; a browser that must sign in is sent to /signin (and back afterwards). */
export function ViewerProvider({ children }: { children: React.ReactNode }) {
  const [viewer, setViewer] = useState<Viewer | null>(null);
  const pathname = usePathname();
  const router = useRouter();
  useEffect(() => {
    let live = true;
    forgetStoredAdminSecret();
    apiFetch<SessionInfo>("/api/session")
      .then((s) => {
        if (!live) return;
        setViewer(s.viewer);
        if (!s.viewer && !OPEN_PATHS.some((p) => pathname.startsWith(p))) {
          router.replace(`/signin?next=${encodeURIComponent(safeReturnPath(window.location.pathname + window.location.search))}`);
        }
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [pathname, router]);
  return <ViewerContext.Provider value={viewer}>{children}</ViewerContext.Provider>;
}
