"use client";

import { useEffect, useSyncExternalStore } from "react";
import { type Messages, setLocale, storedSettingSubscription, useLocale, useMessages } from "./i18n";
import { THEME_KEY } from "./theme-script";
import { Select } from "./ui";

const T = {
  en: { language: "Language", theme: "Theme", light: "Light", dark: "Dark", system: "System theme" },
  zh: { language: "语言", theme: "主题", light: "浅色", dark: "深色", system: "跟随系统" },
} satisfies Messages;

type Theme = "light" | "dark" | "system";
const THEME_CHANGED = "kb-theme-change";

function storedTheme(): Theme {
  try {
    const v = localStorage.getItem(THEME_KEY);
    return v === "light" || v === "dark" ? v : "system";
  } catch {
    return "system";
  }
}

/** Puts the `dark` class (Tailwind's dark variant, see globals.css) on <html> for the chosen theme. */
function applyTheme(theme: Theme = storedTheme()): void {
  const dark = theme === "dark" || (theme === "system" && window.matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.classList.toggle("dark", dark);
  document.documentElement.style.colorScheme = dark ? "dark" : "light";
}

const subscribeTheme = storedSettingSubscription(THEME_CHANGED);

function setTheme(theme: Theme) {
  try {
    if (theme === "system") localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, theme);
  } catch {
    // private mode: the choice lasts until the page is left
  }
  window.dispatchEvent(new Event(THEME_CHANGED));
}

const SELECT =
  "rounded-lg border border-zinc-300 bg-white px-1 py-0.5 text-xs text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200";

/** The language and theme switches for page headers, each remembered in this browser. */
export function Preferences() {
  const t = useMessages(T);
  const locale = useLocale();
  const theme = useSyncExternalStore(subscribeTheme, storedTheme, () => "system" as Theme);
  useEffect(() => {
    applyTheme(theme);
    if (theme !== "system") return;
    const media = window.matchMedia("(prefers-color-scheme: dark)");
    const follow = () => applyTheme("system");
    media.addEventListener("change", follow);
    return () => media.removeEventListener("change", follow);
  }, [theme]);
  return (
    <span className="inline-flex items-center gap-1" data-testid="preferences">
      <Select label={t.language} testid="language-switch" value={locale} onChange={setLocale} className={SELECT}>
        <option value="en">EN</option>
        <option value="zh" lang="zh-CN">
          中文
        </option>
      </Select>
      <Select label={t.theme} testid="theme-switch" value={theme} onChange={setTheme} className={SELECT}>
        <option value="system">{t.system}</option>
        <option value="light">{t.light}</option>
        <option value="dark">{t.dark}</option>
      </Select>
    </span>
  );
}
