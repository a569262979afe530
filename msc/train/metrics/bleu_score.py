"""``mindspore.train.metrics.bleu_score``: BLEU, the geometric mean of the clipped n-gram
precisions of candidate sentences against their references, times a brevity penalty."""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

import numpy as np

from msc.errors import GraphValueError
from msc.train.metrics.metric import (
    Metric,
    check_inputs,
    check_type,
    not_updated,
    rearrange_inputs,
)

__all__ = ["BleuScore"]


def _ngrams(words: Sequence[Any], n_gram: int) -> Counter:
    """Every n-gram of length 1 to ``n_gram`` with its count."""
    return Counter(tuple(words[j:j + n]) for n in range(1, n_gram + 1)
                   for j in range(len(words) - n + 1))


class BleuScore(Metric):
    """``update(candidates, references)``: each candidate a list of words, with a list of
    reference word lists; the reference length counted is the one closest to the
    candidate's (the first of equals)."""

    def __init__(self, n_gram: int = 4, smooth: bool = False):
        super().__init__()
        self.n_gram = check_type("BleuScore", "n_gram", n_gram, int)
        if not 1 <= n_gram <= 4:
            raise GraphValueError("For 'BleuScore', the argument 'n_gram' should range from 1 to "
                                  f"4, but got {n_gram}.")
        self.smooth = check_type("BleuScore", "smooth", smooth, bool)
        self.clear()

    def clear(self) -> None:
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c, self._r = 0.0, 0.0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        check_inputs("BleuScore", inputs, 2, "candidate_corpus, reference_corpus")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise GraphValueError("For 'BleuScore.update', 'translate_corpus' (inputs[0]) and "
                                  "'reference_corpus' (inputs[1]) should be equal in length, but "
                                  f"got {len(candidates)}, {len(references)}")
        for candidate, refs in zip(candidates, references):
            self._c += len(candidate)
            self._r += min((len(r) for r in refs), key=lambda n: abs(len(candidate) - n))
            counts = _ngrams(candidate, self.n_gram)
            most = Counter()
            for ref in refs:
                most |= _ngrams(ref, self.n_gram)
            for gram, count in (counts & most).items():
                self._numerator[len(gram) - 1] += count
            for gram, count in counts.items():
                self._denominator[len(gram) - 1] += count
        self._is_update = True

    def eval(self) -> np.ndarray:
        if not self._is_update:
            raise not_updated()
        if self._numerator.min() == 0.0:
            return np.array(0.0)
        if self.smooth:
            precisions = (self._numerator + 1) / (self._denominator + 1)
        else:
            precisions = self._numerator / self._denominator
        geometric_mean = np.exp(np.sum(np.log(precisions) / self.n_gram))
        penalty = np.array(1.0) if self._c > self._r else np.exp(1 - self._r / self._c)
        return penalty * geometric_mean
