/**
 * EditorConfig (editorconfig.org) for one file: the root `.editorconfig` of a commit parsed and matched the way
 * Gitea's editorconfig-core-go does, answering the fields Gitea's API shows.
 */
export interface EditorconfigDefinition {
  charset?: string;
  indent_style?: string;
  indent_size?: string;
  end_of_line?: string;
}

interface Section {
  glob: string;
  properties: Map<string, string>;
}

/** Sections in file order, with lower-cased keys; comment lines start with `#` or `;`. */
export function parseEditorconfig(text: string): Section[] {
  const sections: Section[] = [];
  let current: Section | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.*)\]$/.exec(line);
    if (header) {
      current = { glob: header[1], properties: new Map() };
      sections.push(current);
      continue;
    }
    const equals = line.search(/[=:]/);
    if (equals === -1 || !current) continue;
    current.properties.set(line.slice(0, equals).trim().toLowerCase(), line.slice(equals + 1).trim());
  }
  return sections;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * An EditorConfig glob as a regular expression over a path that starts with `/`: `*` within a segment, `**`
 * across segments, `?`, `[...]`/`[!...]`, `{a,b}` and `{1..10}`. A glob without `/` matches in any directory.
 */
export function editorconfigGlob(glob: string): RegExp {
  const anchored = glob.startsWith('/') ? glob : glob.includes('/') ? `/${glob}` : `/**/${glob}`;
  let out = '';
  let depth = 0;
  for (let i = 0; i < anchored.length; i++) {
    const c = anchored[i];
    if (c === '\\' && i + 1 < anchored.length) out += escapeRegExp(anchored[++i]);
    else if (c === '*') {
      if (anchored[i + 1] === '*') {
        i++;
        if (anchored[i + 1] === '/' && out.endsWith('/')) {
          i++;
          out += '(?:.*/)?';
        } else out += '.*';
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = anchored.indexOf(']', i + 1);
      if (end === -1) out += '\\[';
      else {
        const body = anchored.slice(i + 1, end);
        out += body.startsWith('!') ? `[^/${body.slice(1).replace(/[\\\]^]/g, '\\$&')}]` : `[${body.replace(/[\\\]^]/g, '\\$&')}]`;
        i = end;
      }
    } else if (c === '{') {
      const end = anchored.indexOf('}', i + 1);
      const range = end === -1 ? null : /^([+-]?\d+)\.\.([+-]?\d+)$/.exec(anchored.slice(i + 1, end));
      if (range) {
        const [low, high] = [Number(range[1]), Number(range[2])].sort((a, b) => a - b);
        out += `(?:${Array.from({ length: Math.min(high - low + 1, 10_000) }, (_, k) => low + k).join('|')})`;
        i = end;
      } else if (end !== -1 && anchored.slice(i + 1, end).includes(',')) {
        out += '(?:';
        depth++;
      } else out += '\\{';
    } else if (c === ',' && depth > 0) out += '|';
    else if (c === '}' && depth > 0) {
      out += ')';
      depth--;
    } else out += escapeRegExp(c);
  }
  if (depth > 0) return new RegExp(`^${escapeRegExp(anchored)}$`);
  return new RegExp(`^${out}$`);
}

const shown = ['charset', 'indent_style', 'indent_size', 'end_of_line'] as const;

/** The definition for `filePath` (relative to the repository root): later matching sections win. */
export function definitionFor(sections: Section[], filePath: string): EditorconfigDefinition {
  const target = `/${filePath.replace(/^\/+/, '')}`;
  const merged = new Map<string, string>();
  for (const section of sections) {
    if (!editorconfigGlob(section.glob).test(target)) continue;
    for (const [key, value] of section.properties) merged.set(key, value);
  }
  const definition: EditorconfigDefinition = {};
  for (const key of shown) {
    const value = merged.get(key);
    if (value) definition[key] = key === 'indent_size' ? value : value.toLowerCase();
  }
  return definition;
}
