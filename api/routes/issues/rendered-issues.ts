import type { RenderContext } from '../../render/user.js';

/**
 * Issues as JSON text, each kept with the version of the view it was rendered from, so a list answers an issue that
 * did not change without loading, rendering and serialising it again. The version must name everything the text
 * shows (db/views/issues.ts issueViewVersionSql and the repository's names): a different version is a miss, never a
 * stale answer. The least recently used texts go first once `limit` are held.
 */
export class RenderedIssues {
  private readonly texts = new Map<number, { version: string; json: string }>();

  constructor(private readonly limit = 5_000) {}

  get(issueId: number, version: string): string | undefined {
    const entry = this.texts.get(issueId);
    if (entry?.version !== version) return undefined;
    this.texts.delete(issueId);
    this.texts.set(issueId, entry);
    return entry.json;
  }

  set(issueId: number, version: string, json: string): void {
    this.texts.delete(issueId);
    this.texts.set(issueId, { version, json });
    if (this.texts.size > this.limit) this.texts.delete(this.texts.keys().next().value!);
  }
}

const byContext = new WeakMap<RenderContext, RenderedIssues>();

/** The rendered issues of one render context (a process's configuration: its root URL is in every text). */
export function renderedIssuesOf(ctx: RenderContext): RenderedIssues {
  let cache = byContext.get(ctx);
  if (!cache) {
    cache = new RenderedIssues();
    byContext.set(ctx, cache);
  }
  return cache;
}
