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

export const notFound = (what?: string): HttpError =>
  new HttpError(404, "The target couldn't be found.", { errors: what ? [what] : [] });
export const invalid = (message: string): HttpError => new HttpError(422, message);
export const badRequest = (message: string): HttpError => new HttpError(400, message);
export const forbidden = (message: string): HttpError => new HttpError(403, message);
export const unauthorized = (message: string): HttpError => new HttpError(401, message);
export const conflict = (message: string): HttpError => new HttpError(409, message);

/** PostgreSQL's unique_violation: a concurrent writer won the race for the same name. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}
