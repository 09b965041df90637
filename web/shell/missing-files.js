// Every file a figure lacks, found at once. A figure whose files beside the element's are not all
// there would otherwise fail on the first (engine.js), and after the blogger copies it, on the
// next (attention-explorer.plane.js), reload after reload. When one of a figure's files fails to
// load, every file the figure needs (views/full-engine-sections.js FILES_BESIDE, the table
// scripts/build-dist.mjs writes) is asked for at once with a HEAD request, and one notice names
// all that are missing.

/**
 * The files `sections` (registry ids) and the controls mode need beside the element's, in the
 * table's order, each once.
 * @param {{sections: Record<string, string[]>, controls: Record<string, string[]>}} table
 * @param {{sections: string[], controls: string}} shown
 */
export function filesOf(table, { sections, controls }) {
  const files = [...sections.flatMap((id) => table.sections[id] ?? []), ...(table.controls[controls] ?? [])];
  return [...new Set(files)];
}

/**
 * Which of `files` the server says are not there (HTTP 404 or 410 to a HEAD request). A file whose
 * request fails otherwise (offline, a CSP's connect-src) is not counted missing: the figure's own
 * message about it stays.
 * @param {string[]} files
 * @param {(file: string) => string} url  where a file goes beside the element's
 * @param {typeof fetch} fetchImpl
 * @returns {Promise<string[]>}
 */
export async function findMissing(files, url, fetchImpl) {
  const answers = await Promise.all(
    files.map((file) =>
      fetchImpl(url(file), { method: 'HEAD', cache: 'no-store' }).then(
        (response) => response.status === 404 || response.status === 410,
        () => false,
      ),
    ),
  );
  return files.filter((_, n) => answers[n]);
}

/** The notice's line for the files a figure lacks. */
export function missingFilesText(missing, element = 'attention-explorer.js') {
  const one = missing.length === 1;
  return (
    `This figure needs ${one ? 'a file' : `${missing.length} files`} beside ${element} that ${one ? 'is' : 'are'} ` +
    `missing: ${missing.join(', ')}. Copy ${one ? 'it' : 'them'} from the package's dist/ folder (the README's ` +
    `“Embed it” says which figure needs which file).`
  );
}
