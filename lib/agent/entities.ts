/**
 * "A passage about another named entity is offered as the answer" (issue #43): 广茂铁路 asked, 中老铁路
 * retrieved; the Paris office asked, Berlin's and Shanghai's rows retrieved. A question names an entity as a
 * name followed by what kind of thing it is (广茂 + 铁路, Paris + office); when no retrieved passage has the
 * name but some have the kind, they are about other things of that kind, and the answerer refuses.
 * Only this narrow shape counts: a name alone missing is often a spelling the documents write otherwise.
 */
import { CJK_RUN_RE as CJK_RUN } from "@/lib/text/cjk";
import { STOP_WORDS, stem, tokenize } from "@/lib/tokenize";
import { taggedWords } from "@/lib/tokenize/segment";
import type { Passage } from "./extractive";

interface Named {
  /** The name ("广茂", "paris", "sku-4411"). */
  name: string;
  /** The kind of thing it names ("铁路", "office"); none for a code, which names one thing on its own. */
  kind?: string;
  cjk: boolean;
}

/** Jieba's tags of names: person, place, organisation, other proper noun. */
const NAME_TAGS = new Set(["nr", "ns", "nt", "nz", "nrt", "nrfg"]);
/** Tags of the single characters a name jieba does not know is split into (广 茂: adjectives; 中 老: locality, adjective). */
const NAME_CHAR_TAGS = /^(?:a|an|b|f|g|j|n|ng|nr|ns|nz|s|vn|x)$/;
const KIND_TAGS = /^(?:n|ng|nz|vn)$/;
/** A product or part code: letters and digits together in short parts ("X200", "SKU-4411"; not "interleukin-1Beta"). */
const CODE = /^(?=[\p{L}\d-]*\d)(?=[\p{L}\d-]*\p{L})[\p{L}\d]{1,6}(?:-[\p{L}\d]{1,6})*$/u;
/** Codes are compared without their separators ("COVID19" is "COVID-19"). */
const bare = (s: string) => s.replace(/[\s\-‐‑–_./]/g, "");

const chars = (s: string) => Array.from(s).length;

function chineseNames(run: string): Named[] {
  // Unknown words come as single characters: those that can be part of a name are joined back ("广茂").
  const words: { word: string; name: boolean; kind: boolean }[] = [];
  let singles = "";
  const flush = () => {
    if (singles) words.push({ word: singles, name: chars(singles) >= 2, kind: false });
    singles = "";
  };
  for (const { word, tag } of taggedWords(run)) {
    if (chars(word) === 1 && /\p{Script=Han}/u.test(word) && NAME_CHAR_TAGS.test(tag)) {
      singles += word;
      continue;
    }
    flush();
    // A province, city or district is where a thing is, not what it is, and news leaves it implicit ("全省", "我市").
    const name = NAME_TAGS.has(tag) && chars(word) >= 2 && !/[省市县区]$/u.test(word);
    words.push({ word, name, kind: KIND_TAGS.test(tag) && chars(word) >= 2 });
  }
  flush();
  return words.slice(1).flatMap((w, i) => (words[i].name && w.kind ? [{ name: words[i].word, kind: w.word, cjk: true }] : []));
}

function latinNames(question: string): Named[] {
  const words = question.replace(CJK_RUN, " ").match(/[\p{L}\d][\p{L}\d'’-]*/gu) ?? [];
  const out: Named[] = [];
  words.forEach((w, i) => {
    if (CODE.test(w)) out.push({ name: w.toLowerCase(), cjk: false });
    const next = words[i + 1];
    // A capitalized word not opening the question, then a lower-case noun-like word: "the Paris office".
    if (
      i > 0 &&
      /^\p{Lu}\p{Ll}+$/u.test(w) &&
      !STOP_WORDS.has(stem(w.toLowerCase())) &&
      next &&
      /^\p{Ll}{3,}$/u.test(next) &&
      !STOP_WORDS.has(stem(next))
    )
      out.push({ name: stem(w.toLowerCase()), kind: next, cjk: false });
  });
  return out;
}

/** The entities a question names (see the module comment). */
function namedEntities(question: string): Named[] {
  const text = question.normalize("NFKC");
  return [...latinNames(text), ...[...text.matchAll(CJK_RUN)].flatMap(([run]) => chineseNames(run))];
}

/**
 * Whether the question names an entity that no retrieved passage has while some have things of its kind
 * (or, for a code, that no passage has at all): they are about something else, and quoting them would answer
 * for the wrong thing.
 */
export function aboutAnotherEntity(question: string, passages: readonly Passage[]): boolean {
  if (passages.length === 0) return false;
  const texts = passages.map((p) => `${p.context}\n${p.text}`.normalize("NFKC"));
  const folded = texts.map((t) => t.toLowerCase());
  const tokens = new Set(texts.flatMap((t) => tokenize(t)));
  return namedEntities(question).some((e) => {
    if (e.cjk) return !folded.some((t) => t.includes(e.name)) && folded.some((t) => t.includes(e.kind!));
    if (!e.kind) return !folded.some((t) => bare(t).includes(bare(e.name)));
    if (tokens.has(e.name)) return false;
    // Another name of the same kind: "Berlin office" for "Paris office".
    const other = new RegExp(`\\b\\p{Lu}[\\p{L}\\d]*\\s+${e.kind.replace(/[^\p{L}]/gu, "")}`, "u");
    return texts.some((t) => other.test(t));
  });
}
