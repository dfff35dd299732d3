"use client";

import { useState } from "react";
import { signInWithAdminSecret } from "@/components/api";
import { inputClass, primaryButtonClass, SubmitForm } from "@/components/ui";
import type { KbMessages } from "./messages";

/** Asks for the admin secret when the API refuses this browser, and exchanges it for a session (the secret is not kept). */
export function AdminTokenPrompt({ t, onSet }: { t: KbMessages; onSet: () => void }) {
  const [value, setValue] = useState("");
  return (
    <SubmitForm
      className="mb-6 flex flex-wrap items-end gap-2 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950"
      onSubmit={() => {
        void signInWithAdminSecret(value)
          .catch(() => {})
          .then(() => {
            setValue("");
            onSet();
          });
      }}
    >
      <p className="w-full">{t.adminNeeded}</p>
      <label className="min-w-0 flex-1">
        <span className="sr-only">{t.adminToken}</span>
        <input
          type="password"
          data-testid="admin-token"
          value={value}
          placeholder={t.adminToken}
          onChange={(e) => setValue(e.target.value)}
          className={inputClass}
        />
      </label>
      <button type="submit" className={primaryButtonClass}>
        {t.useAdminToken}
      </button>
    </SubmitForm>
  );
}
