"use client";

import { useEffect, useState } from "react";
import type { KnowledgeBase } from "@/lib/kb/types";
import { kbApi } from "./api";

/** The knowledge bases, listed again each time `reloadKey` changes; empty until listed, and kept as they were when a listing fails. */
export function useKbList(reloadKey: unknown): KnowledgeBase[] {
  const [kbs, setKbs] = useState<KnowledgeBase[]>([]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloadKey is what asks for a new listing
  useEffect(() => {
    kbApi
      .list()
      .then((r) => setKbs(r.kbs))
      .catch(() => {});
  }, [reloadKey]);
  return kbs;
}
