"use client";

/** Placeholder: wraps a page so that files dropped anywhere on it are uploaded. (Owned by the documents feature.) */
export function DocumentDropZone({ children }: { children: React.ReactNode }) {
  return <>{children}</>;
}

/** Placeholder: the "Add documents" button with a file picker. */
export function AddDocumentsButton() {
  return null;
}
