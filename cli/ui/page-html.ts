// The page's one HTML document: every path of the page answers it, and its
// script draws the view the path names. The per-start token is in a meta
// element: only a page served by this process reads it. Pure.
import { TOKEN_META } from './protocol.ts';

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function pageHtml(token: string, context: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="${TOKEN_META}" content="${escape(token)}">
<title>Cascade</title>
<link rel="stylesheet" href="/style.css">
<script type="module" src="/app.js"></script>
</head>
<body>
<header class="top"><a href="/runs" class="brand">Cascade</a>
<nav aria-label="Sections"><a href="/runs">Runs</a> <a href="/scenarios">Scenarios</a></nav>
<span class="context">${escape(context)}</span></header>
<main id="main" tabindex="-1"><p>Loading…</p></main>
</body>
</html>
`;
}
