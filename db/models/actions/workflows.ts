import { parseDocument, stringify } from 'yaml';
import cronParser from 'cron-parser';
import { compileGlob } from '../../glob.js';
import type { GitReader } from '../../git/read.js';

/** The folders Gitea reads workflows from, in its order: `.gitea/workflows` wins when both have files. */
export const workflowDirs = ['.gitea/workflows', '.github/workflows'] as const;

/** The events a workflow can name that Hearth acts on. */
export type TriggerEvent = 'push' | 'pull_request' | 'workflow_dispatch' | 'schedule';

/** One job of a workflow: its key, display name, `needs` and `runs-on` labels, and itself as a one-job workflow for the runner. */
export interface WorkflowJob {
  key: string;
  name: string;
  needs: string[];
  runsOn: string[];
  /** The workflow with only this job, as the runner receives it (Gitea's SingleWorkflow). */
  payload: string;
}

export interface Workflow {
  /** e.g. `.gitea/workflows/ci.yml` */
  path: string;
  content: string;
  name: string;
  /** Each named event with its settings (null when the event is named without any). */
  on: Map<string, Record<string, unknown> | null>;
  jobs: WorkflowJob[];
  /** Why the file could not be used, when it could not; such a workflow still gets a run, recorded as failed. */
  error: string | null;
}

/** The file name of a workflow path (`ci.yml`), which Gitea calls the workflow's id. */
export function workflowId(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Workflow files (`*.yml`, `*.yaml`) of a commit, from the first of Gitea's folders that has any. */
export async function readWorkflows(reader: GitReader, commit: string): Promise<Workflow[]> {
  const found = await reader.findCommit(commit);
  if (!found) return [];
  for (const dir of workflowDirs) {
    const folder = await reader.entryAt(found, dir);
    if (!folder || folder.type !== 'tree') continue;
    const entries = (await reader.listTree(commit, { path: dir, recursive: true }))
      .filter((e) => e.type === 'blob' && /\.ya?ml$/i.test(e.name))
      .sort((a, b) => a.path.localeCompare(b.path));
    if (entries.length === 0) continue;
    const workflows: Workflow[] = [];
    for (const entry of entries) {
      const blob = await reader.readBlob(entry.oid);
      if (blob) workflows.push(parseWorkflow(entry.path, blob.toString('utf8')));
    }
    return workflows;
  }
  return [];
}

const asRecord = (value: unknown): Record<string, unknown> | null =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

const asStrings = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** A workflow file read with the `yaml` package; what does not parse or lacks `on` or `jobs` comes back with its error. */
export function parseWorkflow(path: string, content: string): Workflow {
  const base: Workflow = { path, content, name: workflowId(path), on: new Map(), jobs: [], error: null };
  let doc: unknown;
  try {
    const parsed = parseDocument(content, { uniqueKeys: false });
    if (parsed.errors.length > 0) return { ...base, error: parsed.errors[0].message };
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ...base, error: error instanceof Error ? error.message : String(error) };
  }
  const root = asRecord(doc);
  if (!root) return { ...base, error: 'a workflow must be a mapping' };
  const name = typeof root.name === 'string' && root.name ? root.name : base.name;
  const on = new Map<string, Record<string, unknown> | null>();
  const trigger = root.on ?? root.true; // YAML 1.1 readers take a bare `on` key for true
  if (typeof trigger === 'string') on.set(trigger, null);
  else if (Array.isArray(trigger)) for (const event of asStrings(trigger)) on.set(event, null);
  else if (asRecord(trigger)) for (const [event, settings] of Object.entries(trigger as object)) on.set(event, asRecord(settings) ?? (Array.isArray(settings) ? { list: settings } : null));
  else return { ...base, name, error: 'the workflow has no `on` trigger' };
  const jobsNode = asRecord(root.jobs);
  if (!jobsNode || Object.keys(jobsNode).length === 0) return { ...base, name, on, error: 'the workflow has no jobs' };
  const jobs: WorkflowJob[] = [];
  for (const [key, value] of Object.entries(jobsNode)) {
    const job = asRecord(value);
    if (!job) return { ...base, name, on, error: `job ${key} must be a mapping` };
    const runsOn = asStrings(asRecord(job['runs-on'])?.labels ?? job['runs-on']);
    const needs = asStrings(job.needs);
    const unknown = needs.find((need) => !Object.hasOwn(jobsNode, need));
    if (unknown) return { ...base, name, on, error: `job ${key} needs unknown job ${unknown}` };
    const single = { ...root, jobs: { [key]: job } };
    delete (single as Record<string, unknown>).true;
    jobs.push({ key, name: typeof job.name === 'string' && job.name ? job.name : key, needs, runsOn, payload: stringify(single) });
  }
  const cycle = findCycle(jobs);
  if (cycle) return { ...base, name, on, error: `jobs ${cycle} need each other` };
  return { ...base, name, on, jobs };
}

function findCycle(jobs: WorkflowJob[]): string | null {
  const byKey = new Map(jobs.map((j) => [j.key, j]));
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (key: string): string | null => {
    if (state.get(key) === 'done') return null;
    if (state.get(key) === 'visiting') return key;
    state.set(key, 'visiting');
    for (const need of byKey.get(key)?.needs ?? []) {
      const found = visit(need);
      if (found) return found;
    }
    state.set(key, 'done');
    return null;
  };
  for (const job of jobs) {
    const found = visit(job.key);
    if (found) return found;
  }
  return null;
}

/**
 * GitHub's filter patterns (act's workflowpattern): `*` stays within a path segment, `**` crosses them, a `!`
 * pattern excludes what earlier ones included; the last pattern that matches decides.
 */
export function matchesPatterns(patterns: string[], value: string): boolean {
  let matched = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const glob = compileGlob(negated ? raw.slice(1) : raw, '/');
    if (glob ? glob.test(value) : value === raw) matched = !negated;
  }
  return matched;
}

/** An include list and an ignore list of one filter: absent lists pass everything. */
function passes(settings: Record<string, unknown>, include: string, ignore: string, value: string): boolean {
  if (settings[include] !== undefined) return matchesPatterns(asStrings(settings[include]), value);
  if (settings[ignore] !== undefined) return !matchesPatterns(asStrings(settings[ignore]), value);
  return true;
}

export interface PushFacts {
  ref: string;
  /** Files the push changed; null when they are not known (every path filter then passes). */
  changedFiles: string[] | null;
}

/**
 * Whether a push triggers the workflow (GitHub's rules): with only branch filters, tags never match, and with
 * only tag filters, branches never match; path filters apply to branch pushes.
 */
export function pushMatches(workflow: Workflow, push: PushFacts): boolean {
  if (!workflow.on.has('push')) return false;
  const settings = workflow.on.get('push') ?? {};
  const isBranch = push.ref.startsWith('refs/heads/');
  const isTag = push.ref.startsWith('refs/tags/');
  const hasBranchFilter = settings.branches !== undefined || settings['branches-ignore'] !== undefined;
  const hasTagFilter = settings.tags !== undefined || settings['tags-ignore'] !== undefined;
  if (isBranch) {
    if (hasTagFilter && !hasBranchFilter) return false;
    if (!passes(settings, 'branches', 'branches-ignore', push.ref.slice('refs/heads/'.length))) return false;
  } else if (isTag) {
    if (hasBranchFilter && !hasTagFilter) return false;
    if (!passes(settings, 'tags', 'tags-ignore', push.ref.slice('refs/tags/'.length))) return false;
    return true;
  } else {
    return false;
  }
  if (push.changedFiles === null) return true;
  if (settings.paths !== undefined) return push.changedFiles.some((file) => matchesPatterns(asStrings(settings.paths), file));
  if (settings['paths-ignore'] !== undefined) return push.changedFiles.some((file) => !matchesPatterns(asStrings(settings['paths-ignore']), file));
  return true;
}

export interface PullRequestFacts {
  /** `opened`, `synchronize`, `reopened`, ... */
  action: string;
  baseBranch: string;
  changedFiles: string[] | null;
}

/**
 * Whether a pull request event triggers the workflow (types default to opened, synchronize and reopened; branch
 * filters apply to the base branch; path filters to the files the pull request changes).
 */
export function pullRequestMatches(workflow: Workflow, pull: PullRequestFacts): boolean {
  if (!workflow.on.has('pull_request')) return false;
  const settings = workflow.on.get('pull_request') ?? {};
  const types = settings.types !== undefined ? asStrings(settings.types) : ['opened', 'synchronize', 'reopened'];
  if (!types.includes(pull.action)) return false;
  if (!passes(settings, 'branches', 'branches-ignore', pull.baseBranch)) return false;
  if (pull.changedFiles === null) return true;
  if (settings.paths !== undefined) return pull.changedFiles.some((file) => matchesPatterns(asStrings(settings.paths), file));
  if (settings['paths-ignore'] !== undefined) return pull.changedFiles.some((file) => !matchesPatterns(asStrings(settings['paths-ignore']), file));
  return true;
}

/** The cron specs of a workflow's `schedule` trigger (`on.schedule: [{cron: ...}]`); each is checked by cron-parser. */
export function scheduleSpecs(workflow: Workflow): { specs: string[]; error: string | null } {
  if (!workflow.on.has('schedule')) return { specs: [], error: null };
  const settings = workflow.on.get('schedule');
  const list = Array.isArray(settings?.list) ? settings.list : [];
  const specs: string[] = [];
  for (const item of list) {
    const cron = asRecord(item)?.cron;
    if (typeof cron !== 'string') continue;
    try {
      cronParser.parseExpression(cron, { tz: 'UTC' });
    } catch (error) {
      return { specs: [], error: `invalid cron "${cron}": ${error instanceof Error ? error.message : String(error)}` };
    }
    specs.push(cron);
  }
  return { specs, error: null };
}

/** The earliest time after `after` at which one of the specs fires (minute precision, UTC). */
export function nextRunOf(specs: string[], after: Date): Date {
  let best: Date | null = null;
  for (const spec of specs) {
    const next = cronParser.parseExpression(spec, { currentDate: after, tz: 'UTC' }).next().toDate();
    if (!best || next < best) best = next;
  }
  if (!best) throw new Error('a plan needs at least one cron spec');
  return best;
}

/** Whether `workflow_dispatch` is among the workflow's triggers. */
export function isDispatchable(workflow: Workflow): boolean {
  return workflow.on.has('workflow_dispatch');
}
