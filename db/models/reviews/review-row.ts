/** Gitea's ReviewType: the stored `type` of a review. */
export const reviewTypes = { pending: 0, approve: 1, comment: 2, reject: 3, request: 4 } as const;
export type ReviewType = (typeof reviewTypes)[keyof typeof reviewTypes];

/** The API's ReviewStateType for each stored type (Gitea's ToPullReview). */
export const reviewStates = ['PENDING', 'APPROVED', 'COMMENT', 'REQUEST_CHANGES', 'REQUEST_REVIEW'] as const;
export type ReviewState = (typeof reviewStates)[number];

/** A row of the `review` table: a review of a pull request's issue, or a request for one (of a user or a team). */
export interface ReviewRow {
  id: number;
  type: ReviewType;
  reviewer_id: number | null;
  reviewer_team_id: number | null;
  original_author: string;
  original_author_id: number;
  issue_id: number;
  content: string;
  /** Counts towards required approvals (and blocks as a rejection or a request) under the base branch's rule. */
  official: boolean;
  commit_id: string;
  stale: boolean;
  dismissed: boolean;
  created: Date;
  updated: Date;
}
