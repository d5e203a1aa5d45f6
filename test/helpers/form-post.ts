/** Form posts as a browser makes them, through fetch: from the service's own origin, with the cookies it holds. */

/** POSTs `fields` url-encoded to `origin` + `path`, with Origin and this Cookie header; redirects are not followed. */
export function postForm(origin: string, path: string, fields: Record<string, string>, cookie: string): Promise<Response> {
  return fetch(`${origin}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin, Cookie: cookie },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The name=value pairs a response's Set-Cookie headers set, as a Cookie header. */
export function cookieHeader(res: Response): string {
  return res.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
}
