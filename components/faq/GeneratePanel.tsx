"use client";

import { useEffect, useState } from "react";
import { apiFetch } from "@/components/api";
import { useMessages } from "@/components/i18n";
import { Select } from "@/components/ui";
import type { GenerationProgress } from "@/lib/faq/generate-types";
import { fill, T } from "./messages";

interface DocInfo {
  id: string;
  title: string;
}

/** Starts model generation of FAQ pairs for one document, shows its progress, and cancels it. */
export function GeneratePanel({ kb, onProgress }: { kb: string; onProgress: () => void }) {
  const t = useMessages(T);
  const [docs, setDocs] = useState<DocInfo[]>([]);
  const [doc, setDoc] = useState("");
  const [progress, setProgress] = useState<GenerationProgress | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    apiFetch<{ documents: DocInfo[] }>(`/api/documents?kb=${encodeURIComponent(kb)}`).then(
      (r) => {
        setDocs(r.documents);
        setDoc((cur) => (r.documents.some((d) => d.id === cur) ? cur : (r.documents[0]?.id ?? "")));
      },
      () => setDocs([]),
    );
  }, [kb]);

  const running = progress?.status === "running";
  useEffect(() => {
    if (!running || !doc) return;
    const timer = setInterval(() => {
      apiFetch<{ progress: GenerationProgress | null }>(`/api/faqs/generate?document_id=${encodeURIComponent(doc)}`).then(
        (r) => {
          setProgress(r.progress);
          if (r.progress?.status !== "running") onProgress();
        },
        () => {},
      );
    }, 500);
    return () => clearInterval(timer);
  }, [running, doc, onProgress]);

  const run = (method: "POST" | "DELETE") => {
    setError(null);
    const req =
      method === "POST"
        ? apiFetch<{ progress: GenerationProgress }>("/api/faqs/generate", { method, body: { document_id: doc } })
        : apiFetch<{ progress: GenerationProgress }>(`/api/faqs/generate?document_id=${encodeURIComponent(doc)}`, { method });
    req.then(
      (r) => setProgress(r.progress),
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
  };

  if (docs.length === 0) return null;
  return (
    <div
      data-testid="faq-generate"
      className="flex flex-wrap items-center gap-2 rounded-lg border border-dashed border-zinc-300 p-3 text-sm dark:border-zinc-700"
    >
      <span className="font-medium">{t.generate}</span>
      <Select
        label={t.document}
        testid="faq-generate-document"
        value={doc}
        onChange={setDoc}
        className="min-w-0 flex-1 rounded-lg border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-900"
      >
        {docs.map((d) => (
          <option key={d.id} value={d.id}>
            {d.title}
          </option>
        ))}
      </Select>
      {running ? (
        <button
          type="button"
          data-testid="faq-generate-cancel"
          onClick={() => run("DELETE")}
          className="rounded-lg px-3 py-1 text-red-700 hover:bg-red-50"
        >
          {t.cancel}
        </button>
      ) : (
        <button
          type="button"
          data-testid="faq-generate-start"
          onClick={() => run("POST")}
          disabled={!doc}
          className="rounded-lg bg-blue-600 px-3 py-1 font-medium text-white hover:bg-blue-700 disabled:opacity-50"
        >
          {t.generateStart}
        </button>
      )}
      {progress && (
        <span data-testid="faq-generate-progress" data-status={progress.status} className="w-full text-xs text-zinc-600 dark:text-zinc-400">
          {fill(t.generateProgress, {
            status: progress.status,
            done: progress.done,
            total: progress.total,
            kept: progress.kept,
            dropped: progress.dropped,
          })}
        </span>
      )}
      {error && (
        <span role="alert" className="w-full text-xs text-red-700">
          {fill(t.failed, { message: error })}
        </span>
      )}
    </div>
  );
}
