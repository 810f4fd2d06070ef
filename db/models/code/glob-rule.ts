/** Gitea's special glob bytes: a rule containing one is a pattern, otherwise the name of one branch. */
export function isGlobRule(ruleName: string): boolean {
  return /[*?[\]{}\\]/.test(ruleName);
}
