// Count-based baselines for the model's held-out loss, on the same tokens and the same windows:
//   unigram  add-one (Laplace) smoothing: p(w) = (c(w) + 1) / (N + V)
//   bigram   interpolated Kneser–Ney (Chen & Goodman 1998, one discount):
//              p(w | v) = max(c(v, w) − D, 0) / c(v) + D · N1+(v •) / c(v) · p_cont(w)
//              p_cont(w) = (N1+(• w) + 1) / (N1+(• •) + V)   (add-one on the continuation counts, so
//                          a token never seen after anything keeps some mass)
//              D = n1 / (n1 + 2 n2), n1 and n2 the numbers of bigram types seen once and twice;
//              a context never seen in training falls back to p_cont.
// Held out on exactly the model's targets: attn-pretrain's final evaluation scores non-overlapping
// windows of T inputs, targets shifted by one, so every target has at least the one token before
// it in its window — the bigram's context.

/** Counts of the training stream (Uint16Array) over a vocabulary of V. */
export function countModel(train, V) {
  const unigram = new Float64Array(V);
  const bigram = new Map(); // v · V + w → count
  for (let i = 0; i < train.length; i++) {
    unigram[train[i]]++;
    if (i > 0) {
      const key = train[i - 1] * V + train[i];
      bigram.set(key, (bigram.get(key) ?? 0) + 1);
    }
  }
  const contextCount = new Float64Array(V); // c(v) as a context
  const followers = new Float64Array(V); // N1+(v •)
  const continuation = new Float64Array(V); // N1+(• w)
  let n1 = 0;
  let n2 = 0;
  for (const [key, c] of bigram) {
    const v = Math.floor(key / V);
    const w = key % V;
    contextCount[v] += c;
    followers[v]++;
    continuation[w]++;
    if (c === 1) n1++;
    if (c === 2) n2++;
  }
  const D = n1 / (n1 + 2 * n2);
  return { V, N: train.length, unigram, bigram, contextCount, followers, continuation, types: bigram.size, D };
}

export function unigramProb(m, w) {
  return (m.unigram[w] + 1) / (m.N + m.V);
}

export function bigramProb(m, v, w) {
  const pCont = (m.continuation[w] + 1) / (m.types + m.V);
  const cv = m.contextCount[v];
  if (cv === 0) return pCont;
  const c = m.bigram.get(v * m.V + w) ?? 0;
  return Math.max(c - m.D, 0) / cv + ((m.D * m.followers[v]) / cv) * pCont;
}

/** Mean −log p of the held-out stream in windows of T (as attn-pretrain's final evaluation). */
export function heldOutLoss(m, data, T) {
  const windows = Math.floor((data.length - 1) / T);
  let unigram = 0;
  let bigram = 0;
  for (let w = 0; w < windows; w++) {
    for (let t = 0; t < T; t++) {
      const i = w * T + t;
      const target = data[i + 1];
      const pu = unigramProb(m, target);
      unigram -= Math.log(pu);
      bigram -= Math.log(bigramProb(m, data[i], target));
    }
  }
  const tokens = windows * T;
  return { unigram: unigram / tokens, bigram: bigram / tokens, tokens };
}
