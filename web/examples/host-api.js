// Drives the #demo element of index.html through its public API and logs its events.
const el = document.getElementById('demo');
const log = document.getElementById('log');
const say = (text) => {
  log.textContent += `${text}\n`;
  log.scrollTop = log.scrollHeight;
};

el.addEventListener('change', (event) => {
  const { options, focus, step } = event.detail.state;
  say(`change: focus=${focus} causal=${options.causal} temperature=${options.temperature} step=${step}`);
});
el.addEventListener('step', (event) => say(`step: ${event.detail.step}`));

const actions = {
  causal: () => el.setState({ options: { causal: !el.state.options.causal } }),
  temperature: () => el.setState({ options: { temperature: 0.5 } }),
  finance: () => el.setState({ focus: 'finance' }),
  loops: () => el.setState({ view: ['loops'] }),
  step: () => say(`step() → ${el.step()}`),
  state: () => say(`state.options = ${JSON.stringify(el.state.options)}`),
};
for (const button of document.querySelectorAll('button[data-action]')) {
  button.addEventListener('click', () => actions[button.dataset.action]());
}
el.ready.then(
  () => say('ready'),
  (error) => say(`failed: ${error.message}`),
);
