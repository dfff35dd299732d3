"use client";

import { useState } from "react";
import { apiErrorText } from "@/components/api";
import type { KbMessages } from "./messages";

/** Runs one call at a time for a form: `busy` while it runs, `error` (readable) when it failed. */
export function useKbAction(t: KbMessages, onError: (e: unknown) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run(fn: () => Promise<unknown>) {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      onError(err);
      setError(apiErrorText(err, t.networkError, t.loadFailed));
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, run };
}
