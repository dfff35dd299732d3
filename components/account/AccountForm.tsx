import type { ReactNode } from "react";
import { ErrorLine, primaryButtonClass, SubmitForm } from "@/components/ui";

/** A narrow page of its own for an account step (sign in, join): its title, an intro, the error, then the form. */
export function AccountPage({
  title,
  intro,
  error,
  children,
}: {
  title: string;
  intro?: ReactNode;
  error: string | null;
  children: ReactNode;
}) {
  return (
    <main className="mx-auto max-w-sm p-6">
      <h1 className="mb-4 text-2xl font-semibold">{title}</h1>
      {intro}
      {error && <ErrorLine className="mb-3 text-sm">{error}</ErrorLine>}
      {children}
    </main>
  );
}

/** An account step's form: test ids `<name>-form` and `<name>-submit`; its data goes to `onSubmit`, the button says `busyLabel` meanwhile. */
export function AccountForm({
  name,
  label,
  busyLabel,
  busy,
  onSubmit,
  children,
}: {
  name: string;
  label: string;
  busyLabel: string;
  busy: boolean;
  onSubmit(form: FormData): Promise<unknown>;
  children: ReactNode;
}) {
  return (
    <SubmitForm className="flex flex-col gap-3" testid={`${name}-form`} onSubmit={(form) => void onSubmit(new FormData(form))}>
      {children}
      <button type="submit" disabled={busy} className={primaryButtonClass} data-testid={`${name}-submit`}>
        {busy ? busyLabel : label}
      </button>
    </SubmitForm>
  );
}
