import { useEffect, useState } from "react";
import type { KnowledgeBase } from "@/lib/kb/types";
import { kbApi } from "./api";

/**
 * The knowledge bases a page offers as tabs and the one picked: `initialKb` (from the address) when given, else the
 * default one once the list arrives.
 */
export function usePickedKb(initialKb: string | undefined, onError: (e: unknown) => void) {
  const [kbs, setKbs] = useState<KnowledgeBase[]>([]);
  const [kb, setKb] = useState<string | undefined>(initialKb || undefined);
  useEffect(() => {
    kbApi.list().then((r) => {
      setKbs(r.kbs);
      setKb((cur) => cur ?? (r.kbs.find((k) => k.isDefault) ?? r.kbs[0])?.name);
    }, onError);
  }, [onError]);
  return { kbs, kb, setKb };
}
