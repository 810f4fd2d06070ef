import { parse as parseYaml } from 'yaml';
import type { GitReader } from '../../git/read.js';

/** Gitea's IssueTemplate (a markdown template has `content`, a YAML form has `body`). */
export interface IssueTemplate {
  name: string;
  title: string;
  about: string;
  labels: string[];
  ref: string;
  body: FormField[] | null;
  content: string;
  file_name: string;
}

export interface FormField {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  validations: Record<string, unknown>;
  visible?: string[];
}

export interface IssueConfig {
  blank_issues_enabled: boolean;
  contact_links: Array<{ name: string; url: string; about: string }>;
}

const templateDirs = ['.gitea/ISSUE_TEMPLATE', '.gitea/issue_template', '.github/ISSUE_TEMPLATE', '.github/issue_template', '.gitlab/ISSUE_TEMPLATE', '.gitlab/issue_template'];
const legacyFiles = ['.gitea/ISSUE_TEMPLATE.md', '.gitea/issue_template.md', '.github/ISSUE_TEMPLATE.md', '.github/issue_template.md', '.gitlab/ISSUE_TEMPLATE.md', '.gitlab/issue_template.md'];
const configFiles = templateDirs.flatMap((dir) => [`${dir}/config.yaml`, `${dir}/config.yml`]);
const fieldTypes = new Set(['markdown', 'textarea', 'input', 'dropdown', 'checkboxes']);

const asString = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

/** `labels` as a YAML list or a comma-separated string. */
function labelsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(asString).map((s) => s.trim()).filter(Boolean);
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
  return [];
}

/** A markdown template: YAML front matter between `---` lines, then the content. */
function parseMarkdown(fileName: string, text: string): IssueTemplate {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  const meta = (match ? parseYaml(match[1]) : {}) as Record<string, unknown> | null;
  if (meta !== null && typeof meta !== 'object') throw new Error('front matter is not a mapping');
  return {
    name: asString(meta?.name), title: asString(meta?.title), about: asString(meta?.about), labels: labelsOf(meta?.labels),
    ref: asString(meta?.ref), body: null, content: match ? match[2] : text, file_name: fileName,
  };
}

/** A YAML issue form. */
function parseForm(fileName: string, text: string): IssueTemplate {
  const doc = parseYaml(text) as Record<string, unknown> | null;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('the template is not a mapping');
  const body = doc.body;
  if (!Array.isArray(body)) throw new Error("'body' is required");
  const fields: FormField[] = body.map((raw, i) => {
    if (!raw || typeof raw !== 'object') throw new Error(`body[${i}]: not a mapping`);
    const field = raw as Record<string, unknown>;
    return {
      type: asString(field.type), id: asString(field.id),
      attributes: (field.attributes as Record<string, unknown>) ?? {}, validations: (field.validations as Record<string, unknown>) ?? {},
      ...(Array.isArray(field.visible) ? { visible: field.visible.map(asString) } : {}),
    };
  });
  return {
    name: asString(doc.name), title: asString(doc.title), about: asString(doc.about ?? doc.description), labels: labelsOf(doc.labels),
    ref: asString(doc.ref), body: fields, content: '', file_name: fileName,
  };
}

/** Gitea's template.Validate: the rules a template must meet to be offered. */
export function validateTemplate(template: IssueTemplate): void {
  if (!template.name.trim()) throw new Error("'name' is required");
  if (!template.about.trim()) throw new Error("'about' is required");
  if (!template.body) return;
  const ids = new Set<string>();
  template.body.forEach((field, i) => {
    const where = `body[${i}]`;
    if (!fieldTypes.has(field.type)) throw new Error(`${where}: unknown type "${field.type}"`);
    if (field.type === 'markdown') {
      if (!asString(field.attributes.value).trim()) throw new Error(`${where}(markdown): 'value' is required`);
    } else {
      if (!asString(field.attributes.label).trim()) throw new Error(`${where}(${field.type}): 'label' is required`);
      const options = field.attributes.options;
      if ((field.type === 'dropdown' || field.type === 'checkboxes') && (!Array.isArray(options) || options.length === 0)) {
        throw new Error(`${where}(${field.type}): 'options' is required and should be a array`);
      }
    }
    if (field.id) {
      if (!/^[a-zA-Z0-9_-]+$/.test(field.id)) throw new Error(`${where}: 'id' should contain only alphanumeric, '-' and '_'`);
      if (ids.has(field.id)) throw new Error(`${where}: 'id' should be unique`);
      ids.add(field.id);
    }
  });
}

/** Parses and validates one template file; markdown by extension `.md`, forms by `.yaml`/`.yml`. */
export function parseTemplate(fileName: string, text: string): IssueTemplate {
  const template = /\.md$/i.test(fileName) ? parseMarkdown(fileName, text) : parseForm(fileName, text);
  validateTemplate(template);
  return template;
}

async function readText(reader: GitReader, commit: NonNullable<Awaited<ReturnType<GitReader['findCommit']>>>, path: string): Promise<string | null> {
  const entry = await reader.entryAt(commit, path);
  if (!entry || entry.type !== 'blob') return null;
  return (await reader.readBlob(entry.oid))?.toString('utf8') ?? null;
}

async function defaultCommit(reader: GitReader, defaultBranch: string) {
  return (await reader.hasBranches()) ? reader.findCommit(defaultBranch) : null;
}

/**
 * The templates of the default branch (Gitea's GetTemplatesFromDefaultBranch): every valid template of the
 * first template directories, or a legacy single-file template; files that fail are reported in `errors`.
 */
export async function templatesFromDefaultBranch(reader: GitReader, defaultBranch: string): Promise<{ templates: IssueTemplate[]; errors: Map<string, string> }> {
  const templates: IssueTemplate[] = [];
  const errors = new Map<string, string>();
  const commit = await defaultCommit(reader, defaultBranch);
  if (!commit) return { templates, errors };
  for (const dir of templateDirs) {
    const entry = await reader.entryAt(commit, dir);
    if (!entry || entry.type !== 'tree') continue;
    for (const file of await reader.listTree(entry.oid)) {
      if (file.type !== 'blob' || !/\.(md|ya?ml)$/i.test(file.name) || /^config\.ya?ml$/i.test(file.name)) continue;
      const path = `${dir}/${file.name}`;
      try {
        const text = (await reader.readBlob(file.oid))?.toString('utf8') ?? '';
        templates.push(parseTemplate(file.name, text));
      } catch (error) {
        errors.set(path, (error as Error).message);
      }
    }
  }
  if (templates.length === 0) {
    for (const path of legacyFiles) {
      const text = await readText(reader, commit, path);
      if (text === null) continue;
      try {
        templates.push(parseTemplate(path.slice(path.lastIndexOf('/') + 1), text));
      } catch (error) {
        errors.set(path, (error as Error).message);
      }
    }
  }
  return { templates, errors };
}

export const defaultIssueConfig = (): IssueConfig => ({ blank_issues_enabled: true, contact_links: [] });

/** Gitea's issue config of the default branch; `error` says why a config file was not usable (the default is answered then). */
export async function issueConfigFromDefaultBranch(reader: GitReader, defaultBranch: string): Promise<{ config: IssueConfig; error: string | null }> {
  const commit = await defaultCommit(reader, defaultBranch);
  if (!commit) return { config: defaultIssueConfig(), error: null };
  for (const path of configFiles) {
    const text = await readText(reader, commit, path);
    if (text === null) continue;
    try {
      return { config: parseIssueConfig(text), error: null };
    } catch (error) {
      return { config: defaultIssueConfig(), error: `${path}: ${(error as Error).message}` };
    }
  }
  return { config: defaultIssueConfig(), error: null };
}

export function parseIssueConfig(text: string): IssueConfig {
  const doc = (parseYaml(text) ?? {}) as Record<string, unknown>;
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error('the config is not a mapping');
  const links = doc.contact_links ?? [];
  if (!Array.isArray(links)) throw new Error("'contact_links' should be a list");
  const contactLinks = links.map((raw, i) => {
    const link = (raw ?? {}) as Record<string, unknown>;
    const name = asString(link.name);
    const url = asString(link.url);
    if (!name) throw new Error(`Empty name in contact link #${i + 1}`);
    if (!url) throw new Error(`Empty URL in contact link #${i + 1}`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`${url} is not a valid URL in contact link #${i + 1}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`${url} is not a valid URL in contact link #${i + 1}`);
    return { name, url, about: asString(link.about) };
  });
  const blank = doc.blank_issues_enabled;
  return { blank_issues_enabled: blank === undefined ? true : Boolean(blank), contact_links: contactLinks };
}
