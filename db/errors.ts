/** An error that knows the HTTP status it answers with. Thrown anywhere; rendered once by the API's error middleware. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * Gitea's ctx.NotFound: a fixed message, with what is missing under `errors`. A `message` stands for Gitea's
 * ctx.Error(404, message) instead: that message and no `errors`.
 */
export const notFound = (what?: string, message?: string): HttpError =>
  message === undefined ? new HttpError(404, "The target couldn't be found.", { errors: what ? [what] : [] }) : new HttpError(404, message);
/** `extra` adds fields to the body beside `message` (e.g. the offending topics). */
export const invalid = (message: string, extra?: Record<string, unknown>): HttpError => new HttpError(422, message, extra);
export const badRequest = (message: string): HttpError => new HttpError(400, message);
export const forbidden = (message: string): HttpError => new HttpError(403, message);
export const unauthorized = (message: string): HttpError => new HttpError(401, message);
export const methodNotAllowed = (message: string): HttpError => new HttpError(405, message);
export const conflict = (message: string): HttpError => new HttpError(409, message);
export const tooLarge = (message: string): HttpError => new HttpError(413, message);
export const unsupportedMediaType = (message: string): HttpError => new HttpError(415, message);
export const preconditionFailed = (message: string): HttpError => new HttpError(412, message);
export const locked = (message: string): HttpError => new HttpError(423, message);
/** A package registry's own error (the OCI distribution spec's `code` beside the message), with the status it answers. */
/** A service this one needs does not answer now (a login source, say). */
export const unavailable = (message: string): HttpError => new HttpError(503, message);
/** An OAuth2 refusal: rendered as `{"error": code, "error_description": description}` by the OAuth2 routes. */
export const oauth2Error = (code: string, description: string, status = 400): HttpError => new HttpError(status, description, { error: code });
export const registryError = (status: number, message: string, code: string): HttpError => new HttpError(status, message, { code });

/** PostgreSQL's unique_violation: a concurrent writer won the race for the same name. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}
