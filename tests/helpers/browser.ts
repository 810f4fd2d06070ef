/** A small browser for the web face's tests: a cookie jar over fetch, redirects not followed, forms posted urlencoded. */
export interface Page {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
}

export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly rootUrl: string) {}

  private async request(method: string, path: string, body?: URLSearchParams, headers: Record<string, string> = {}): Promise<Page> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(path.replace(/^\//, ''), this.rootUrl), {
      method, body, redirect: 'manual', headers: { ...(cookie ? { Cookie: cookie } : {}), ...headers },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, html: await response.text(), location: response.headers.get('location') };
  }

  get(path: string, headers?: Record<string, string>): Promise<Page> {
    return this.request('GET', path, undefined, headers);
  }

  post(path: string, fields: Record<string, string>): Promise<Page> {
    return this.request('POST', path, new URLSearchParams(fields));
  }

  /** The CSRF token of the first form of a page. */
  static csrfOf(page: Page): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(page.html);
    if (!match) throw new Error(`no _csrf field in the page (${page.status})`);
    return match[1];
  }

  /** Signs in through the sign-in form; answers the POST's answer. */
  async signIn(login: string, password: string, extra: Record<string, string> = {}): Promise<Page> {
    const form = await this.get('/user/login');
    return this.post('/user/login', { _csrf: Browser.csrfOf(form), user_name: login, password, ...extra });
  }

  /** The user name the page header shows as signed in, or null. */
  static signedInAs(page: Page): string | null {
    return /<a class="signed-in" href="[^"]*">([^<]+)<\/a>/.exec(page.html)?.[1] ?? null;
  }
}
