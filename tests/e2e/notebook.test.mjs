// Browser test of "From the notebooks" (web/views/notebook.js): every number a seed notebook
// printed that can be reproduced is found on the page, in the cell it comes from. The list below
// is copied from the seed transcriptions in ../shared/seeds/ (not from the page's own data), with
// each notebook cell's number. Seeds 000 and 004 are unseeded: nothing they printed can be
// reproduced, and their views say so. Seed 001's dropout mask ([66]) came from an MKL build.
import test from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, keptPages, serveStatic, PAGE_DIR, ensureDist } from './helpers.mjs';

const NI = -Infinity;

// [notebook, cell, tensor shown, printed values, decimals]
const PRINTED = [
  [
    '001',
    '[5]',
    'X',
    [
      [0.3367, 0.1288, 0.2345, 0.2303, -1.1229],
      [-0.1863, 2.2082, -0.638, 0.4617, 0.2674],
      [0.5349, 0.8094, 1.1103, -1.6898, -0.989],
    ],
    4,
  ],
  ['001', '[6] [7]', 'avg_01', [[0.0752, 1.1685, -0.2018, 0.346, -0.4278]], 4],
  ['001', '[6] [7]', 'avg_012', [[0.2284, 1.0488, 0.2356, -0.3326, -0.6148]], 4],
  [
    '001',
    '[15]',
    'S',
    [
      [1.4988, -0.1217, 1.2659],
      [-0.1217, 5.6025, -0.0653],
      [1.2659, -0.0653, 6.0074],
    ],
    4,
  ],
  [
    '001',
    '[16]',
    'W',
    [
      [0.5025, 0.0994, 0.3981],
      [0.0032, 0.9933, 0.0034],
      [0.0086, 0.0023, 0.9891],
    ],
    4,
  ],
  [
    '001',
    '[24]',
    'Y',
    [
      [0.3636, 0.6064, 0.4964, -0.5111, -0.9314],
      [-0.1822, 2.1967, -0.6292, 0.4535, 0.2585],
      [0.5315, 0.8067, 1.0987, -1.6683, -0.9873],
    ],
    4,
  ],
  [
    '001',
    '[26] [28] [40]',
    'K',
    [
      [0.6023, -0.726, 1.1799, 0.2383],
      [-0.6521, 4.4224, -3.746, -1.2657],
      [-0.7106, -4.3429, 4.2984, -2.3664],
    ],
    4,
  ],
  [
    '001',
    '[26] [28] [40]',
    'Q',
    [
      [-1.6964, 1.3355, -0.5133, 0.0674],
      [1.6595, -0.4445, -0.1917, 1.7729],
      [-0.165, -2.9899, -3.8893, 1.2756],
    ],
    4,
  ],
  [
    '001',
    '[26] [28] [40]',
    'V',
    [
      [-0.9285, 0.3301, 1.8359, -1.3448],
      [0.4676, -0.1512, -0.5678, 0.8648],
      [0.6143, 2.6772, -1.3256, -3.2423],
    ],
    4,
  ],
  [
    '001',
    '[42] [43] [44]',
    'S',
    [
      [-2.5809, 8.8498, -6.96],
      [1.5185, -4.5739, -4.2686],
      [-2.2135, -0.1601, -6.6347],
    ],
    4,
  ],
  [
    '001',
    '[42] [43] [44]',
    'S_scaled',
    [
      [-1.2905, 4.4249, -3.48],
      [0.7593, -2.2869, -2.1343],
      [-1.1067, -0.0801, -3.3173],
    ],
    4,
  ],
  [
    '001',
    '[42] [43] [44]',
    'W',
    [
      [0.0033, 0.9964, 0.0004],
      [0.9067, 0.0431, 0.0502],
      [0.2563, 0.7156, 0.0281],
    ],
    4,
  ],
  [
    '001',
    '[45]',
    'R',
    [
      [0.463, -0.1485, -0.5602, 0.8561],
      [-0.7909, 0.4272, 1.5735, -1.3448],
      [0.1138, 0.0517, 0.027, 0.1831],
    ],
    4,
  ],
  [
    '001',
    '[60] [61] [63]',
    'masked_S',
    [
      [-1.2905, NI, NI],
      [0.7593, -2.2869, NI],
      [-1.1067, -0.0801, -3.3173],
    ],
    4,
  ],
  [
    '001',
    '[60] [61] [63]',
    'masked_S_twice',
    [
      [-0.6452, NI, NI],
      [0.3796, -1.1435, NI],
      [-0.5534, -0.04, -1.6587],
    ],
    4,
  ],
  [
    '001',
    '[60] [61] [63]',
    'masked_W_twice',
    [
      [1, 0, 0],
      [0.821, 0.179, 0],
      [0.3331, 0.5566, 0.1103],
    ],
    4,
  ],
  [
    '001',
    '[67]',
    'X',
    [
      [-0.4249, 0.9442, -0.1849, 1.0608, 0.2083],
      [-0.5778, 0.3255, -0.8146, -0.7599, -2.0461],
      [-1.5295, 0.4049, 0.6319, 0.3125, 1.9892],
      [-0.4611, -0.0639, -1.3667, 0.3298, -0.9827],
      [0.3018, 0.1787, 0.4097, -1.5754, 2.2508],
      [1.0012, 1.3642, 0.6333, 0.405, 0.3416],
    ],
    4,
  ],
  [
    '001',
    '[70] [71] [78]',
    'S',
    [
      [0.1268, 0.1442, 0.5098],
      [-0.1395, -0.4737, -0.1583],
      [-0.0595, 0.8114, 0.3408],
      [0.0802, 0.3535, 0.3662],
      [-0.1526, 0.1022, -0.3185],
      [0.063, 0.1827, -0.6134],
    ],
    4,
  ],
  [
    '001',
    '[70] [71] [78]',
    'masked_S',
    [
      [0.1268, NI, NI],
      [-0.1395, -0.4737, NI],
      [-0.0595, 0.8114, 0.3408],
      [0.0802, NI, NI],
      [-0.1526, 0.1022, NI],
      [0.063, 0.1827, -0.6134],
    ],
    4,
  ],
  [
    '001',
    '[30] [31] [47]',
    'S[0]',
    [
      [-2.7366, -1.1301, -2.707],
      [2.1529, 0.7935, 1.6183],
      [-6.5526, -2.3705, -4.6866],
      [-0.3216, 3.0144, -13.2677],
      [-0.6322, -1.1477, -0.0831],
      [-0.2841, 1.0993, -5.9737],
    ],
    4,
  ],
  [
    '001',
    '[53] [55]',
    'masked_S_twice[0]',
    [
      [-0.6841, NI, NI],
      [0.5382, 0.1984, NI],
      [-1.6381, -0.5926, -1.1716],
      [-0.0804, NI, NI],
      [-0.1581, -0.2869, NI],
      [-0.071, 0.2748, -1.4934],
    ],
    4,
  ],
  [
    '001',
    '[53] [55]',
    'W_twice[0]',
    [
      [1, 0, 0],
      [0.5842, 0.4158, 0],
      [0.1838, 0.523, 0.2931],
      [1, 0, 0],
      [0.5322, 0.4678, 0],
      [0.3767, 0.5324, 0.0908],
    ],
    4,
  ],
  [
    '002',
    '[9]',
    'b',
    [
      [2, 7],
      [6, 4],
      [6, 5],
    ],
    0,
  ],
  [
    '002',
    '[9]',
    'c',
    [
      [14, 16],
      [14, 16],
      [14, 16],
    ],
    0,
  ],
  [
    '002',
    '[10]',
    'c',
    [
      [2, 7],
      [8, 11],
      [14, 16],
    ],
    0,
  ],
  [
    '002',
    '[11]',
    'c',
    [
      [2, 7],
      [4, 5.5],
      [4.6667, 5.3333],
    ],
    4,
  ],
  [
    '002',
    '[37]',
    'weight[0]',
    [
      [1, 0, 0, 0, 0, 0, 0, 0],
      [0.1905, 0.8095, 0, 0, 0, 0, 0, 0],
      [0.3742, 0.0568, 0.569, 0, 0, 0, 0, 0],
      [0.1288, 0.338, 0.1376, 0.3956, 0, 0, 0, 0],
      [0.4311, 0.0841, 0.0582, 0.3049, 0.1217, 0, 0, 0],
      [0.0537, 0.3205, 0.0694, 0.2404, 0.2568, 0.0592, 0, 0],
      [0.3396, 0.0149, 0.5165, 0.018, 0.0658, 0.008, 0.0373, 0],
      [0.0165, 0.0375, 0.0144, 0.112, 0.0332, 0.4069, 0.3136, 0.066],
    ],
    4,
  ],
  [
    '003',
    'X W',
    'river_linear',
    [
      [1.2, 0.33, 0.24],
      [0.98, 1.14, 0.2],
      [0.9, 0.45, 0.72],
    ],
    3,
  ],
  [
    '003',
    'X W',
    'finance_linear',
    [
      [0.14, 1.57, 0.08],
      [0.98, 1.14, 0.2],
      [0.11, 1.39, 0.48],
    ],
    3,
  ],
  [
    '003',
    'raw attention',
    'river_scores',
    [
      [1.53, 0.96, 1.35],
      [0.96, 1.32, 0.72],
      [1.35, 0.72, 1.62],
    ],
    3,
  ],
  [
    '003',
    'raw attention',
    'finance_scores',
    [
      [1.97, 1.12, 1.6],
      [1.12, 1.32, 0.88],
      [1.6, 0.88, 1.57],
    ],
    3,
  ],
  [
    '003',
    'raw attention',
    'river_out',
    [
      [1.001, 0.188, 0.047, 0.438],
      [0.949, 0.356, 0.089, 0.313],
      [0.987, 0.15, 0.037, 0.52],
    ],
    3,
  ],
  [
    '003',
    'raw attention',
    'finance_out',
    [
      [0.161, 1.181, 0.04, 0.243],
      [0.325, 1.078, 0.081, 0.19],
      [0.158, 1.163, 0.04, 0.278],
    ],
    3,
  ],
  [
    '003',
    'projections',
    'river_proj',
    [
      [0.992, 0.221, 0.261],
      [0.957, 0.314, 0.256],
      [0.986, 0.232, 0.263],
    ],
    3,
  ],
  [
    '003',
    'projections',
    'finance_proj',
    [
      [0.188, 1.158, 0.169],
      [0.297, 1.089, 0.18],
      [0.204, 1.146, 0.172],
    ],
    3,
  ],
  [
    '003',
    'SelfAttention',
    'river_class',
    [
      [0.54, 0.705, 1.03],
      [0.538, 0.706, 1.03],
      [0.541, 0.703, 1.025],
    ],
    3,
  ],
  [
    '003',
    'SelfAttention',
    'finance_class',
    [
      [0.22, 0.418, 0.642],
      [0.213, 0.404, 0.624],
      [0.216, 0.409, 0.63],
    ],
    3,
  ],
];

let server, browser;
// A test's page is a new document in a page kept for its context options (keptPages in
// helpers.mjs), unless the test adds listeners, init scripts or emulation of its own.
let pages;
test.before(async () => {
  ensureDist();
  server = await serveStatic(PAGE_DIR);
  browser = await launchBrowser();
  pages = keptPages(browser);
});
test.after(async () => {
  await pages?.close();
  await browser?.close();
  await server?.close();
});

/** The numbers of every table the page shows for one output of one cell, rows stacked. */
function shown(page, cell, name) {
  return page.evaluate(
    ([c, n]) => {
      const li = [...document.querySelectorAll('li.ae-nb-cell')].find((x) => x.dataset.cell === c);
      if (!li) return null;
      return [...li.querySelectorAll('table')]
        .filter((t) => t.dataset.output === n)
        .flatMap((t) =>
          [...t.querySelectorAll('tbody tr')].map((tr) =>
            [...tr.querySelectorAll('td.ae-cell')].map((td) => Number(td.dataset.value)),
          ),
        );
    },
    [cell, name],
  );
}

for (const id of ['001', '002', '003']) {
  test(`Notebook_${id}_ShowsEveryNumberItPrintedInItsCell`, async () => {
    const { page, context, problems } = await pages.open(null, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}#${encodeURIComponent(JSON.stringify({ notebook: id, view: ['notebook'] }))}`);
    await page.evaluate(() => window.__explorer.ready);
    await page.waitForSelector('li.ae-nb-cell table', { state: 'attached', timeout: 20000 });
    for (const [nb, cell, name, values, decimals] of PRINTED.filter((p) => p[0] === id)) {
      const got = await shown(page, cell, name);
      assert.ok(got, `${nb} ${cell}: the cell is on the page`);
      assert.equal(got.length, values.length, `${nb} ${cell} ${name}: rows`);
      values.forEach((row, i) =>
        row.forEach((v, j) => {
          const g = got[i][j];
          if (v === NI) assert.equal(g, NI, `${nb} ${cell} ${name}[${i}][${j}]`);
          else
            assert.ok(
              Math.abs(g - v) <= 0.5 * 10 ** -decimals + 1e-6 * Math.abs(v) + 1e-9,
              `${nb} ${cell} ${name}[${i}][${j}] = ${g}, printed ${v}`,
            );
        }),
      );
      const verdict = await page.evaluate(
        ([c, n]) =>
          [...document.querySelectorAll('li.ae-nb-cell')]
            .find((x) => x.dataset.cell === c)
            ?.querySelector(`.ae-nb-printed[data-printed="${n}"]`)?.dataset.ok,
        [cell, name],
      );
      assert.equal(verdict, 'true', `${nb} ${cell} ${name}: the page says it agrees`);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('Notebook_UnseededNotebooksSaySoAndStillRun', async () => {
  for (const id of ['000', '004']) {
    const { page, context, problems } = await pages.open(null, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}#${encodeURIComponent(JSON.stringify({ notebook: id, view: ['notebook'] }))}`);
    await page.evaluate(() => window.__explorer.ready);
    await page.waitForSelector('li.ae-nb-cell table', { state: 'attached', timeout: 20000 });
    assert.match(await page.textContent('section[data-section="notebook"]'), /unseeded/);
    assert.deepEqual(problems, []);
    await context.close();
  }
});
