/** Small pieces the feature folders share: form-control classes, a button, a labelled field, a password box, a text box, a drop-down, a form, tabs and an error line. */
import type { ChangeEvent, ReactNode, Ref } from "react";
import { ACCEPT_ATTRIBUTE } from "@/lib/parse/formats";

export const inputClass =
  "w-full rounded-md border border-zinc-300 bg-transparent px-2.5 py-1.5 text-sm dark:border-zinc-700 focus:outline-none focus:ring-2 focus:ring-sky-500";
export const buttonClass =
  "rounded-md border border-zinc-300 px-2.5 py-1 text-sm hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800";
/** A small drop-down beside a page's other controls (a filter, a target knowledge base). */
export const compactSelectClass = "rounded-md border border-zinc-300 bg-transparent px-2 py-1.5 text-sm dark:border-zinc-700";
/** A link to another page of the app, in a page's header. */
export const navLinkClass = "text-sm text-sky-700 hover:underline dark:text-sky-300";
export const primaryButtonClass = "rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-800 disabled:opacity-50";

/** A plain button (not a form's submit) with its test id. */
export function Button({
  testid,
  className,
  onClick,
  disabled,
  children,
}: {
  testid: string;
  className: string;
  onClick(): unknown;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <button type="button" data-testid={testid} onClick={onClick} disabled={disabled} className={className}>
      {children}
    </button>
  );
}

/** An error the user should hear at once (role="alert"), in red; `className` sets its spacing and size. */
export function ErrorLine({ children, className = "mt-2 text-sm" }: { children: ReactNode; className?: string }) {
  return (
    <p role="alert" className={`${className} text-red-600 dark:text-red-400`.trim()}>
      {children}
    </p>
  );
}

/** A form control with its visible label above it, and `note` (a hint) under it. */
export function Field({
  label,
  note,
  className = "text-sm",
  children,
}: {
  label: ReactNode;
  note?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is `children`, labelled by nesting
    <label className={className}>
      <span className="mb-1 block">{label}</span>
      {children}
      {note && <span className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">{note}</span>}
    </label>
  );
}

/** A password box, required; `minLength` for a new password. */
export function PasswordInput({
  name,
  autoComplete,
  testid,
  minLength,
}: {
  name: string;
  autoComplete: "current-password" | "new-password";
  testid: string;
  minLength?: number;
}) {
  return (
    <input
      name={name}
      type="password"
      autoComplete={autoComplete}
      minLength={minLength}
      required
      className={inputClass}
      data-testid={testid}
    />
  );
}

/** A text box named by `label` (its aria-label) and bound to `value`: an input, or a textarea of `rows` lines. */
export function TextBox({
  label,
  testid,
  value,
  onChange,
  rows,
  ...rest
}: {
  label: string;
  testid: string;
  value: string;
  onChange(value: string): void;
  rows?: number;
  type?: "search";
  className: string;
  maxLength?: number;
  placeholder?: string;
  required?: boolean;
}) {
  const props = {
    "aria-label": label,
    "data-testid": testid,
    value,
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => onChange(e.target.value),
    ...rest,
  };
  return rows ? <textarea rows={rows} {...props} /> : <input {...props} />;
}

export { Select } from "./select";

/** One <option> per value, labelled by the value itself. */
export function ValueOptions({ values }: { values: readonly string[] }) {
  return values.map((v) => (
    <option key={v} value={v}>
      {v}
    </option>
  ));
}

/** A form handled in the page: submitting runs `onSubmit` with the form instead of navigating. */
export function SubmitForm({
  testid,
  className,
  onSubmit,
  children,
}: {
  testid?: string;
  className: string;
  onSubmit(form: HTMLFormElement): void;
  children: ReactNode;
}) {
  return (
    <form
      data-testid={testid}
      className={className}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(e.currentTarget);
      }}
    >
      {children}
    </form>
  );
}

/** A form's submit button (its `busy` label while it works) and Cancel. */
export function FormActions({
  testid,
  className = "flex gap-2",
  busy,
  label,
  busyLabel,
  cancelLabel,
  onCancel,
}: {
  testid: string;
  className?: string;
  busy: boolean;
  label: string;
  busyLabel: string;
  cancelLabel: string;
  onCancel(): void;
}) {
  return (
    <div className={className}>
      <button type="submit" data-testid={testid} disabled={busy} className={primaryButtonClass}>
        {busy ? busyLabel : label}
      </button>
      <button type="button" onClick={onCancel} className={buttonClass}>
        {cancelLabel}
      </button>
    </div>
  );
}

/** A row of tabs (role="tablist"), `selected` the chosen one; each tab's test id is `testidPrefix` and its id. */
export function Tabs<T extends string>({
  tabs,
  selected,
  onSelect,
  testidPrefix,
  tabClass,
  label,
  className,
}: {
  tabs: readonly { id: T; label: ReactNode }[];
  selected: NoInfer<T> | undefined;
  onSelect(id: NoInfer<T>): void;
  testidPrefix: string;
  /** A tab's classes, chosen or not. */
  tabClass(chosen: boolean): string;
  label?: string;
  className: string;
}) {
  return (
    <div role="tablist" aria-label={label} className={className}>
      {tabs.map((tab) => (
        <button
          key={tab.id}
          type="button"
          role="tab"
          aria-selected={tab.id === selected}
          data-testid={`${testidPrefix}${tab.id}`}
          className={tabClass(tab.id === selected)}
          onClick={() => onSelect(tab.id)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

/** The hidden file input behind an "add files" button: the formats the library reads; a pick is handed on once. */
export function HiddenFileInput({
  inputRef,
  testid,
  onFiles,
}: {
  inputRef: Ref<HTMLInputElement>;
  testid: string;
  onFiles: (files: File[]) => void;
}) {
  return (
    <input
      ref={inputRef}
      type="file"
      multiple
      accept={ACCEPT_ATTRIBUTE}
      data-testid={testid}
      className="hidden"
      onChange={(e) => {
        const files = Array.from(e.target.files ?? []);
        e.target.value = "";
        if (files.length) onFiles(files);
      }}
    />
  );
}

/** A list's place on a page: "loading" until `items` arrive, the empty text when there are none, else the list. */
export function ListOrStatus<T>({
  items,
  loading,
  empty,
  emptyTestId,
  children,
}: {
  items: readonly T[] | null;
  loading: string;
  empty: string;
  emptyTestId: string;
  children: (items: readonly T[]) => ReactNode;
}) {
  if (items === null) return <p className="text-sm text-zinc-600 dark:text-zinc-400">{loading}</p>;
  if (items.length === 0)
    return (
      <p data-testid={emptyTestId} className="text-sm text-zinc-600 dark:text-zinc-400">
        {empty}
      </p>
    );
  return children(items);
}
