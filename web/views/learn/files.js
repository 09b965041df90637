// Checkpoints in and out: the model as a safetensors file PyTorch loads with load_state_dict,
// and a file imported back (ours, or one PyTorch saved, read by its tensors).
import { h } from '../../ui/dom.js';

const TEXT = {
  summary: 'Checkpoints: save this model, or load one (.safetensors)',
  export: 'Export checkpoint (.safetensors)',
  import: 'Import checkpoint',
  importHelp:
    'A nanoGPT-compatible checkpoint (safetensors, the names of nanoGPT’s state_dict) whose vocabulary fits this task. A file saved by PyTorch records no config: its tensors give the sizes, and the Heads setting gives the head count. Exported files load in PyTorch with load_state_dict.',
};

/**
 * @param {Element} parent
 * @param {{doc, button, onExport(), onImport(file)}} ctx
 */
export function render(parent, { doc, button, onExport, onImport }) {
  const fileInput = h(doc, 'input', {
    type: 'file',
    accept: '.safetensors,application/octet-stream',
    class: 'ae-learn-import',
    onchange: (e) => {
      const file = e.target.files?.[0];
      e.target.value = '';
      if (file) onImport(file);
    },
  });
  parent.append(
    h(
      doc,
      'details',
      { class: 'ae-details ae-learn-files' },
      h(doc, 'summary', {}, TEXT.summary),
      button(TEXT.export, () => onExport(), 'ae-learn-export'),
      h(doc, 'label', {}, `${TEXT.import} `, fileInput),
      h(doc, 'p', { class: 'ae-help' }, TEXT.importHelp),
    ),
  );
  return {};
}
