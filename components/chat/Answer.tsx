"use client";

import { createContext, memo, useContext, useEffect, useMemo, useState } from "react";
import Markdown, { type Components, type Options } from "react-markdown";
import remarkGfm from "remark-gfm";
import { ImageLink } from "@/components/ImageLink";
import { tableComponents } from "@/components/markdown-tables";
import { CHECK_HREF, CITE_HREF, linkCitations } from "@/lib/agent/answer-links";
import type { Citation, CitationCheck } from "@/lib/agent/protocol";
import { CitationChip } from "./CitationChip";
import { CodeBlock } from "./CodeBlock";
import { checkNoteText } from "./checked-answer";
import type { ChatText } from "./strings";

interface AnswerContext {
  citations: Map<number, Citation>;
  claims: string[];
  check?: CitationCheck;
  t: ChatText;
}

// The Markdown components are module-level (stable identities), so chips keep their open state while
// the answer streams; what they need comes through this context.
const Ctx = createContext<AnswerContext | null>(null);

/** What the citation check says after a sentence: its citation was corrected, or no source supports it (checked-answer.ts). */
function CheckNote({ k }: { k: number }) {
  const ctx = useContext(Ctx)!;
  const s = ctx.check?.sentences[k];
  const text = s && checkNoteText(s, ctx.citations, ctx.t);
  if (!s || !text) return null;
  if (s.unsupported) {
    return (
      <span
        data-testid="unsupported-mark"
        data-reason={s.unsupported}
        className="ml-1 rounded bg-amber-100 px-1 py-0.5 text-[11px] font-medium text-amber-900 dark:bg-amber-900/40 dark:text-amber-100"
      >
        {text}
      </span>
    );
  }
  return (
    <span data-testid="citation-moved" className="ml-1 text-[11px] text-zinc-600 dark:text-zinc-400">
      {text}
    </span>
  );
}

function MarkdownLink({ href, children }: { href?: string; children?: React.ReactNode }) {
  const ctx = useContext(Ctx)!;
  const note = href?.match(CHECK_HREF);
  if (note) return <CheckNote k={Number(note[1])} />;
  const m = href?.match(CITE_HREF);
  const c = m ? ctx.citations.get(Number(m[1])) : undefined;
  if (m && c) return <CitationChip n={c.n} citation={c} claim={ctx.claims[Number(m[2])]} t={ctx.t} />;
  return (
    <a href={href} target="_blank" rel="noreferrer noopener" className="text-blue-700 underline dark:text-blue-300">
      {children}
    </a>
  );
}

const components: Components = {
  a: ({ href, children }) => <MarkdownLink href={href}>{children}</MarkdownLink>,
  img: ({ src, alt }) => <ImageLink src={src} alt={alt} />,
  p: ({ children }) => <p className="my-2 leading-relaxed first:mt-0 last:mb-0">{children}</p>,
  ul: ({ children }) => <ul className="my-2 list-disc space-y-1 pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="my-2 list-decimal space-y-1 pl-5">{children}</ol>,
  li: ({ children }) => <li className="leading-relaxed">{children}</li>,
  h1: ({ children }) => <h3 className="mt-3 mb-1 text-base font-semibold">{children}</h3>,
  h2: ({ children }) => <h3 className="mt-3 mb-1 text-base font-semibold">{children}</h3>,
  h3: ({ children }) => <h4 className="mt-3 mb-1 font-semibold">{children}</h4>,
  blockquote: ({ children }) => (
    <blockquote className="my-2 border-l-2 border-zinc-300 pl-3 text-zinc-600 dark:border-zinc-600 dark:text-zinc-300">
      {children}
    </blockquote>
  ),
  pre: ({ children }) => <Pre>{children}</Pre>,
  // A fenced block's code keeps rehype-highlight's classes; inline code gets a tint of its own.
  code: ({ className, children }) =>
    className ? (
      <code className={className}>{children}</code>
    ) : (
      <code className="rounded bg-zinc-100 px-1 py-0.5 text-[13px] dark:bg-zinc-800">{children}</code>
    ),
  ...tableComponents(),
};

function Pre({ children }: { children?: React.ReactNode }) {
  return <CodeBlock t={useContext(Ctx)!.t}>{children}</CodeBlock>;
}

const remarkPlugins = [remarkGfm];
type RehypePlugins = Options["rehypePlugins"];
let highlighting: RehypePlugins | undefined;
const FENCE = /^ {0,3}(`{3,}|~{3,})/m;

/**
 * The code highlighter (highlight.js and its languages, ~200 KB of script) loads with the first answer that has a
 * fenced code block, not with every page that shows the chat; such a block is plain until it has loaded.
 */
function useHighlighting(markdown: string): RehypePlugins {
  const [plugins, setPlugins] = useState(highlighting);
  const wanted = !plugins && FENCE.test(markdown);
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    import("rehype-highlight").then(
      ({ default: rehypeHighlight }) => {
        // Only languages named on the fence are highlighted (no guessing on plain blocks); unknown names are left plain.
        highlighting ??= [[rehypeHighlight, { detect: false }]];
        if (live) setPlugins(highlighting);
      },
      () => {},
    ); // not loaded (offline, a new build): the block stays plain
    return () => {
      live = false;
    };
  }, [wanted]);
  return plugins;
}

/**
 * Streaming Markdown answer whose `[n]` markers are citation chips; with the citation check (`check`, once the
 * answer is complete, `text` carrying its notes: see withCheckNotes), a note after each corrected or unsupported sentence.
 */
export const Answer = memo(function Answer({
  text,
  citations,
  check,
  t,
}: {
  text: string;
  citations: Map<number, Citation>;
  check?: CitationCheck;
  t: ChatText;
}) {
  const { markdown, claims } = useMemo(() => linkCitations(text, (n) => citations.has(n)), [text, citations]);
  const ctx = useMemo(() => ({ citations, claims, check, t }), [citations, claims, check, t]);
  const rehypePlugins = useHighlighting(markdown);
  return (
    <div data-testid="answer" className="break-words">
      <Ctx.Provider value={ctx}>
        <Markdown components={components} remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins}>
          {markdown}
        </Markdown>
      </Ctx.Provider>
    </div>
  );
});
