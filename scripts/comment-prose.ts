// The prose style of code comments, the one README.md and docs/ follow:
// no sentence over 40 words and no parentheses inside parentheses.
// This module is pure: it reads comments out of a source text and finds
// the sentences that break the style. scripts/comment-prose.test.ts runs it.
import ts from 'typescript';
import { countWords, splitSentences } from './prose-stats.ts';

export const MAX_WORDS = 40;

/** One comment block: consecutive line comments, or one block comment. */
export interface CommentBlock {
  /** The 1-based line where the block starts. */
  line: number;
  /** The lines of the comment without their markers. */
  lines: string[];
}

/** A sentence or item that breaks the style. */
export interface Finding {
  line: number;
  problem: 'long' | 'nested';
  text: string;
}

// Comments for tools, not readers: lint and type-check switches, shebangs, triple-slash directives.
const DIRECTIVE = /^\s*(eslint|@ts-|prettier-ignore|c8 |istanbul |global |\/ <)/;

function languageOf(path: string): 'script' | 'hash' | 'go' | undefined {
  if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(path)) return 'script';
  if (/\.(sh|ya?ml)$/.test(path)) return 'hash';
  if (path.endsWith('.go')) return 'go';
  return undefined;
}

/** The raw comments of a TypeScript or JavaScript text, in order, as [start, end] offsets. */
function scriptComments(path: string, text: string): ts.CommentRange[] {
  const kind = /\.(js|mjs|cjs)$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const found = new Map<number, ts.CommentRange>();
  const visit = (node: ts.Node) => {
    const ranges = [
      ...(ts.getLeadingCommentRanges(text, node.pos) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.end) ?? []),
    ];
    for (const r of ranges) found.set(r.pos, r);
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);
  return [...found.values()].sort((a, b) => a.pos - b.pos);
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i += 1) if (text.charCodeAt(i) === 10) line += 1;
  return line;
}

function stripBlockComment(raw: string): string[] {
  return raw
    .replace(/^\/\*+/, '')
    .replace(/\*+\/$/, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, '').trimEnd());
}

interface LineComment {
  line: number;
  ownLine: boolean;
  body: string;
}

/** Adds a line comment to the block above it when both stand on lines of their own, one after the other. */
function pushLine(blocks: CommentBlock[], last: LineComment | undefined, c: LineComment): LineComment {
  const previous = blocks.at(-1);
  if (previous && last && c.ownLine && last.ownLine && last.line === c.line - 1) previous.lines.push(c.body);
  else blocks.push({ line: c.line, lines: [c.body] });
  return c;
}

function scriptBlocks(path: string, text: string): CommentBlock[] {
  const blocks: CommentBlock[] = [];
  let last: LineComment | undefined;
  for (const r of scriptComments(path, text)) {
    const raw = text.slice(r.pos, r.end);
    if (DIRECTIVE.test(raw.replace(/^\/[/*]+/, ''))) continue;
    const line = lineOf(text, r.pos);
    const lineStart = text.lastIndexOf('\n', r.pos - 1) + 1;
    const ownLine = text.slice(lineStart, r.pos).trim() === '';
    if (r.kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      blocks.push({ line, lines: stripBlockComment(raw) });
      last = undefined;
    } else {
      last = pushLine(blocks, last, { line, ownLine, body: raw.replace(/^\/\/\/? ?/, '') });
    }
  }
  return blocks;
}

function lineCommentBlocks(text: string, marker: RegExp): CommentBlock[] {
  const blocks: CommentBlock[] = [];
  let last: LineComment | undefined;
  text.split('\n').forEach((l, i) => {
    const m = marker.exec(l);
    const body = m ? l.slice(m[0].length) : '';
    if (m && !DIRECTIVE.test(body)) last = pushLine(blocks, last, { line: i + 1, ownLine: true, body });
  });
  return blocks;
}

/** The comment blocks of a source file; shebangs, lint and compiler directives are left out. */
export function commentBlocks(path: string, text: string): CommentBlock[] {
  const language = languageOf(path);
  let blocks: CommentBlock[] = [];
  if (language === 'script') blocks = scriptBlocks(path, text);
  else if (language === 'hash') blocks = lineCommentBlocks(text, /^\s*#(?!!) ?/);
  else if (language === 'go') blocks = lineCommentBlocks(text, /^\s*\/\/ ?/);
  return blocks;
}

// A line that starts an item of its own: a list bullet, a numbered item, a flag (`--name`, `-n`) or a JSDoc tag.
const ITEM_START = /^\s*([-*+]\s|\d+[.)]\s|--?[A-Za-z]|@[a-z])/;
// A line that is an item by itself: a table row, or columns set apart by two or more spaces.
const ROW = /^\s*\||\S {2,}\S/;
const FENCE = /^\s*```/;

/** The items of a comment: its paragraphs, with each list item, table row or column line an item of its own. */
export function commentItems(block: CommentBlock): { line: number; text: string }[] {
  const items: { line: number; text: string }[] = [];
  let current: { line: number; parts: string[] } | undefined;
  let inFence = false;
  const close = () => {
    if (current) items.push({ line: current.line, text: current.parts.join(' ') });
    current = undefined;
  };
  block.lines.forEach((raw, i) => {
    const line = block.line + i;
    if (FENCE.test(raw)) {
      inFence = !inFence;
      close();
      return;
    }
    const s = raw.trim();
    if (inFence || s === '') return close();
    if (ROW.test(raw.replace(/`[^`]*`/g, 'X'))) {
      close();
      items.push({ line, text: s });
      return;
    }
    if (ITEM_START.test(raw)) close();
    current ??= { line, parts: [] };
    current.parts.push(s);
  });
  close();
  return items;
}

/** Prose as words are counted: inline code and web addresses are one word each. */
function prose(text: string): string {
  return text.replace(/`[^`]*`/g, 'X').replace(/\bhttps?:\/\/\S+/g, 'X');
}

/**
 * True when a parenthesis opens inside another one. Inline code does not count,
 * nor a call's parentheses right after a name, as in `init()` or `flock(1)`.
 */
export function hasNestedParentheses(text: string): boolean {
  let depth = 0;
  for (const ch of text.replace(/`[^`]*`/g, 'X').replace(/\w\([^()]*\)/g, 'X')) {
    if (ch === '(') depth += 1;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth > 1) return true;
  }
  return false;
}

/** The sentences of a comment item, each with its word count. */
export function itemSentences(text: string): { text: string; words: number }[] {
  return splitSentences(prose(text)).map((s) => ({ text: s, words: countWords(s) }));
}

function itemFindings(item: { line: number; text: string }): Finding[] {
  const findings: Finding[] = [];
  if (hasNestedParentheses(item.text)) findings.push({ line: item.line, problem: 'nested', text: item.text });
  for (const s of itemSentences(item.text)) {
    if (s.words > MAX_WORDS) findings.push({ line: item.line, problem: 'long', text: s.text });
  }
  return findings;
}

/**
 * Every sentence over MAX_WORDS words and every item with nested parentheses in a source file.
 * A long sentence is given as it was counted, with inline code and addresses as `X`.
 */
export function commentFindings(path: string, text: string): Finding[] {
  return commentBlocks(path, text).flatMap((block) => commentItems(block).flatMap(itemFindings));
}
