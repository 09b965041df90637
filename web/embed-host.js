// The host page's half of the iframe route: a classic script (no inline code, so it runs under
// `script-src 'self'`) that sizes every attention-explorer frame on the page to its content.
//
//   <iframe src="…/embed.html#…" title="…" style="width: 100%; border: 0" height="640"></iframe>
//   <script src="…/embed-host.js" defer></script>
//
// Each frame posts {type: 'attention-explorer:height', height: <CSS px>} whenever its content
// changes size; this script sets that frame's height and answers {type: 'attention-explorer:sized'},
// after which the frame stops scrolling itself (without an answer it keeps its own scroll bar, so
// nothing is ever cut off). Only frames on this page whose window sent the message are touched.
(() => {
  const HEIGHT = 'attention-explorer:height';
  const SIZED = 'attention-explorer:sized';
  if (window.__attentionExplorerHost) return; // loaded twice: one listener is enough
  window.__attentionExplorerHost = true;
  addEventListener('message', (event) => {
    const data = event.data;
    if (!data || data.type !== HEIGHT || !Number.isFinite(data.height) || data.height < 0) return;
    for (const frame of document.querySelectorAll('iframe')) {
      if (frame.contentWindow !== event.source) continue;
      const height = Math.min(Math.ceil(data.height), 100000);
      frame.style.height = `${height}px`;
      event.source.postMessage({ type: SIZED, height }, '*');
    }
  });
})();
