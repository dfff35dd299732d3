"use client";

import { useState } from "react";

/**
 * Runs one call at a time for a form: `busy` while it runs, `error` when it failed (`failed` words it). With
 * `busyAfter`, a call that succeeded leaves the form busy: the page is being left.
 */
export function useAction(failed: (err: unknown) => string, opts: { initialError?: string | null; busyAfter?: boolean } = {}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(opts.initialError ?? null);
  /** Resolves to whether `fn` succeeded. */
  async function run(fn: () => Promise<unknown>): Promise<boolean> {
    setBusy(true);
    setError(null);
    try {
      await fn();
      if (!opts.busyAfter) setBusy(false);
      return true;
    } catch (err) {
      setError(failed(err));
      setBusy(false);
      return false;
    }
  }
  return { busy, error, setError, run };
}
