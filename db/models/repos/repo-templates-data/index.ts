import gitignores from './gitignores.json' with { type: 'json' };
import labels from './labels.json' with { type: 'json' };
import licenses from './licenses.json' with { type: 'json' };

/*
 * What a new repository can be initialised with: .gitignore templates (from github/gitignore, CC0), license
 * texts (SPDX texts as shipped by the spdx-license-list package, CC0), label sets and the README template.
 * The JSON files are imported so that the build carries them along.
 */

export interface LabelTemplate {
  name: string;
  /** `rrggbb`, without `#`, as the API shows it. */
  color: string;
  description: string;
  exclusive: boolean;
}

const gitignoreTexts: Readonly<Record<string, string>> = gitignores;
const licenseTexts: Readonly<Record<string, string>> = licenses;
const labelSets: Readonly<Record<string, LabelTemplate[]>> = labels;

const byName = (a: string, b: string): number => a.toLowerCase().localeCompare(b.toLowerCase());
const lookup = <T>(table: Readonly<Record<string, T>>, name: string): T | null => (Object.hasOwn(table, name) ? table[name] : null);

export const listGitignores = (): string[] => Object.keys(gitignoreTexts).sort(byName);
export const findGitignore = (name: string): string | null => lookup(gitignoreTexts, name);

export const listLicenses = (): string[] => Object.keys(licenseTexts).sort(byName);
export const findLicense = (name: string): string | null => lookup(licenseTexts, name);

export const listLabelTemplates = (): string[] => Object.keys(labelSets).sort(byName);
export const findLabelTemplate = (name: string): LabelTemplate[] | null => lookup(labelSets, name);

export const readmeNames = ['Default'] as const;

/** The Default README: the repository's name as a heading, then its description. */
export function renderReadme(repo: { name: string; description: string }): string {
  return `# ${repo.name}\n\n${repo.description}\n`;
}

/** Placeholders license texts use for the copyright holder, the program and the year (Gitea's default set). */
const placeholders = {
  owner: [
    '<name of author>', '<owner>', '[NAME]', '[name of copyright owner]', '[name of copyright holder]', '<COPYRIGHT HOLDERS>',
    '<copyright holders>', '<AUTHOR>', "<author's name or designee>", '[fullname]',
  ],
  repo: ['<program>', "<one line to give the program's name and a brief idea of what it does.>"],
  year: ['<year>', '[year]', '<YEAR>', '[YEAR]', '[yyyy]', '[Year]'],
};

/** The license text with its placeholders filled in, or null for an unknown license. */
export function fillLicense(name: string, values: { owner: string; repo: string; year: string }): string | null {
  let text = findLicense(name);
  if (text === null) return null;
  for (const holder of placeholders.owner) text = text.replaceAll(holder, values.owner);
  for (const program of placeholders.repo) text = text.replaceAll(program, values.repo);
  for (const year of placeholders.year) text = text.replaceAll(year, values.year);
  return text;
}

/** The .gitignore for a comma-separated list of template names, each under a `# ---> Name` header, or the first unknown name. */
export function combineGitignores(names: string): { text: string } | { unknown: string } {
  let text = '';
  for (const name of names.split(',').map((n) => n.trim()).filter(Boolean)) {
    const source = findGitignore(name);
    if (source === null) return { unknown: name };
    text += `# ---> ${name}\n${source}\n`;
  }
  return { text };
}
