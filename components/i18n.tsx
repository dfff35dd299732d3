"use client";

import { useSyncExternalStore } from "react";

/** UI language: the one chosen in the app (remembered per browser), else Chinese when the browser prefers Chinese. */
export type Locale = "en" | "zh";

const LOCALE_KEY = "kb-locale";
const CHANGED = "kb-locale-change";

function detectLocale(): Locale {
  const langs = typeof navigator === "undefined" ? [] : navigator.languages?.length ? navigator.languages : [navigator.language];
  return langs.some((l) => l?.toLowerCase().startsWith("zh")) ? "zh" : "en";
}

function chosenLocale(): Locale | null {
  try {
    const v = localStorage.getItem(LOCALE_KEY);
    return v === "en" || v === "zh" ? v : null;
  } catch {
    return null;
  }
}

/**
 * A useSyncExternalStore subscription to a setting kept in localStorage: `event`, sent by this tab when it
 * changes the setting, and "storage", sent when another tab does.
 */
export function storedSettingSubscription(event: string): (onChange: () => void) => () => void {
  return (onChange) => {
    window.addEventListener(event, onChange);
    window.addEventListener("storage", onChange);
    return () => {
      window.removeEventListener(event, onChange);
      window.removeEventListener("storage", onChange);
    };
  };
}

const subscribe = storedSettingSubscription(CHANGED);

/** Chooses the UI language for this browser. */
export function setLocale(locale: Locale): void {
  try {
    localStorage.setItem(LOCALE_KEY, locale);
  } catch {
    // private mode: the choice lasts until the page is left
  }
  window.dispatchEvent(new Event(CHANGED));
}

export function useLocale(): Locale {
  return useSyncExternalStore(
    subscribe,
    () => chosenLocale() ?? detectLocale(),
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
