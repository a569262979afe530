"""Models with one mistake each; the line of the mistake carries an ``# ERR:`` marker."""

import numpy as np

import msc as ms
from msc import nn, ops

COUNTER = 0


class TryExcept(nn.Cell):
    def construct(self, x):
        try:  # ERR:try
            x = x + 1
        except ValueError:
            pass
        return x


class Yields(nn.Cell):
    def construct(self, x):
        yield x  # ERR:yield


class MutatesGlobal(nn.Cell):
    def construct(self, x):
        bump = lambda: ops.relu(x)  # noqa: E731
        global COUNTER  # ERR:global
        COUNTER += 1
        return bump()


class MatmulMismatch(nn.Cell):
    def construct(self, x, y):
        return ops.matmul(x, y)  # ERR:matmul


class AddMismatch(nn.Cell):
    def construct(self, x, y):
        z = x * 2
        return z + y  # ERR:add


class BadReshape(nn.Cell):
    def construct(self, x):
        return x.reshape(5, 7)  # ERR:reshape


class UsesUndefined(nn.Cell):
    def construct(self, x):
        return x + undefined_name  # ERR:name  # noqa: F821


def helper_with_error(x):
    return ops.select(x, x, x)  # ERR:select


class CallsHelper(nn.Cell):
    def construct(self, x):
        return helper_with_error(x)


class TwoInputs(nn.Cell):
    def construct(self, x, y):
        return x + y


class TensorIf(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:  # ERR:tensorif
            y = x + 1
        else:
            y = x.sum()
        return y


def marker_line(tag):
    with open(__file__) as f:
        for i, line in enumerate(f, 1):
            if f"# ERR:{tag}" in line:
                return i
    raise KeyError(tag)


__all__ = ["np", "ms"]
