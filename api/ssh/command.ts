import type { GitService } from '../git/target.js';

/** A git command as an SSH client sends it: `git-upload-pack '/owner/repo.git'`. */
export interface GitCommand {
  service: GitService;
  owner: string;
  /** The repository name as asked, perhaps with `.git` and `.wiki`. */
  name: string;
}

const services: Record<string, GitService> = {
  'git-upload-pack': 'upload-pack',
  'git-receive-pack': 'receive-pack',
  'git-upload-archive': 'upload-archive',
};

/** A command refused before any lookup, with the one line the client is told (Gitea's words). */
export class CommandRefusal extends Error {}

/** Splits shell words: bare, 'single' (git's own quoting, with '\'' for a quote) and "double" quoted. */
function splitWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new CommandRefusal('Error parsing arguments');
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let text = '';
      for (; j < line.length && line[j] !== '"'; j++) text += line[j] === '\\' && j + 1 < line.length ? line[++j] : line[j];
      if (j >= line.length) throw new CommandRefusal('Error parsing arguments');
      word = (word ?? '') + text;
      i = j;
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/**
 * Gitea's `serv` checks: a known git verb and one `owner/repo` argument (a leading `/` and a `.git` suffix allowed);
 * anything else, a path with `..`, further slashes, NUL or characters no name has, is refused with one line.
 */
export function parseGitCommand(line: string): GitCommand {
  if (line.includes('\0') || line.length > 1024) throw new CommandRefusal('Invalid repository path');
  const words = splitWords(line.trim());
  if (words.length === 0) throw new CommandRefusal('Too few arguments');
  const service = Object.hasOwn(services, words[0]) ? services[words[0]] : undefined;
  if (!service) throw new CommandRefusal('Unknown git command');
  if (words.length !== 2) throw new CommandRefusal(words.length < 2 ? 'Too few arguments' : 'Too many arguments');
  const path = words[1].replace(/^\//, '');
  const parts = path.split('/');
  if (parts.length !== 2 || parts.some((part) => part === '' || part === '.' || part === '..')) throw new CommandRefusal('Invalid repository path');
  const [owner, name] = parts;
  if (/[^\w.-]/.test(owner) || /[^\w.-]/.test(name)) throw new CommandRefusal('Invalid repo name');
  return { service, owner, name };
}
