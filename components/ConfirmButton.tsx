"use client";

import { type ReactNode, useState } from "react";

/**
 * A button that asks first: pressed, it shows `question` with a yes button (test id `<testid>-confirm`) that
 * runs `onConfirm`, and a no. The question closes once `onConfirm` is done, unless it says `false` (it failed).
 */
export function ConfirmButton({
  testid,
  label,
  question,
  yes,
  no,
  onConfirm,
  disabled,
  classes,
}: {
  testid: string;
  label: ReactNode;
  question: ReactNode;
  yes: ReactNode;
  no: ReactNode;
  onConfirm(): Promise<unknown>;
  disabled?: boolean;
  classes: { trigger: string; prompt: string; yes: string; no: string };
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" data-testid={testid} disabled={disabled} onClick={() => setAsking(true)} className={classes.trigger}>
        {label}
      </button>
    );
  }
  return (
    <span className={classes.prompt}>
      {question}
      <button
        type="button"
        data-testid={`${testid}-confirm`}
        disabled={disabled}
        onClick={async () => {
          if ((await onConfirm()) !== false) setAsking(false);
        }}
        className={classes.yes}
      >
        {yes}
      </button>
      <button type="button" onClick={() => setAsking(false)} className={classes.no}>
        {no}
      </button>
    </span>
  );
}
