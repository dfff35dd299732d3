/**
 * Chinese word segmentation: a dictionary segmenter (jieba, prebuilt native binary from npm) loaded once
 * per process on first use. Shared by retrieval and the offline answerer so both see the same words.
 */
import { createRequire } from "node:module";
import type { Jieba } from "@node-rs/jieba";

let jieba: Jieba | undefined;

function load(): Jieba {
  if (!jieba) {
    // createRequire keeps the native module and its 5 MB dictionary out of any bundle.
    const require = createRequire(import.meta.url);
    const { Jieba } = require("@node-rs/jieba") as typeof import("@node-rs/jieba");
    const { dict } = require("@node-rs/jieba/dict") as typeof import("@node-rs/jieba/dict");
    jieba = Jieba.withDict(dict);
  }
  return jieba;
}

/** The dictionary words of a run of Chinese text (no HMM guessing of unknown words: stable on both sides). */
export function segmentWords(text: string): string[] {
  return load()
    .cut(text, false)
    .filter((w) => w.trim() !== "");
}

/** Dictionary words of a run of Chinese text with their jieba part-of-speech tags (nr person, ns place, nt organisation, n noun, …). */
export function taggedWords(text: string): { word: string; tag: string }[] {
  return load()
    .tag(text, false)
    .filter((w) => w.word.trim() !== "");
}
