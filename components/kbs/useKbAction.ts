"use client";

import { apiErrorText } from "@/components/api";
import { useAction } from "@/components/use-action";
import type { KbMessages } from "./messages";

/** useAction for the knowledge-base forms: a failure is also handed to `onError`. */
export function useKbAction(t: KbMessages, onError: (e: unknown) => void) {
  return useAction((err) => {
    onError(err);
    return apiErrorText(err, t.networkError, t.loadFailed);
  });
}
