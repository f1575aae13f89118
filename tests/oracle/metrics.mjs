// Agreement metrics between two `strata generate --json`-shaped outputs (Strata vs llama.cpp).
//
// Positions are teacher-forced prompt positions: both sides saw the same tokens 0..i, so their
// distributions must agree. Near-ties are allowed to resolve either way: two tokens whose
// logprobs are within `tol` of each other (on the side that ranks them) may swap.

const lpMap = (dist) => new Map(dist.map(([id, lp]) => [Number(id), Number(lp)]));

// Compares one distribution pair; returns {maxErr, errs[], top1Same, top1Tie, setOk}.
function compareDist(s, o, tol) {
  const S = lpMap(s);
  const O = lpMap(o);
  const errs = [];
  for (const [id, lp] of S) if (O.has(id)) errs.push(Math.abs(lp - O.get(id)));
  const sTop = Number(s[0][0]);
  const oTop = Number(o[0][0]);
  const top1Same = sTop === oTop;
  // A top-1 disagreement is a near-tie if each side ranks the other's choice within 2*tol of its own.
  const top1Tie = top1Same || (O.has(sTop) && S.has(oTop) &&
    O.get(oTop) - O.get(sTop) <= 2 * tol && S.get(sTop) - S.get(oTop) <= 2 * tol);
  // An id in one top-5 but not the other must sit at the other's boundary (within tol of its 5th).
  const s5 = Math.min(...S.values());
  const o5 = Math.min(...O.values());
  let setOk = true;
  for (const [id, lp] of S) if (!O.has(id) && lp > o5 + tol) setOk = false;
  for (const [id, lp] of O) if (!S.has(id) && lp > s5 + tol) setOk = false;
  return { errs, top1Same, top1Tie, setOk };
}

export function compareRuns(strata, oracle, tol) {
  const sr = strata.results;
  const orr = oracle.results;
  if (sr.length !== orr.length) throw new Error(`${sr.length} strata results vs ${orr.length} llama.cpp results`);
  let positions = 0;
  let top1 = 0;
  let unexplainedTop1 = 0;
  let unexplainedSet = 0;
  let greedySame = 0;
  let genMaxErr = 0;
  const errs = [];
  for (let r = 0; r < sr.length; r++) {
    const s = sr[r];
    const o = orr[r];
    if (JSON.stringify(s.prompt_ids.map(Number)) !== JSON.stringify(o.prompt_ids)) {
      throw new Error(`result ${r}: prompt_ids differ`);
    }
    for (let i = 0; i < o.prompt_logprobs.length; i++) {
      const d = compareDist(s.prompt_logprobs[i], o.prompt_logprobs[i], tol);
      positions++;
      if (d.top1Same) top1++;
      if (!d.top1Tie) unexplainedTop1++;
      if (!d.setOk) unexplainedSet++;
      errs.push(...d.errs);
    }
    // Generated steps share their context up to and including the first divergence.
    const n = Math.min(s.output_ids.length, o.output_ids.length);
    let same = s.output_ids.length === o.output_ids.length;
    for (let j = 0; j < n; j++) {
      const d = compareDist(s.logprobs[j], o.logprobs[j], tol);
      for (const e of d.errs) genMaxErr = Math.max(genMaxErr, e);
      if (Number(s.output_ids[j]) !== o.output_ids[j]) { same = false; break; }
    }
    if (same) greedySame++;
  }
  errs.sort((a, b) => a - b);
  return {
    prompts: sr.length,
    positions,
    top1: top1 / positions,
    unexplainedTop1,
    unexplainedSet,
    maxErr: errs.length ? errs[errs.length - 1] : Infinity,
    p99Err: errs.length ? errs[Math.floor(0.99 * (errs.length - 1))] : Infinity,
    genMaxErr,
    greedySame,
  };
}

// Strata on the HF directory vs on the GGUF: ids and the printed text of every logprob must be
// identical. Inputs come from parseJsonKeepingNumbers (numbers as their printed text).
export function sameResultsBitwise(a, b) {
  const keys = ['prompt_ids', 'output_ids', 'prompt_logprobs', 'logprobs'];
  if (a.results.length !== b.results.length) return { same: false, detail: 'different result counts' };
  for (let r = 0; r < a.results.length; r++) {
    for (const k of keys) {
      const x = JSON.stringify(a.results[r][k]);
      const y = JSON.stringify(b.results[r][k]);
      if (x !== y) {
        let c = 0;
        while (c < x.length && x[c] === y[c]) c++;
        return {
          same: false,
          detail: `result ${r} "${k}" differs (HF ...${x.slice(Math.max(0, c - 40), c + 40)}... vs ` +
                  `GGUF ...${y.slice(Math.max(0, c - 40), c + 40)}...)`,
        };
      }
    }
  }
  return { same: true, detail: '' };
}
