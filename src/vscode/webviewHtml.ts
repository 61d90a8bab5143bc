import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { ViewId } from '../protocol/messages';

/** The folders a webview may load from: our bundles and CSS, nothing else. */
export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: webviewRoots(extensionUri) };
}

/** A fresh nonce per render, from the crypto RNG (a guessable nonce would defeat the CSP). */
export function makeNonce(): string {
  return randomBytes(18).toString('base64');
}

/**
 * The page shell of a webview. Strict CSP: nothing by default, our script by nonce only, styles, fonts
 * and images only from the extension's own resources, and no network at all (the host does that).
 * The toolkit (FAST) probes for :focus-visible with a <style> element of its own; it takes the nonce
 * from the `csp-nonce` meta tag, so the probe is allowed and no inline style is needed (nor a toolkit
 * template with a style binding: see webview/shared/components.ts). 'report-sample' puts the start of
 * what was blocked into the page's securitypolicyviolation event, to tell what tripped the policy.
 */
export function renderWebviewHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  view: ViewId,
  title: string,
): string {
  const nonce = makeNonce();
  const asset = (...parts: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...parts)).toString();
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource} 'nonce-${nonce}' 'report-sample'`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}' 'report-sample'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="${escapeAttr(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta property="csp-nonce" content="${nonce}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('dist', 'webview', 'codicon.css')}">
<link rel="stylesheet" href="${asset('media', 'common.css')}">
<link rel="stylesheet" href="${asset('media', `${view}.css`)}">
<title>${escapeAttr(title)}</title>
</head>
<body data-engram-view="${view}">
<div id="app" role="main" aria-busy="true"></div>
<script nonce="${nonce}" src="${asset('dist', 'webview', `${view}.js`)}"></script>
</body>
</html>`;
}

function escapeAttr(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
