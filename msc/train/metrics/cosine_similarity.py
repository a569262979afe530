"""``mindspore.train.metrics.cosine_similarity``: the pairwise similarity of the rows of one
batch (``'cosine'`` or ``'dot'``), optionally reduced along each row."""

from __future__ import annotations

from typing import Any

import numpy as np

from msc.train.metrics.metric import (
    Metric,
    check_choice,
    check_type,
    not_updated,
    rearrange_inputs,
)

__all__ = ["CosineSimilarity"]


class CosineSimilarity(Metric):
    """``update(x)`` keeps the similarity matrix of the rows of ``x`` (the last batch only,
    as MindSpore's does); ``eval()`` zeroes its diagonal if asked and reduces it."""

    def __init__(self, similarity: str = "cosine", reduction: str = "none",
                 zero_diagonal: bool = True):
        super().__init__()
        self.similarity = check_choice("CosineSimilarity", "similarity", similarity,
                                       ("dot", "cosine"))
        self.reduction = check_choice("CosineSimilarity", "reduction", reduction,
                                      ("none", "sum", "mean"))
        self.zero_diagonal = check_type("CosineSimilarity", "zero_diagonal", zero_diagonal, bool)
        self.clear()

    def clear(self) -> None:
        self.sqr_mtx_res: Any = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, inputs: Any) -> None:
        rows = self._convert_data(inputs)
        if self.similarity == "cosine":
            rows = rows / np.linalg.norm(rows, ord=2, axis=1)[:, None]
        self.sqr_mtx_res = rows @ rows.T
        self._is_update = True

    def eval(self) -> np.ndarray:
        if not self._is_update:
            raise not_updated()
        result = np.array(self.sqr_mtx_res)
        if self.zero_diagonal:
            np.fill_diagonal(result, 0)
        if self.reduction == "mean":
            result = result.mean(axis=-1)
        elif self.reduction == "sum":
            result = result.sum(axis=-1)
        self.sqr_mtx_res = result
        return result
