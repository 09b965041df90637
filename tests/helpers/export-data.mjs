// A matrix and labels for the export tests (tests/js/lib/matrix-formats, heatmap-image, png):
// float32 numbers of every size, a masked entry, and labels that would be markup, a spreadsheet
// formula or a broken CSV field if a writer did not escape them.
export const hostileLabels = ['<img src=x onerror=alert(1)>', '=SUM(A1)', 'a,"b"\nc', '</script>'];
export const matrix = [
  [Math.fround(0.1), Math.fround(-1 / 3), Math.fround(1e-7), -Infinity],
  [Math.fround(123.456), 0, Math.fround(-0.5), Math.fround(2 / 3)],
];
