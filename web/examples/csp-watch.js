// Counts Content-Security-Policy violations on csp.html (a classic script, so it runs first).
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
  const out = document.querySelector('#violations output');
  if (out) out.textContent = String(window.__cspViolations.length);
});
