// Markdown to safe DOM: markdown-it with raw HTML off (so `<script>` in text stays text), then DOMPurify
// over the result as a second wall, links without javascript: and opened by the host, not the webview.
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import { showHiddenCharsIn } from './components';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

export function renderMarkdown(text: string): DocumentFragment {
  const html = md.render(text);
  const fragment = DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    FORBID_TAGS: ['style', 'form', 'input', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style', 'srcset'],
    ALLOWED_URI_REGEXP: /^(?:https?:|#)/i,
  });
  // A right-to-left override in a note would reverse the rest of its paragraph: shown, never applied.
  showHiddenCharsIn(fragment);
  return fragment;
}
