"use client";

import { useState } from "react";
import { ErrorLine, Field, inputClass, primaryButtonClass, SubmitForm } from "@/components/ui";
import { KB_NAME_HTML_PATTERN, MAX_KB_DESCRIPTION_CHARS, MAX_KB_NAME_CHARS, MAX_KB_TITLE_CHARS } from "@/lib/kb/names";
import { kbApi } from "./api";
import type { KbMessages } from "./messages";
import { useKbAction } from "./useKbAction";

/** A knowledge-base name from free text: "HR Policies" → "hr-policies" (empty when nothing Latin is left). */
function slugName(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-_]+/, "")
    .replace(/-+$/, "")
    .slice(0, MAX_KB_NAME_CHARS);
}

/** The "New knowledge base" form: name (following the title until edited), title, description. */
export function CreateKbForm({ t, onCreated, onError }: { t: KbMessages; onCreated: () => void; onError: (e: unknown) => void }) {
  const [name, setName] = useState("");
  // The name follows the title until the user types a name of their own.
  const [nameEdited, setNameEdited] = useState(false);
  const [title, setTitle] = useState("");
  const [description, setDescription] = useState("");
  const { busy, error, run } = useKbAction(t, onError);
  return (
    <SubmitForm
      testid="create-kb-form"
      className="grid gap-3 rounded-lg border border-zinc-200 p-4 sm:grid-cols-2 dark:border-zinc-800"
      onSubmit={() => {
        void run(async () => {
          await kbApi.create({ name: name.trim(), title: title.trim() || undefined, description: description.trim() || undefined });
          setName("");
          setNameEdited(false);
          setTitle("");
          setDescription("");
          onCreated();
        });
      }}
    >
      <h2 className="text-base font-semibold sm:col-span-2">{t.newKb}</h2>
      <Field label={t.name}>
        <input
          data-testid="kb-name"
          required
          value={name}
          maxLength={MAX_KB_NAME_CHARS}
          pattern={KB_NAME_HTML_PATTERN}
          onChange={(e) => {
            setNameEdited(true);
            setName(
              e.target.value
                .toLowerCase()
                .replace(/\s+/g, "-")
                .replace(/[^a-z0-9_-]/g, "")
                .replace(/^[-_]+/, ""),
            );
          }}
          className={`${inputClass} font-mono`}
          aria-describedby="kb-name-hint"
        />
        <span id="kb-name-hint" className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">
          {t.nameHint}
        </span>
      </Field>
      <Field label={t.title}>
        <input
          data-testid="kb-title"
          value={title}
          maxLength={MAX_KB_TITLE_CHARS}
          onChange={(e) => {
            setTitle(e.target.value);
            if (!nameEdited) setName(slugName(e.target.value));
          }}
          className={inputClass}
        />
      </Field>
      <Field label={t.description} className="text-sm sm:col-span-2">
        <textarea
          data-testid="kb-description"
          value={description}
          maxLength={MAX_KB_DESCRIPTION_CHARS}
          rows={2}
          placeholder={t.descriptionHint}
          onChange={(e) => setDescription(e.target.value)}
          className={inputClass}
        />
      </Field>
      <div className="sm:col-span-2">
        <button type="submit" data-testid="create-kb" disabled={busy || !name.trim()} className={primaryButtonClass}>
          {busy ? t.creating : t.create}
        </button>
        {error && <ErrorLine>{error}</ErrorLine>}
      </div>
    </SubmitForm>
  );
}
