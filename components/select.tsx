"use client";

import { type ReactNode, useSyncExternalStore } from "react";

/** A drop-down named by `label` (its aria-label) and bound to `value`; `children` are its options. */
export function Select<T extends string>({
  label,
  testid,
  value,
  onChange,
  className,
  children,
}: {
  label: string;
  testid: string;
  value: T;
  onChange(value: T): void;
  className: string;
  children: ReactNode;
}) {
  // A choice made before the page's script runs would be shown and then lost: the drop-down waits for it.
  const hydrated = useSyncExternalStore(subscribeToNothing, isClient, isServer);
  return (
    <select
      aria-label={label}
      data-testid={testid}
      value={value}
      onChange={(e) => onChange(e.target.value as T)}
      className={className}
      disabled={!hydrated}
    >
      {children}
    </select>
  );
}

const subscribeToNothing = () => () => {};
const isClient = () => true;
const isServer = () => false;
