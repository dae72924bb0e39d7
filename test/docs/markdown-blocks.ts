/**
 * Just enough Markdown for the documentation tests: fenced code blocks and link targets, with line
 * numbers. No Markdown parser is installed, so this follows the CommonMark rules that matter here:
 *
 * - A fence is 3 or more backticks or tildes, optionally indented; a backtick fence's info string
 *   has no backtick. The block ends at a line of the same character, at least as long, indented
 *   at most 3 spaces more than the opening fence, with nothing else but spaces; an unclosed block
 *   runs to the end of the document. Content lines lose up to the opening fence's indentation.
 * - Links are inline (`[text](target "title")`, `![alt](target)`, `<target>` in angle brackets)
 *   or reference definitions (`[label]: target`). Links inside fenced code, code spans and HTML
 *   comments are not links.
 *
 * Not handled (the repository's Markdown has none): fences inside block quotes, indented code
 * blocks (a 4-space indented line is read as text), raw HTML `<a href>` links.
 */

export interface FencedBlock {
  /** The first word of the info string (`ts` for ```ts title="x"), or '' when there is none. */
  readonly language: string;
  /** The whole info string, trimmed. */
  readonly info: string;
  /** The content, lines joined by '\n', without the fences; '' for an empty block. */
  readonly content: string;
  /** 1-based line of the opening fence. */
  readonly fenceLine: number;
  /** 1-based line of the first content line (the line after the opening fence). */
  readonly contentLine: number;
}

export interface MarkdownLink {
  /** The destination as written, without angle brackets or title (escapes undone). */
  readonly target: string;
  /** 1-based line where the destination starts. */
  readonly line: number;
}

const OPENING_FENCE = /^( *)(`{3,}|~{3,})(.*)$/;
const CLOSING_FENCE = /^( *)(`{3,}|~{3,})[ \t]*$/;

export function markdownLines(markdown: string): string[] {
  return markdown.split(/\r\n|\r|\n/);
}

/** Every fenced code block, in document order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdownLines(markdown);
  const blocks: FencedBlock[] = [];
  let index = 0;
  while (index < lines.length) {
    const opening = OPENING_FENCE.exec(lines[index]);
    if (opening === null || (opening[2][0] === '`' && opening[3].includes('`'))) {
      index += 1;
      continue;
    }
    const [, indent, fence, rawInfo] = opening;
    const info = rawInfo.trim();
    const content: string[] = [];
    let cursor = index + 1;
    for (; cursor < lines.length; cursor += 1) {
      const closing = CLOSING_FENCE.exec(lines[cursor]);
      if (
        closing !== null &&
        closing[2][0] === fence[0] &&
        closing[2].length >= fence.length &&
        closing[1].length <= indent.length + 3
      ) {
        break;
      }
      content.push(removeIndent(lines[cursor], indent.length));
    }
    blocks.push({
      language: info.split(/\s+/)[0] ?? '',
      info,
      content: content.join('\n'),
      fenceLine: index + 1,
      contentLine: index + 2,
    });
    index = cursor + 1; // past the closing fence (or the end of an unclosed block)
  }
  return blocks;
}

function removeIndent(line: string, width: number): string {
  let removed = 0;
  while (removed < width && line[removed] === ' ') removed += 1;
  return line.slice(removed);
}

/** The markdown with everything that is not prose blanked out, same length and line breaks. */
function proseOnly(text: string): string {
  const lines = text.split('\n');
  for (const block of fencedBlocks(text)) {
    const contentLines = block.content === '' ? 0 : block.content.split('\n').length;
    const last = Math.min(block.contentLine + contentLines, lines.length); // the closing fence
    for (let line = block.fenceLine; line <= last; line += 1) {
      lines[line - 1] = blank(lines[line - 1]);
    }
  }
  return blankCodeSpans(lines.join('\n').replace(/<!--[\s\S]*?-->/g, blank));
}

function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

/**
 * Code span contents become spaces (the backticks stay, so `[`x`](y)` is still a link): a run of
 * N backticks opens a span closed by the next run of exactly N backticks in the same paragraph;
 * without one, the backticks are literal.
 */
function blankCodeSpans(text: string): string {
  const out = text.split('');
  const run = /`+/g;
  let match: RegExpExecArray | null;
  while ((match = run.exec(text)) !== null) {
    if (match.index > 0 && text[match.index - 1] === '\\') continue; // \` is a literal backtick
    const ticks = match[0].length;
    const start = match.index + ticks;
    const closer = new RegExp(`(?<!\`)\`{${ticks}}(?!\`)`, 'g');
    closer.lastIndex = start;
    const close = closer.exec(text);
    const paragraphEnd = /\n[ \t]*\n/g;
    paragraphEnd.lastIndex = start;
    const paragraphBreak = paragraphEnd.exec(text);
    if (close === null || (paragraphBreak !== null && paragraphBreak.index < close.index)) continue;
    for (let at = start; at < close.index; at += 1) {
      if (out[at] !== '\n') out[at] = ' ';
    }
    run.lastIndex = close.index + ticks;
  }
  return out.join('');
}

/** Inline link or image: [text](destination "optional title"); the text may hold [brackets]. */
const INLINE_LINK = new RegExp(
  String.raw`!?\[(?:[^\[\]\\]|\\.|\[(?:[^\[\]\\]|\\.)*\])*\]\(` +
    String.raw`[ \t]*\n?[ \t]*` +
    String.raw`(<(?:[^<>\n\\]|\\.)*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)` +
    String.raw`(?:\s+(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)))?\s*\)`,
  'dg',
);

/** Link reference definition: [label]: destination, at the start of a line. */
const REFERENCE_DEFINITION = /^ {0,3}\[(?:[^[\]\\]|\\.)+\]:[ \t]*\n?[ \t]*(<[^<>\n]*>|\S+)/dgm;

/** Every link destination outside code, in document order. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const text = markdownLines(markdown).join('\n');
  const prose = proseOnly(text);
  const links: { target: string; offset: number }[] = [];
  for (const pattern of [INLINE_LINK, REFERENCE_DEFINITION]) {
    for (const match of prose.matchAll(pattern)) {
      if (match.index > 0 && prose[match.index - 1] === '\\') continue; // \[ is not a link
      const [start, end] = match.indices![1];
      // As written in the text: code spans are blanked in `prose`, and a destination may hold `.
      links.push({ target: unescape(text.slice(start, end)), offset: start });
    }
  }
  return links
    .sort((a, b) => a.offset - b.offset)
    .map(({ target, offset }) => ({ target, line: lineAt(text, offset) }));
}

function unescape(destination: string): string {
  const bare =
    destination.startsWith('<') && destination.endsWith('>')
      ? destination.slice(1, -1)
      : destination;
  return bare.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = 0; at < offset; at += 1) if (text[at] === '\n') line += 1;
  return line;
}
