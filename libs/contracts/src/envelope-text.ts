/**
 * Limits on an envelope's text, checked before anything walks the parsed value (issue 30, ADR
 * 0041): its size, its nesting, and no member name given twice in one object.
 */
export const ENVELOPE_LIMITS = {
  /** NATS's default max_payload: a server allowed more still gets nothing larger delivered. */
  maxBytes: 1_048_576,
  /** As the API's JSON bodies (MAX_JSON_DEPTH): the envelope is depth 1, `data` depth 2. */
  maxDepth: 32,
} as const;

export interface EnvelopeTextProblem {
  reason: 'envelope-too-deep' | 'duplicate-member';
  detail: string;
}

interface OpenContainer {
  /** The member names met so far; null for an array. */
  names: Set<string> | null;
  /** In an object: the next string is a member name (after `{` or `,`). */
  nameNext: boolean;
}

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * The first problem of JSON text that JSON.parse accepted, or null: nesting deeper than
 * `maxDepth`, or a member name repeated in one object (RFC 8259 leaves what that means to each
 * parser, I-JSON, RFC 7493, forbids it: a receiver's parser could read another tenant or type
 * than the engine's did). One pass over the text, no recursion, whatever the depth.
 */
export function envelopeTextProblem(
  text: string,
  maxDepth: number = ENVELOPE_LIMITS.maxDepth,
): EnvelopeTextProblem | null {
  const open: OpenContainer[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      open.push({ names: code === OPEN_OBJECT ? new Set() : null, nameNext: code === OPEN_OBJECT });
      if (open.length > maxDepth) {
        return { reason: 'envelope-too-deep', detail: `nested deeper than ${maxDepth} levels` };
      }
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      open.pop();
    } else if (code === COMMA) {
      const container = open[open.length - 1];
      if (container?.names) {
        container.nameNext = true;
      }
    } else if (code === QUOTE) {
      const end = closingQuote(text, index);
      const container = open[open.length - 1];
      if (container?.names && container.nameNext) {
        const raw = text.slice(index, end + 1);
        // Escapes make one name of two spellings ("a" and "\u0061").
        const name = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (container.names.has(name)) {
          return {
            reason: 'duplicate-member',
            detail: `member ${JSON.stringify(name.slice(0, 64))} appears twice in one object`,
          };
        }
        container.names.add(name);
        container.nameNext = false;
      }
      index = end;
    }
  }
  return null;
}

/** The index of the quote that ends the string starting at `start`. */
function closingQuote(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === BACKSLASH) {
      index += 1;
    } else if (code === QUOTE) {
      return index;
    }
  }
  return text.length - 1;
}
