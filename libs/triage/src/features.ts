// A ticket's text as a bounded sparse vector, the same for every one of the API's 35 languages:
// NFKC and lower case, so full-width, compatibility and case variants count as one; words where
// the script separates them with spaces; overlapping character pairs (and the characters
// themselves) in Japanese, Chinese, Korean and Thai runs, which have no spaces between words, as
// the search indexes store them; and character trigrams inside longer words, which make a typo,
// an inflection or a compound share most of its features with the word it comes from. Features
// are hashed into 2^hashBits buckets, so memory does not grow with the vocabulary.
import { CJK_RUN, cjkPairs } from "@support/search-words";
import MurmurHash3 from "imurmurhash";

/** Thai has no spaces between words either; search-words' CJK_RUN does not cover it. */
const THAI_RUN = /[\u0e00-\u0e7f]+/gu;
const NO_SPACE_RUN = new RegExp(`${CJK_RUN.source}|${THAI_RUN.source}`, "gu");
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’]*/gu;

export interface FeatureOptions {
  /** Buckets are 2^hashBits. 18 (262,144) keeps collisions rare for one company's vocabulary. */
  hashBits: number;
  /** Character trigrams of words of at least this many characters; 0: none. */
  charGramsFromLength: number;
  /**
   * Adjacent word pairs ("not working" differs from "working"). Off: on the bench corpus they
   * doubled the model for no gain in F1.
   */
  wordPairs: boolean;
}

export const DEFAULT_FEATURE_OPTIONS: FeatureOptions = Object.freeze({ hashBits: 18, charGramsFromLength: 5, wordPairs: false });

/** NFKC, lower case: "ＰＳ５" and "ps5", "Straße" and "STRASSE" fold together as far as Unicode allows. */
export function normalizeText(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/**
 * The text's features as strings, prefixed by kind so that a word and a pair or trigram with the
 * same letters stay apart: `w:` word, `p:` word pair, `g:` trigram, `c:` no-space character or pair.
 */
export function textFeatures(text: string, options: FeatureOptions = DEFAULT_FEATURE_OPTIONS): string[] {
  const normalized = normalizeText(text);
  const features: string[] = [];
  for (const match of normalized.matchAll(NO_SPACE_RUN)) {
    const run = match[0];
    for (const char of run) features.push(`c:${char}`);
    if ([...run].length > 1) for (const pair of cjkPairs(run).split(" ")) features.push(`c:${pair}`);
  }
  const spaced = normalized.replace(NO_SPACE_RUN, " ");
  let previous: string | undefined;
  for (const match of spaced.matchAll(WORD)) {
    const word = match[0].replace(/['’]+$/u, "");
    features.push(`w:${word}`);
    if (options.wordPairs && previous !== undefined) features.push(`p:${previous} ${word}`);
    previous = word;
    if (options.charGramsFromLength > 0) {
      const chars = [...`<${word}>`];
      if (chars.length - 2 >= options.charGramsFromLength) {
        for (let i = 0; i + 3 <= chars.length; i++) features.push(`g:${chars[i]}${chars[i + 1]}${chars[i + 2]}`);
      }
    }
  }
  return features;
}

/** A sparse vector: bucket indices ascending, each once, with their values. */
export interface SparseVector {
  indices: Uint32Array;
  values: Float64Array;
}

/** MurmurHash3 (x86, 32 bits, seed 0) of a feature, masked to the buckets. */
export function featureBucket(feature: string, hashBits: number): number {
  return (MurmurHash3(feature).result() & ((1 << hashBits) - 1)) >>> 0;
}

/**
 * The hashed vector of a text: log(1 + count) per bucket, scaled to unit length, so that a long
 * ticket and a short one weigh alike and a word repeated ten times does not drown the rest.
 */
export function vectorize(text: string, options: FeatureOptions = DEFAULT_FEATURE_OPTIONS): SparseVector {
  const counts = new Map<number, number>();
  for (const feature of textFeatures(text, options)) {
    const bucket = featureBucket(feature, options.hashBits);
    counts.set(bucket, (counts.get(bucket) ?? 0) + 1);
  }
  const indices = Uint32Array.from(counts.keys()).sort();
  const values = new Float64Array(indices.length);
  let norm = 0;
  for (let i = 0; i < indices.length; i++) {
    const value = Math.log1p(counts.get(indices[i]!)!);
    values[i] = value;
    norm += value * value;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < values.length; i++) values[i]! /= norm;
  return { indices, values };
}
