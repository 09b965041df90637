// Sizes each attention-explorer frame to the height it posts ({type, height} messages).
window.__frameHeights = [];
addEventListener('message', (event) => {
  if (!event.data || event.data.type !== 'attention-explorer:height') return;
  for (const frame of document.querySelectorAll('iframe')) {
    if (frame.contentWindow === event.source) {
      frame.style.height = `${event.data.height}px`;
      window.__frameHeights.push(event.data.height);
    }
  }
});
