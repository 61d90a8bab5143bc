// Markdown to safe DOM: markdown-it with raw HTML off (so `<script>` in text stays text), then DOMPurify
// over the result as a second wall, links without javascript: and opened by the host, not the webview.
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import { showHiddenCharsIn } from './components';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

export function renderMarkdown(text: string): DocumentFragment {
  const tokens = md.parse(text, {});
  const html = md.renderer.render(tokens, md.options, {});
  const fragment = DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    FORBID_TAGS: ['style', 'form', 'input', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style', 'srcset'],
    ALLOWED_URI_REGEXP: /^(?:https?:|#)/i,
  });
  // A right-to-left override in a note would reverse the rest of its paragraph: shown, never applied.
  showHiddenCharsIn(fragment);
  restoreListStarts(fragment, tokens);
  return fragment;
}

/**
 * DOMPurify's DOM fragment (unlike its string) drops an <ol>'s start, so a summary's "4. Errors" after a
 * bullet list read "1. Errors": put each start back from markdown-it's tokens, which list the ordered
 * lists in the document's order (sanitizing removes none of them).
 */
function restoreListStarts(fragment: DocumentFragment, tokens: ReturnType<typeof md.parse>): void {
  const starts = tokens.filter((t) => t.type === 'ordered_list_open').map((t) => t.attrGet('start'));
  fragment.querySelectorAll('ol').forEach((ol, i) => {
    const start = String(starts[i] ?? '');
    if (/^\d+$/.test(start)) ol.setAttribute('start', start);
  });
}
