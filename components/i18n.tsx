"use client";

import { useSyncExternalStore } from "react";

/** UI language: Chinese when the browser prefers Chinese, English otherwise. */
export type Locale = "en" | "zh";

function detectLocale(): Locale {
  const langs = typeof navigator === "undefined" ? [] : navigator.languages?.length ? navigator.languages : [navigator.language];
  return langs.some((l) => l?.toLowerCase().startsWith("zh")) ? "zh" : "en";
}

export function useLocale(): Locale {
  return useSyncExternalStore(
    () => () => {},
    detectLocale,
    () => "en",
  );
}

/**
 * Each feature keeps its own dictionary: `const T = { en: {...}, zh: {...} } satisfies Messages`
 * and reads it with `useMessages(T)`.
 */
export type Messages<K extends string = string> = Record<Locale, Record<K, string>>;

export function useMessages<K extends string>(messages: Messages<K>): Record<K, string> {
  return messages[useLocale()];
}
