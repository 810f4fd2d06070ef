/**
 * A glob as Gitea compiles them (gobwas/glob), as a regular expression over the whole text:
 * - `*` any run of characters except the separator, `**` any run, `?` one character except the separator
 *   (without a separator, `*` and `?` cross everything too);
 * - `[abc]`, `[a-z]` one character of the class, `[!abc]` one character outside it (separators included);
 * - `{one,two}` alternatives, which may nest; `\c` the character c;
 * - `]`, `}` and `,` outside a class or alternatives are plain characters.
 *
 * An invalid pattern (an unclosed or empty class, a reversed range, an unclosed `{`, a trailing `\`) compiles
 * to null: each caller applies Gitea's rule for its setting (skip the pattern, or match it literally).
 */
export function compileGlob(pattern: string, separator?: string): RegExp | null {
  const notSeparator = separator ? `[^${escapeRegExp(separator)}]` : '[\\s\\S]';
  let source = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      if (++i === pattern.length) return null;
      source += escapeRegExp(pattern[i]);
    } else if (c === '*') {
      if (pattern[i + 1] === '*') {
        source += '[\\s\\S]*';
        i++;
      } else {
        source += `${notSeparator}*`;
      }
    } else if (c === '?') {
      source += notSeparator;
    } else if (c === '[') {
      const negated = pattern[i + 1] === '!';
      const start = i + (negated ? 2 : 1);
      const end = pattern.indexOf(']', start);
      if (end <= start) return null;
      source += `[${negated ? '^' : ''}${pattern.slice(start, end).replace(/[\\\]^[]/g, '\\$&')}]`;
      i = end;
    } else if (c === '{') {
      source += '(?:';
      depth++;
    } else if (c === '}' && depth > 0) {
      source += ')';
      depth--;
    } else if (c === ',' && depth > 0) {
      source += '|';
    } else {
      source += escapeRegExp(c);
    }
  }
  if (depth > 0) return null;
  try {
    return new RegExp(`^${source}$`);
  } catch {
    return null;
  }
}

/** `text` as a regular expression that matches exactly it. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
