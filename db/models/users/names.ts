import { badRequest, invalid } from '../../errors.js';

/** Gitea's reserved user and organization names, plus the bots Hearth itself may run as. */
const reservedNames = new Set([
  '.', '..', '.well-known', 'admin', 'api', 'assets', 'attachments', 'avatar', 'avatars', 'captcha', 'commits',
  'debug', 'error', 'explore', 'favicon.ico', 'ghost', 'issues', 'login', 'manifest.json', 'metrics', 'milestones',
  'new', 'notifications', 'org', 'pulls', 'raw', 'repo', 'repo-avatars', 'robots.txt', 'search', 'serviceworker.js',
  'ssh_info', 'swagger.v1.json', 'user', 'v2', 'gitea-actions', 'hearth-actions', 'service-actions',
]);
const reservedSuffixes = ['.keys', '.gpg', '.rss', '.atom', '.png'];

const validName = /^[\da-zA-Z][\w.-]*$/;
const repeatedOrTrailingSpecial = /[-._]{2,}|[-._]$/;
export const maxNameLength = 40;

/** Refuses a user or organization name that Gitea would refuse, with Gitea's messages. */
export function assertUsableName(name: string): void {
  if (!name || name.length > maxNameLength) {
    throw invalid(`[Username]: name must be between 1 and ${maxNameLength} characters`);
  }
  const lower = name.toLowerCase();
  if (reservedNames.has(lower)) throw invalid(`name is reserved [name: ${name}]`);
  const suffix = reservedSuffixes.find((s) => lower.endsWith(s));
  if (suffix) throw invalid(`name pattern is not allowed [pattern: *${suffix}]`);
  if (!validName.test(name) || repeatedOrTrailingSpecial.test(name)) {
    throw invalid(`name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`);
  }
}

const emailPattern = /^[\w.!#$%&'*+/=?^`{|}~-]+@[a-zA-Z\d](?:[a-zA-Z\d-]{0,61}[a-zA-Z\d])?(?:\.[a-zA-Z\d](?:[a-zA-Z\d-]{0,61}[a-zA-Z\d])?)*$/;

export function assertValidEmail(email: string): void {
  if (email.length > 254 || !emailPattern.test(email) || email.startsWith('-')) {
    throw invalid(`e-mail invalid [email: ${email}]`);
  }
}

const minPasswordLength = 8;

/** Gitea answers a short password with 400 (PasswordIsRequired, PasswordTooShort) and a long one with 422. */
export function assertPassword(password: string): void {
  if (password.length < minPasswordLength) throw badRequest(`password is too short: at least ${minPasswordLength} characters`);
  if (password.length > 255) throw invalid('password is too long: at most 255 characters');
}
