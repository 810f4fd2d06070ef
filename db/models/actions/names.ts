import { badRequest } from '../../errors.js';

const namePattern = /^[A-Z_][A-Z0-9_]*$/i;
const forbiddenPrefix = /^GIT(EA|HUB)_/i;

/**
 * Gitea's rule for secret and variable names (services/secrets ValidateName): letters, digits and underscores,
 * not starting with a digit, no GITEA_ or GITHUB_ prefix. Stored upper case, so names match case-insensitively.
 */
export function secretName(name: string): string {
  if (!isValidName(name)) throw badRequest('invalid secret name');
  return name.toUpperCase();
}

/** Gitea's varchar(255) name column. */
const maxLength = 255;

const isValidName = (name: string): boolean => name.length <= maxLength && namePattern.test(name) && !forbiddenPrefix.test(name);

/**
 * The stored form of a variable name to look up (reads and deletes of variables check no rule, as in Gitea): upper case, or null for a
 * text no row can have (such as a NUL), which is simply not found.
 */
export function storedName(name: string): string | null {
  return name.length <= maxLength && namePattern.test(name) ? name.toUpperCase() : null;
}

/** Variables follow the same rule, and `CI` (set by every runner) is refused too (Gitea's envNameCIRegexMatch). */
export function variableName(name: string): string {
  const upper = secretName(name);
  if (upper === 'CI') throw badRequest('env name cannot be ci');
  return upper;
}

/** Gitea keeps multi-line values with `\n` line ends (ReserveLineBreakForTextarea). */
export const normalizeLineEnds = (value: string): string => value.replace(/\r\n/g, '\n');
