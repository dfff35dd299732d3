"use client";

import { useState } from "react";
import { Field, FormActions, inputClass, SubmitForm, TextBox } from "@/components/ui";
import { MAX_KB_DESCRIPTION_CHARS, MAX_KB_INSTRUCTIONS_CHARS, MAX_KB_NAME_CHARS, MAX_KB_TITLE_CHARS } from "@/lib/kb/names";
import type { KnowledgeBase } from "@/lib/kb/types";
import type { KbMessages } from "./messages";

export type KbPatch = { name?: string; title?: string; description?: string; instructions?: string };

/** The free-text fields, each labelled by its key's message; `hint` and `note` name their messages too. */
const TEXT_FIELDS: {
  key: "title" | "description" | "instructions";
  maxLength: number;
  rows?: number;
  hint?: "descriptionHint" | "instructionsHint";
  note?: "instructionsNote";
}[] = [
  { key: "title", maxLength: MAX_KB_TITLE_CHARS },
  { key: "description", maxLength: MAX_KB_DESCRIPTION_CHARS, rows: 3, hint: "descriptionHint" },
  { key: "instructions", maxLength: MAX_KB_INSTRUCTIONS_CHARS, rows: 3, hint: "instructionsHint", note: "instructionsNote" },
];

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
      <Field label={t.name} note={!kb.isDefault && t.renameNote}>
        <input
          data-testid="kb-edit-name"
          value={form.name}
          disabled={kb.isDefault}
          maxLength={MAX_KB_NAME_CHARS}
          onChange={(e) => setForm({ ...form, name: e.target.value.toLowerCase() })}
          className={`${inputClass} font-mono`}
        />
      </Field>
      {TEXT_FIELDS.map((f) => (
        <Field key={f.key} label={t[f.key]} note={f.note && t[f.note]}>
          <TextBox
            label={t[f.key]}
            testid={`kb-edit-${f.key}`}
            value={form[f.key]}
            rows={f.rows}
            maxLength={f.maxLength}
            placeholder={f.hint && t[f.hint]}
            onChange={(value) => setForm({ ...form, [f.key]: value })}
            className={inputClass}
          />
        </Field>
      ))}
      <FormActions testid="kb-save" busy={busy} label={t.save} busyLabel={t.saving} cancelLabel={t.cancel} onCancel={onCancel} />
    </SubmitForm>
  );
}
