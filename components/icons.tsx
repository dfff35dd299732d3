/**
 * Small icons drawn as SVG: emoji (📎, 📌) need a colour-emoji font that many Linux machines lack, and render as
 * empty boxes there. Decorative: the control around an icon carries its name.
 */

const STROKE = {
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 1.8,
  strokeLinecap: "round",
  strokeLinejoin: "round",
} as const;

export function PaperclipIcon({ size = 16 }: { size?: number }) {
  return (
    <svg aria-hidden="true" data-icon="paperclip" viewBox="0 0 24 24" width={size} height={size} {...STROKE} className="inline-block">
      <path d="m21 11-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l7.9-7.9" />
    </svg>
  );
}

export function PinIcon({ size = 12 }: { size?: number }) {
  return (
    <svg
      aria-hidden="true"
      data-icon="pin"
      viewBox="0 0 24 24"
      width={size}
      height={size}
      {...STROKE}
      className="inline-block align-[-1px]"
    >
      <path d="M9 3h6l-1 6 4 4v2H6v-2l4-4-1-6Zm3 12v6" />
    </svg>
  );
}
