// The Learn section's texts, written for attention-explorer (our own words): short river and
// finance sentences that share the word "bank" (seed 003's example, learned instead of set by
// hand), and a longer sample for the character-level model. Plus the two tokenizers. Pure.

/** River and finance sentences; "bank" means a different thing in each half. */
export const BANK_SENTENCES = Object.freeze([
  'we fished from the bank of the stream',
  'the stream ran past the muddy bank',
  'mud covered the bank after the flood',
  'the heron stood on the bank of the river',
  'she sat on the grassy bank by the water',
  'reeds grew along the bank of the stream',
  'the boat drifted toward the far bank',
  'the river bank was soft with mud',
  'we walked along the bank of the river',
  'frogs sang on the bank of the pond',
  'the flood washed mud onto the bank',
  'willows lean over the bank of the stream',
  'she paid the loan at the bank',
  'the bank lent money to the farmer',
  'he put his money in the bank',
  'the bank raised the interest on the loan',
  'they asked the bank for a loan',
  'the money sat in the bank all year',
  'the bank approved the loan on friday',
  'she opened an account at the bank',
  'the bank counted the money twice',
  'he borrowed money from the bank',
  'the loan from the bank paid for the house',
  'the bank closed early on friday',
]);

/** The seed's two contexts, on which the learned model's attention is shown. */
export const BANK_CONTEXTS = Object.freeze({ river: ['stream', 'bank', 'mud'], finance: ['money', 'bank', 'loan'] });

/** A sample for the character-level model (about 2,500 characters). */
export const SAMPLE_TEXT = `The river woke before the town did. It slid under the stone bridge, past the mill and the
willows, and carried the night's leaves down to the sea. On its banks the reeds stood in rows,
and the herons stood among the reeds, and the mud kept the prints of every bird that had walked
there since the rain.

In the town the bank opened at nine. The clerk unlocked the door, counted the money in the
drawer, and wrote the date at the top of a clean page. A farmer came in for a loan to buy seed.
A baker came in to pay what she owed. The clerk listened to each of them, looked at the numbers,
and wrote them down in the book.

A word can mean two things. The same word sat in the farmer's sentence and in the heron's:
bank. Only the words around it could tell a reader which bank was meant. Near the river and
the mud it was the edge of the water. Near the money and the loan it was the house with the
heavy door. A reader looks at the neighbours of a word and decides.

A small model can learn to do the same. It reads one character at a time. For each one it asks
a question of every character before it, and each earlier character answers with a key. Where
the question and the key agree, the model listens; where they do not, it looks away. What it
hears is a mix of the values the earlier characters offer, weighted by how well they matched.
Nobody writes the questions or the keys by hand. The model starts with random numbers and
changes them a little after every guess, so that the next guess is a little better.

At first its guesses are noise. It writes letters in any order, spaces in the middle of words,
and full stops where nothing has ended. After a few hundred steps it has learned which letters
follow which. After a few hundred more it writes words it has seen, and then pieces of
sentences: the river woke, the bank opened, the clerk counted the money. It has not learned
what a river is. It has learned where to look.

The heron did not care about any of this. It waited in the shallow water at the edge of the
bank, still as a post, until a fish came close. Then it struck, swallowed, and waited again.
The river went on past the mill, past the bridge, past the bank with the heavy door, and down
to the sea, where all the rivers go.

In the evening the clerk locked the drawer and the door. The farmer planted his seed in the
long field by the water. The baker lit her oven for the morning. And the river, which had
seen all of them pass, kept its own counsel and kept on moving.
`;

/** Word-level tokens of a sentence (lower case, split on spaces), with '.' ending each sentence. */
export function words(sentence) {
  return [...sentence.trim().toLowerCase().split(/\s+/).filter(Boolean), '.'];
}

/**
 * A word vocabulary for sentences: '.' first (the end of a sentence, also the padding), then
 * every word in order of first appearance.
 */
export function wordVocab(sentences, extra = []) {
  const vocab = ['.'];
  for (const w of [...sentences.flatMap(words), ...extra]) if (!vocab.includes(w)) vocab.push(w);
  return vocab;
}

/** A character vocabulary: every distinct character of `text`, sorted by code point. */
export function charVocab(text) {
  return [...new Set(text)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
