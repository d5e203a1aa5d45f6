import { CONTENT_TYPE, type AsmxResponse } from './asmx-response.js';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** ASP.NET answers these errors with an HTML page; ours says the same message, without a stack. */
export function errorPage(status: number, message: string, headOnly = false): AsmxResponse {
  const title = escapeHtml(message);
  return {
    status,
    contentType: CONTENT_TYPE.html,
    cacheControl: 'private',
    headOnly,
    body: `<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${title}</title></head>\n<body>\n<h1>Server Error</h1>\n<p>${title}</p>\n</body>\n</html>\n`,
  };
}
