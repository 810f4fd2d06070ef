import { z } from 'zod';
import { renderMarkup } from '../../../db/models/instance/markup.js';
import { route, type Reply } from '../../http/route.js';
import type { UserRow } from '../../../db/models/users/user-row.js';
import type { Deps } from '../../deps.js';

/** Gitea's MarkdownOption and MarkupOption have no JSON names: Go matches `Text`, `text` or `TEXT` alike. */
function caseInsensitive<T extends z.ZodRawShape>(shape: T) {
  const names = Object.keys(shape);
  return z.preprocess((input) => {
    if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      const name = names.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
      if (name) out[name] = value;
    }
    return out;
  }, z.object(shape));
}

const markdownBody = caseInsensitive({
  Text: z.string().default(''),
  Mode: z.string().default(''),
  Context: z.string().default(''),
  Wiki: z.boolean().default(false),
});
const markupBody = caseInsensitive({
  Text: z.string().default(''),
  Mode: z.string().default(''),
  Context: z.string().default(''),
  FilePath: z.string().default(''),
  Wiki: z.boolean().default(false),
});
type MarkupBody = { Text: string; Mode: string; Context: string; Wiki: boolean; FilePath?: string };

async function render(deps: Deps, doer: UserRow, body: MarkupBody): Promise<Reply> {
  const html = await renderMarkup(
    deps.db,
    { text: body.Text, mode: body.Wiki ? 'wiki' : body.Mode, context: body.Context, filePath: body.FilePath },
    deps.config.rootUrl,
    doer,
  );
  return { status: 200, content: html, headers: { 'Content-Type': 'text/html; charset=utf-8' } };
}

export const markupRoutes = [
  route({
    method: 'post', path: '/markdown', operationId: 'renderMarkdown', summary: 'Render a markdown document as HTML', tag: 'miscellaneous',
    scope: null, signedIn: true, body: markdownBody, responses: { 200: 'MarkdownRender', 422: 'validationError' },
    handle: ({ deps, doer, body }) => render(deps, doer, body),
  }),
  route({
    method: 'post', path: '/markup', operationId: 'renderMarkup', summary: 'Render a markup document as HTML', tag: 'miscellaneous',
    scope: null, signedIn: true, body: markupBody, responses: { 200: 'MarkupRender', 422: 'validationError' },
    handle: ({ deps, doer, body }) => render(deps, doer, body),
  }),
  route({
    method: 'post', path: '/markdown/raw', operationId: 'renderMarkdownRaw', summary: 'Render raw markdown as HTML', tag: 'miscellaneous',
    scope: null, signedIn: true, responses: { 200: 'MarkdownRender', 422: 'validationError' },
    // app.ts reads this route's body as text, whatever its content type
    handle: ({ deps, doer, req }) => render(deps, doer, { Text: typeof req.body === 'string' ? req.body : '', Mode: 'markdown', Context: '', Wiki: false }),
  }),
];
