"use client";

import { useEffect } from "react";
import { useLocale } from "./i18n";

/** Keeps `<html lang>` on the UI language (detected in the browser), for screen readers and font choice. */
export function HtmlLang() {
  const locale = useLocale();
  useEffect(() => {
    document.documentElement.lang = locale === "zh" ? "zh-CN" : "en";
  }, [locale]);
  return null;
}
