"use client";

import { useState } from "react";
import { Field, FormActions, inputClass, SubmitForm } from "@/components/ui";
import { MAX_KB_DESCRIPTION_CHARS, MAX_KB_INSTRUCTIONS_CHARS, MAX_KB_NAME_CHARS, MAX_KB_TITLE_CHARS } from "@/lib/kb/names";
import type { KnowledgeBase } from "@/lib/kb/types";
import type { KbMessages } from "./messages";

export type KbPatch = { name?: string; title?: string; description?: string; instructions?: string };

/** Rename and describe one knowledge base; saves only what changed (nothing changed: just closes). */
export function KbEditForm({
  kb,
  t,
  busy,
  onSave,
  onCancel,
}: {
  kb: KnowledgeBase;
  t: KbMessages;
  busy: boolean;
  onSave: (patch: KbPatch) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState({ name: kb.name, title: kb.title, description: kb.description, instructions: kb.instructions ?? "" });
  return (
    <SubmitForm
      className="grid gap-2"
      onSubmit={() => {
        const patch: KbPatch = {};
        if (form.name.trim() !== kb.name) patch.name = form.name.trim();
        if (form.title !== kb.title) patch.title = form.title;
        if (form.description !== kb.description) patch.description = form.description;
        if (form.instructions !== (kb.instructions ?? "")) patch.instructions = form.instructions;
        if (Object.keys(patch).length === 0) return onCancel();
        onSave(patch);
      }}
    >
      <Field label={t.name}>
        <input
          data-testid="kb-edit-name"
          value={form.name}
          disabled={kb.isDefault}
          maxLength={MAX_KB_NAME_CHARS}
          onChange={(e) => setForm({ ...form, name: e.target.value.toLowerCase() })}
          className={`${inputClass} font-mono`}
        />
        {!kb.isDefault && <span className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">{t.renameNote}</span>}
      </Field>
      <Field label={t.title}>
        <input
          data-testid="kb-edit-title"
          value={form.title}
          maxLength={MAX_KB_TITLE_CHARS}
          onChange={(e) => setForm({ ...form, title: e.target.value })}
          className={inputClass}
        />
      </Field>
      <Field label={t.description}>
        <textarea
          data-testid="kb-edit-description"
          value={form.description}
          rows={3}
          maxLength={MAX_KB_DESCRIPTION_CHARS}
          placeholder={t.descriptionHint}
          onChange={(e) => setForm({ ...form, description: e.target.value })}
          className={inputClass}
        />
      </Field>
      <Field label={t.instructions}>
        <textarea
          data-testid="kb-edit-instructions"
          value={form.instructions}
          rows={3}
          maxLength={MAX_KB_INSTRUCTIONS_CHARS}
          placeholder={t.instructionsHint}
          onChange={(e) => setForm({ ...form, instructions: e.target.value })}
          className={inputClass}
        />
        <span className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">{t.instructionsNote}</span>
      </Field>
      <FormActions testid="kb-save" busy={busy} label={t.save} busyLabel={t.saving} cancelLabel={t.cancel} onCancel={onCancel} />
    </SubmitForm>
  );
}
