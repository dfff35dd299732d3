"use client";

import { useEffect } from "react";
import { type Locale, useLocale } from "./i18n";

/** The parts of the pages' `<title>`s (set in English by each page's metadata), in Chinese. */
const TITLE_ZH: Record<string, string> = {
  "Knowledge Chat": "知识库问答",
  Documents: "文档",
  Document: "文档",
  FAQ: "常见问题",
  "Knowledge bases": "知识库",
  "Audit log": "审计日志",
  People: "成员",
  "Sign in": "登录",
  Join: "加入",
  Authorize: "授权",
};

function titleIn(title: string, locale: Locale): string {
  if (locale === "en") return title;
  return title
    .split(" · ")
    .map((part) => TITLE_ZH[part] ?? part)
    .join(" · ");
}

/**
 * Keeps `<html lang>` on the UI language (chosen in the app or detected in the browser), for screen readers
 * and font choice, and the tab's title in that language (Next sets it in English from each page's metadata).
 */
export function HtmlLang() {
  const locale = useLocale();
  useEffect(() => {
    document.documentElement.lang = locale === "zh" ? "zh-CN" : "en";
    let original = document.title;
    let shown = "";
    const apply = () => {
      if (document.title === shown) return;
      original = document.title;
      shown = titleIn(original, locale);
      if (shown !== original) document.title = shown;
    };
    apply();
    // Navigating to another page sets its English title again.
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { subtree: true, childList: true, characterData: true });
    return () => {
      observer.disconnect();
      document.title = original;
    };
  }, [locale]);
  return null;
}
