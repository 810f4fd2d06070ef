import { z } from 'zod';

/**
 * Field builders for request schemas: every text that ends in a bounded column, a file name or a git argument has a
 * limit (Gitea's `binding:"MaxSize(n)"` where it has one, its column size otherwise), and every integer the range of
 * the format the reference description gives it. The limits and formats reach the OpenAPI document through the schemas.
 */
export const limits = {
  /** Gitea's varchar(255) columns: titles, names of releases, labels, teams, rules. */
  name: 255,
  /** A ref name or a revision: git refuses ref names longer than a file name. */
  ref: 255,
  /** CreateBranchRepoOption, CreateRepoOption.DefaultBranch: GitRefName;MaxSize(100). */
  branch: 100,
  /** Tags: the ref limit (Gitea binds CreateTagOption.TagName to 50, but tags pushed over git may be longer and are served by name). */
  tag: 255,
  /** A URL kept in a column (a status's target, a website). */
  url: 1024,
  /** Text a column holds but no binding bounds (a status description or context): past this it is refused, not stored. */
  text: 65_535,
} as const;

/** A string of at most `max` characters. */
export const text = (max: number): z.ZodString => z.string().max(max);

/** A ref name or revision (branch, tag, commit-ish): bounded, and never a NUL or a `..` that git would read as a range. */
export const refName = (max: number = limits.ref): z.ZodString =>
  z.string().max(max).refine((value) => !value.includes('\u0000') && !value.includes('..'), 'must be a valid git reference name');

/** Integers as the reference description's formats bound them: int32 and int64 (within JavaScript's safe range). */
export const int32 = (): z.ZodNumber => z.int32().meta({ format: 'int32' });
export const int64 = (): z.ZodNumber => z.int().meta({ format: 'int64' });
/** A count or a limit: int32, never negative. */
export const count = (): z.ZodNumber => int32().min(0);
/** An id in a query string: digits, at most int64. */
export const queryId = (): z.ZodCoercedNumber => z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({ format: 'int64' });
