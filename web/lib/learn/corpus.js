// The Learn section's texts, written for attention-explorer (our own words): short sentences in
// which "bank" means the edge of a river or a place for money (notebook 3's example, learned
// instead of set by hand), and a longer sample for the character-level model. Plus the two
// tokenizers. Pure.
//
// The bank sentences are built for a causal model, which sees only the words before the one it
// reads: in each, one word before "bank" decides its sense (stream, mud, river, water or money,
// loan, cash, debt), the words around it are shared by both senses (every frame is used for both),
// and the word after "bank" depends on the sense (flooded, crumbled, washed / lent, closed,
// charged, paid). So to predict what follows "bank", the model must look back from "bank" at the
// deciding word: that is the attention it learns.

/** The words before "bank" that decide its sense, and the words after it that each sense takes. */
export const BANK_SENSES = Object.freeze({
  river: Object.freeze({
    deciders: Object.freeze(['stream', 'mud', 'river', 'water']),
    after: Object.freeze(['flooded', 'crumbled', 'washed']),
  }),
  finance: Object.freeze({
    deciders: Object.freeze(['money', 'loan', 'cash', 'debt']),
    after: Object.freeze(['lent', 'closed', 'charged', 'paid']),
  }),
});

/** River and finance sentences: the deciding word comes before "bank", the sense shows after it. */
export const BANK_SENTENCES = Object.freeze([
  'the stream rose and the bank flooded',
  'the river rose and the bank flooded again',
  'the debt rose and the bank charged interest',
  'the loan grew and the bank closed early',
  'because of the mud the bank crumbled',
  'because of the stream the bank washed away',
  'because of the loan the bank charged interest',
  'because of the money the bank lent more',
  'with so much water the bank flooded',
  'with so much mud the bank crumbled away',
  'with so much cash the bank lent more',
  'with so much debt the bank closed early',
  'we saw the river and then the bank washed away',
  'we saw the mud and then the bank crumbled',
  'we saw the money and then the bank lent more',
  'we saw the debt and then the bank closed',
  'she talked about the water and the bank flooded',
  'she talked about the stream and the bank crumbled',
  'she talked about the cash and the bank paid out',
  'she talked about the loan and the bank charged interest',
  'the river grew so the bank washed away',
  'the stream grew so the bank flooded',
  'the debt grew so the bank closed early',
  'the money grew so the bank paid out',
  'all that mud meant the bank crumbled',
  'all that water meant the bank flooded again',
  'all that cash meant the bank lent more',
  'all that money meant the bank paid out',
  'the wind rose and the bank stood still',
  'because of the news the bank stayed quiet',
  'with so much noise the bank stood still',
  'we saw the crowd and then the bank stayed quiet',
  'she talked about the weather and the bank stood still',
  'the crowd grew so the bank stayed quiet',
  'all that noise meant the bank stood still',
]);

/**
 * The probe: two sentences that differ only in the deciding word, read up to "bank" (the model is
 * causal: what follows cannot change it). The learned model's attention from "bank" to the
 * deciding word is compared with chance, 1/(i + 1) for "bank" at position i, and the two "bank"
 * outputs with each other. Mud and loan are notebook 3's words (its two sentences are "stream
 * bank mud" and "money bank loan").
 */
export const BANK_CONTEXTS = Object.freeze({
  river: Object.freeze(['because', 'of', 'the', 'mud', 'the', 'bank']),
  finance: Object.freeze(['because', 'of', 'the', 'loan', 'the', 'bank']),
});
export const BANK_DECIDERS = Object.freeze({ river: 'mud', finance: 'loan' });

/**
 * Where "bank" and the word that decides its sense are in a sentence's words: {bank, decider,
 * sense}, the first "bank" and the last deciding word before it; null when no deciding word comes
 * before a "bank" (a reader's own sentence may have none).
 * @param {string[]} sentenceWords
 */
export function bankDecider(sentenceWords) {
  const bank = sentenceWords.indexOf('bank');
  for (let i = bank - 1; i >= 0; i--) {
    for (const [sense, { deciders }] of Object.entries(BANK_SENSES))
      if (deciders.includes(sentenceWords[i])) return { bank, decider: i, sense };
  }
  return null;
}

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
