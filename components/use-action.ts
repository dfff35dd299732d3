"use client";

import { useState } from "react";

/**
 * Runs one call at a time for a form: `busy` while it runs, `error` when it failed (`failed` words it). With
 * `busyAfter`, a call that succeeded leaves the form busy: the page is being left.
 */
export function useAction(failed: (err: unknown) => string, opts: { initialError?: string | null; busyAfter?: boolean } = {}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(opts.initialError ?? null);
  async function run(fn: () => Promise<unknown>) {
    setBusy(true);
    setError(null);
    try {
      await fn();
      if (!opts.busyAfter) setBusy(false);
    } catch (err) {
      setError(failed(err));
      setBusy(false);
    }
  }
  return { busy, error, setError, run };
}
