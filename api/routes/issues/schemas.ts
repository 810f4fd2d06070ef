import { z } from 'zod';

/** An RFC 3339 date-time as Gitea's JSON decoder reads one; anything else is a 422. */
export const dateTime = z.string()
  .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i, 'must be an RFC 3339 date-time')
  .transform((text) => new Date(text))
  .refine((date) => !Number.isNaN(date.getTime()), 'must be a valid date');

/** A date-time query parameter (`since`, `before`). */
export const dateTimeQuery = dateTime.optional();

const id = z.number().int().nonnegative();

export const createIssueBody = z.object({
  title: z.string(),
  body: z.string().optional(),
  ref: z.string().optional(),
  assignee: z.string().optional(),
  assignees: z.array(z.string()).optional(),
  milestone: id.optional(),
  labels: z.array(id).optional(),
  closed: z.boolean().optional(),
  due_date: dateTime.optional(),
});

export const editIssueBody = z.object({
  title: z.string().optional(),
  body: z.string().optional(),
  ref: z.string().optional(),
  assignee: z.string().optional(),
  assignees: z.array(z.string()).optional(),
  milestone: id.optional(),
  state: z.enum(['open', 'closed']).optional(),
  due_date: dateTime.optional(),
  unset_due_date: z.boolean().optional(),
});
