import type { ListedEntry } from './read.js';

type LanguageType = 'programming' | 'markup' | 'data' | 'prose';

/** A small part of GitHub Linguist's table: file extension (or exact file name) → language and its type. */
const byExtension: Record<string, [string, LanguageType]> = {
  js: ['JavaScript', 'programming'], mjs: ['JavaScript', 'programming'], cjs: ['JavaScript', 'programming'], jsx: ['JavaScript', 'programming'],
  ts: ['TypeScript', 'programming'], mts: ['TypeScript', 'programming'], cts: ['TypeScript', 'programming'], tsx: ['TSX', 'programming'],
  go: ['Go', 'programming'], py: ['Python', 'programming'], pyi: ['Python', 'programming'], rb: ['Ruby', 'programming'],
  rs: ['Rust', 'programming'], java: ['Java', 'programming'], kt: ['Kotlin', 'programming'], kts: ['Kotlin', 'programming'],
  scala: ['Scala', 'programming'], groovy: ['Groovy', 'programming'], gradle: ['Gradle', 'programming'], c: ['C', 'programming'], h: ['C', 'programming'],
  cc: ['C++', 'programming'], cpp: ['C++', 'programming'], cxx: ['C++', 'programming'], hpp: ['C++', 'programming'], hh: ['C++', 'programming'],
  cs: ['C#', 'programming'], fs: ['F#', 'programming'], vb: ['Visual Basic .NET', 'programming'], swift: ['Swift', 'programming'],
  m: ['Objective-C', 'programming'], mm: ['Objective-C++', 'programming'], php: ['PHP', 'programming'], pl: ['Perl', 'programming'],
  pm: ['Perl', 'programming'], sh: ['Shell', 'programming'], bash: ['Shell', 'programming'], zsh: ['Shell', 'programming'],
  ps1: ['PowerShell', 'programming'], lua: ['Lua', 'programming'], r: ['R', 'programming'], dart: ['Dart', 'programming'],
  ex: ['Elixir', 'programming'], exs: ['Elixir', 'programming'], erl: ['Erlang', 'programming'], hs: ['Haskell', 'programming'],
  ml: ['OCaml', 'programming'], clj: ['Clojure', 'programming'], jl: ['Julia', 'programming'], zig: ['Zig', 'programming'],
  nim: ['Nim', 'programming'], elm: ['Elm', 'programming'], coffee: ['CoffeeScript', 'programming'], asm: ['Assembly', 'programming'],
  tf: ['HCL', 'programming'], hcl: ['HCL', 'programming'], cmake: ['CMake', 'programming'], mk: ['Makefile', 'programming'],
  sql: ['SQL', 'data'], vue: ['Vue', 'markup'], svelte: ['Svelte', 'markup'], html: ['HTML', 'markup'], htm: ['HTML', 'markup'],
  css: ['CSS', 'markup'], scss: ['SCSS', 'markup'], sass: ['Sass', 'markup'], less: ['Less', 'markup'], tex: ['TeX', 'markup'],
  md: ['Markdown', 'prose'], markdown: ['Markdown', 'prose'], rst: ['reStructuredText', 'prose'], txt: ['Text', 'prose'],
  csv: ['CSV', 'data'], svg: ['SVG', 'data'], proto: ['Protocol Buffer', 'data'], graphql: ['GraphQL', 'data'],
};

const byName: Record<string, [string, LanguageType]> = {
  Makefile: ['Makefile', 'programming'], GNUmakefile: ['Makefile', 'programming'], Dockerfile: ['Dockerfile', 'programming'],
  Rakefile: ['Ruby', 'programming'], Gemfile: ['Ruby', 'programming'], 'CMakeLists.txt': ['CMake', 'programming'],
};

/** Configuration formats, which Gitea (enry.IsConfiguration) never counts. */
const configuration = new Set(['json', 'json5', 'yml', 'yaml', 'toml', 'xml', 'ini', 'cfg', 'conf', 'lock']);

/** enry.IsVendor and IsDocumentation, in brief: dependencies, generated and minified files, documentation. */
const skipped = [
  /(^|\/)(node_modules|vendor|third[-_]party|bower_components|\.yarn|dist|Godeps)\//,
  /\.min\.(js|css)$/,
  /(^|\/)(docs?|Documentation|examples?)\//i,
  /(^|\/)(README|CHANGELOG|CHANGES|LICEN[CS]E|COPYING|CONTRIBUTING|AUTHORS|NOTICE)(\.[^/]*)?$/i,
];

function languageOf(filePath: string): [string, LanguageType] | null {
  const name = filePath.slice(filePath.lastIndexOf('/') + 1);
  if (byName[name]) return byName[name];
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  const extension = name.slice(dot + 1).toLowerCase();
  if (configuration.has(extension)) return null;
  return byExtension[extension] ?? null;
}

/**
 * Bytes of each language in a tree listing (Gitea's language statistics): dot files, vendored files,
 * documentation and configuration are left out; when more than one language remains, only programming and
 * markup languages count.
 */
export function languageStats(entries: ListedEntry[]): Record<string, number> {
  const sizes = new Map<string, { bytes: number; type: LanguageType }>();
  for (const entry of entries) {
    if (entry.type !== 'blob' || entry.mode === '120000' || entry.size === 0) continue;
    if (entry.name.startsWith('.') || skipped.some((pattern) => pattern.test(entry.path))) continue;
    const language = languageOf(entry.path);
    if (!language) continue;
    const [name, type] = language;
    const current = sizes.get(name) ?? { bytes: 0, type };
    current.bytes += entry.size;
    sizes.set(name, current);
  }
  if (sizes.size > 1) for (const [name, { type }] of sizes) if (type !== 'programming' && type !== 'markup') sizes.delete(name);
  return Object.fromEntries([...sizes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, { bytes }]) => [name, bytes]));
}
