/**
 * A text that changes whenever anything an issue's view holds changes: the row version (xmin: the transaction that
 * wrote it) of the issue and of every row loadIssueViews reads for it, with the ids of its labels, assignees and
 * attachments, so an added or removed link changes it too. `i` is the issue's alias. The repository's own fields are
 * not in it: the caller knows them.
 */
export const issueViewVersionSql = `concat_ws(':', i.xmin,
    (SELECT u.xmin FROM "user" u WHERE u.id = i.poster_id),
    (SELECT string_agg(l.id || '.' || l.xmin, ',' ORDER BY l.id) FROM issue_label il JOIN label l ON l.id = il.label_id WHERE il.issue_id = i.id),
    (SELECT string_agg(u.id || '.' || u.xmin, ',' ORDER BY u.id) FROM issue_assignees ia JOIN "user" u ON u.id = ia.assignee_id WHERE ia.issue_id = i.id),
    (SELECT m.xmin FROM milestone m WHERE m.id = i.milestone_id),
    (SELECT string_agg(a.id || '.' || a.xmin, ',' ORDER BY a.id) FROM attachment a WHERE a.issue_id = i.id AND a.comment_id IS NULL),
    (SELECT p.xmin FROM pull_request p WHERE p.issue_id = i.id))`;
