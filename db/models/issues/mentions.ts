import type { Tx } from '../../data-source.js';
import type { IssueRow } from './issue-row.js';

const mentionPattern = /(?:^|[\s([{,])@([\w][\w.-]*[\w]|[\w])/g;

/** The logins `@mentioned` in a text, lower-cased, without duplicates. */
export function mentionedNames(text: string): string[] {
  return [...new Set([...text.matchAll(mentionPattern)].map((match) => match[1].toLowerCase()))];
}

/** Records the existing users a text mentions on the issue (for the `mentioned_by` filters). */
export async function recordMentions(tx: Tx, issue: IssueRow, text: string): Promise<void> {
  const names = mentionedNames(text);
  if (names.length === 0) return;
  await tx.query(
    `INSERT INTO issue_mention (issue_id, user_id)
     SELECT $1, id FROM "user" WHERE lower_name = ANY($2::text[]) AND type = 0 ON CONFLICT DO NOTHING`,
    [issue.id, names],
  );
}
