"use client";

import { createContext, useContext, useEffect, useState } from "react";
import { useAccess } from "@/components/account/viewer";
import { DocumentDropZone } from "@/components/documents/DocumentDropZone";
import { useDocumentUploads } from "@/components/documents/UploadContext";
import { useMessages } from "@/components/i18n";
import { compactSelectClass } from "@/components/ui";
import { KbOptions } from "./KbOptions";
import { T } from "./messages";
import { useKbList } from "./use-kb-list";

const STORAGE_KEY = "kb-upload-target";
const Ctx = createContext<{ kb: string; setKb: (kb: string) => void } | null>(null);

/**
 * The documents page's drop zone with a chosen target knowledge base: files dropped or added go into the
 * knowledge base picked in <UploadKbPicker/> (remembered in this browser), the default one otherwise.
 */
export function UploadKbScope({ children, maxFileBytes }: { children: React.ReactNode; maxFileBytes?: number }) {
  const [kb, setKbState] = useState("");
  useEffect(() => {
    try {
      setKbState(localStorage.getItem(STORAGE_KEY) ?? "");
    } catch {
      /* no storage: default knowledge base */
    }
  }, []);
  const setKb = (next: string) => {
    setKbState(next);
    try {
      localStorage.setItem(STORAGE_KEY, next);
    } catch {
      /* ignore */
    }
  };
  return (
    <Ctx.Provider value={{ kb, setKb }}>
      <DocumentDropZone kb={kb || undefined} maxFileBytes={maxFileBytes}>
        {children}
      </DocumentDropZone>
    </Ctx.Provider>
  );
}

/** "Upload into: [knowledge base]" for the documents page header. Renders nothing outside UploadKbScope. */
export function UploadKbPicker() {
  const t = useMessages(T);
  const ctx = useContext(Ctx);
  const { version } = useDocumentUploads();
  const all = useKbList(version); // listed again when an upload finishes
  const { canWrite } = useAccess();
  const kbs = all.filter((k) => canWrite(k.name));
  const defaultKb = kbs.find((k) => k.isDefault)?.name;
  // A remembered knowledge base deleted meanwhile (never re-created by an upload), or one this person may not
  // write to ("" is the default one): the default one if they may write to it, else the first they may.
  const stale = kbs.length > 0 && (ctx?.kb ? !kbs.some((k) => k.name === ctx.kb) : !defaultKb);
  const fallback = defaultKb ? "" : (kbs[0]?.name ?? "");
  useEffect(() => {
    if (stale) ctx?.setKb(fallback);
  }, [stale, ctx, fallback]);
  if (!ctx || kbs.length === 0) return null;
  const { kb, setKb } = ctx;
  const selected = (stale ? fallback : kb) || defaultKb || "";
  return (
    <label className="flex items-center gap-2 text-sm">
      <span className="text-zinc-600 dark:text-zinc-400">{t.uploadInto}</span>
      <select data-testid="upload-kb" value={selected} onChange={(e) => setKb(e.target.value)} className={compactSelectClass}>
        <KbOptions kbs={kbs} />
      </select>
    </label>
  );
}
