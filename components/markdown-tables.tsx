/** How GitHub-flavoured Markdown tables are drawn, in answers and in the document view alike. */
import type { Components } from "react-markdown";

export function tableComponents(testId?: string): Pick<Components, "table" | "th" | "td"> {
  return {
    table: ({ children }) => (
      <div className="my-2 overflow-x-auto">
        <table data-testid={testId} className="min-w-full border-collapse text-sm">
          {children}
        </table>
      </div>
    ),
    th: ({ children, style }) => (
      <th
        style={style}
        className="border border-zinc-300 bg-zinc-50 px-2 py-1 text-left font-semibold dark:border-zinc-700 dark:bg-zinc-900"
      >
        {children}
      </th>
    ),
    td: ({ children, style }) => (
      <td style={style} className="border border-zinc-300 px-2 py-1 align-top dark:border-zinc-700">
        {children}
      </td>
    ),
  };
}
