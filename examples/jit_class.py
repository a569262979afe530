"""The reference tutorial's ``@jit_class`` cases, compiled in graph mode, with their results.

    python examples/jit_class.py

prints ``[1 2 3]``, ``[1 2 3]``, ``12``, ``5`` and ``10`` (as the tutorial does), then the
two documented errors: ``@jit_class`` on an ``nn.Cell`` and calling an instance whose
class has no ``__call__``.
"""

import numpy as np

import msc as ms
from msc import nn


@ms.jit_class
class InnerNet:
    value = ms.Tensor(np.array([1, 2, 3]))


class ClassAttribute(nn.Cell):
    """A Tensor class attribute of a jit_class, read through a new instance."""

    def construct(self):
        return InnerNet().value


@ms.jit_class
class Inner:
    def __init__(self):
        self.value = ms.Tensor(np.array([1, 2, 3]))


@ms.jit_class
class Middle:
    def __init__(self):
        self.inner = Inner()


class Nested(nn.Cell):
    """jit_classes nested in each other and held by a Cell."""

    def __init__(self):
        super().__init__()
        self.inner_net = Middle()

    def construct(self):
        return self.inner_net.inner.value


@ms.jit_class
class Act:
    def __init__(self, val):
        self.number = val

    def act(self, x, y):
        return self.number * (x + y)


class Methods(nn.Cell):
    """An attribute and a method of an instance held by the Cell."""

    def __init__(self):
        super().__init__()
        self.inner_net = Act(2)

    def construct(self, x, y):
        return self.inner_net.number + self.inner_net.act(x, y)


@ms.jit_class
class PlusThree:
    def __init__(self, val):
        self.number = val + 3


class Create(nn.Cell):
    """An instance created inside ``construct`` from constant arguments."""

    def construct(self):
        net = PlusThree(2)
        return net.number


@ms.jit_class
class Scaled:
    def __init__(self, number):
        self.number = number

    def __call__(self, x, y):
        return self.number * (x + y)


class CallInstance(nn.Cell):
    """Calling an instance runs its class's ``__call__``."""

    def construct(self, x, y):
        net = Scaled(2)
        out = net(x, y)
        return out


@ms.jit_class
class NoCall:
    def __init__(self, number):
        self.number = number


class CallWithoutCall(nn.Cell):
    def construct(self, x, y):
        net = NoCall(2)
        out = net(x, y)
        return out


def main() -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    x = ms.Tensor(2, dtype=ms.int32)
    y = ms.Tensor(3, dtype=ms.int32)
    print(ClassAttribute()())
    print(Nested()())
    print(Methods()(x, y))
    print(Create()())
    print(CallInstance()(x, y))
    try:
        @ms.jit_class
        class Net(nn.Cell):
            def construct(self, x):
                return x
    except TypeError as e:
        print(f"TypeError: {str(e).splitlines()[0]}")
    try:
        CallWithoutCall()(x, y)
    except ValueError as e:
        print(f"ValueError: {str(e).splitlines()[0]}")


if __name__ == "__main__":
    main()
