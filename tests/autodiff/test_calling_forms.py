"""Gradients in every calling form MindSpore accepts: ``GradOperation(sens_param=True)``
(a tensor, a tuple of sensitivities, with ``get_all``/``get_by_list``, at the top level,
in ``construct``, in a ``TrainOneStepCell`` subclass), functions and Cells with several
outputs, loops carrying tuples, functions that print and assign, nested tensor ``if``s.
Values against central finite differences in float64 (``msc.fuzz.finite_diff``), in
GRAPH_MODE and PyNative, on the numpy target."""

from __future__ import annotations

import numpy as np
import pytest

import msc as ms
from msc import Parameter, ParameterTuple, Tensor, nn, ops
from msc.common import dtype as mstype
from msc.fuzz import finite_diff as fd
from msc.ops import composite as C
from msc.ops import functional as F
from tests.autodiff import T, close
from msc.ops import operations as P

RNG = np.random.default_rng(3)
X = RNG.uniform(0.5, 1.5, (2, 3))
Y = RNG.uniform(-1.0, 1.0, (2, 3))
W = RNG.uniform(-1.0, 1.0, (2, 3))
S = RNG.uniform(-2.0, 2.0, (2, 3))


def np_two(x, y, w):
    return x * w * y, np.sin(x) + y * y


class Two(nn.Cell):
    """Two outputs, one weight."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(T(W), name="w")

    def construct(self, x, y):
        return x * self.w * y, ops.sin(x) + y * y


def np_one(x, y, w):
    return x * w * y + np.sin(x)


class One(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T(W), name="w")

    def construct(self, x, y):
        return x * self.w * y + ops.sin(x)


# --- sens_param ------------------------------------------------------------------------------


def test_sens_param_single_output_with_get_all_and_get_by_list(mode):
    net = One()
    want = fd.vjp(np_one, [X, Y, W], [S])
    close(C.GradOperation(sens_param=True)(net)(T(X), T(Y), T(S)), want[0])
    dx, dy = C.GradOperation(get_all=True, sens_param=True)(net)(T(X), T(Y), T(S))
    close(dx, want[0])
    close(dy, want[1])
    weights = ParameterTuple(net.trainable_params())
    (dw,) = C.GradOperation(get_by_list=True, sens_param=True)(net, weights)(T(X), T(Y), T(S))
    close(dw, want[2])
    both = C.GradOperation(get_all=True, get_by_list=True, sens_param=True)(net, weights)(
        T(X), T(Y), T(S))
    assert [len(both), len(both[0]), len(both[1])] == [2, 2, 1]
    close(both[0][1], want[1])
    close(both[1][0], want[2])


def test_a_tuple_of_sensitivities_for_a_tuple_output(mode):
    net = Two()
    s2 = RNG.uniform(-1, 1, (2, 3))
    want = fd.vjp(np_two, [X, Y, W], [S, s2])
    dx, dy = C.GradOperation(get_all=True, sens_param=True)(net)(T(X), T(Y), (T(S), T(s2)))
    close(dx, want[0])
    close(dy, want[1])
    # ms.grad's older signature takes sens_param too
    got = ms.grad(net, (0, 1), net.trainable_params(), sens_param=True)(
        T(X), T(Y), (T(S), T(s2)))
    close(got[0][1], want[1])
    close(got[1][0], want[2])


def test_a_sensitivity_of_the_wrong_structure_is_a_type_error(mode):
    with pytest.raises(TypeError, match="must be a Tensor"):
        C.GradOperation(sens_param=True)(One())(T(X), T(Y), (T(S),))
    with pytest.raises(TypeError, match="tuple of 2"):
        C.GradOperation(sens_param=True)(Two())(T(X), T(Y), T(S))


class SensInConstruct(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = C.GradOperation(get_all=True, sens_param=True)

    def construct(self, x, y, sens):
        return self.grad(self.net)(x, y, sens)


def test_sens_param_inside_construct_and_jit(mode):
    want = fd.vjp(np_two, [X, Y, W], [S, S])
    dx, dy = SensInConstruct(Two())(T(X), T(Y), (T(S), T(S)))
    close(dx, want[0])
    close(dy, want[1])
    net = Two()

    @ms.jit
    def step(x, y, s):
        return C.GradOperation(sens_param=True)(net)(x, y, (s, s))

    close(step(T(X), T(Y), T(S)), want[0])


# --- training wrappers -----------------------------------------------------------------------


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T(W.T), name="w")

    def construct(self, x):
        return ops.matmul(x, self.w)


class TrainWithSens(nn.TrainOneStepCell):
    """The model zoo's pattern: its own construct over MindSpore's attributes, the
    sensitivity a (1,) tensor for a scalar loss."""

    def __init__(self, network, optimizer, sens=1.0):
        super().__init__(network, optimizer, sens)
        self.cast = P.Cast()

    def construct(self, *inputs):
        weights = self.weights
        loss = self.network(*inputs)
        sens = self.cast(F.tuple_to_array((self.sens,)), mstype.float64)
        grads = self.grad(self.network, weights)(*inputs, sens)
        grads = self.grad_reducer(grads)
        return F.depend(loss, self.optimizer(grads))


def _mse_grad(x, label, w):
    """d mean((x w - label)^2) / d w, written out."""
    return 2 * x.T @ (x @ w - label) / label.size


@pytest.mark.parametrize("sens", [1.0, 4.0])
def test_train_one_step_subclass_passing_a_cast_sensitivity(mode, sens):
    x, label = RNG.uniform(-1, 1, (4, 3)), RNG.uniform(-1, 1, (4, 2))
    net = Linear()
    w0 = net.w.asnumpy().copy()
    step = TrainWithSens(nn.WithLossCell(net, nn.MSELoss()),
                         nn.SGD(net.trainable_params(), learning_rate=0.1), sens)
    loss = step(T(x), T(label))
    np.testing.assert_allclose(loss.asnumpy(), np.mean((x @ w0 - label) ** 2), rtol=1e-6)
    np.testing.assert_allclose(net.w.asnumpy(), w0 - 0.1 * sens * _mse_grad(x, label, w0),
                               rtol=1e-6)


def test_train_one_step_return_grad_and_attributes(mode):
    """MindSpore 2.10: sens=None leaves sense_flag False and sens 1.0; return_grad gives
    (loss, {parameter name: gradient})."""
    x, label = RNG.uniform(-1, 1, (4, 3)), RNG.uniform(-1, 1, (4, 2))
    net = Linear()
    w0 = net.w.asnumpy().copy()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.SGD(net.trainable_params(), learning_rate=0.1),
                               return_grad=True)
    assert step.sens == 1.0 and step.sense_flag is False
    assert isinstance(step.grad, C.GradOperation) and step.grad.sens_param
    loss, grads = step(T(x), T(label))
    assert list(grads) == ["w"]
    np.testing.assert_allclose(grads["w"].asnumpy(), _mse_grad(x, label, w0), rtol=1e-6)
    with pytest.raises(ValueError, match="can not be 0"):
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                            nn.SGD(net.trainable_params()), sens=0)


# --- several outputs -------------------------------------------------------------------------


def test_several_outputs_in_every_form(mode):
    """The sensitivity of each output is ones (MindSpore sums the outputs' gradients)."""
    net = Two()
    ones = fd.ones_like_outputs(np_two, [X, Y, W])
    want = fd.vjp(np_two, [X, Y, W], ones)
    dx, dy = ms.grad(net, (0, 1))(T(X), T(Y))
    close(dx, want[0])
    close(dy, want[1])
    (out0, out1), (gx, gw) = ms.value_and_grad(net, 0, net.trainable_params())(T(X), T(Y))
    close(out1, np_two(X, Y, W)[1])
    close(gx, want[0])
    close(gw[0], want[2])
    close(C.GradOperation()(net)(T(X), T(Y)), want[0])

    @ms.jit
    def inside(x, y):
        return ms.grad(net, 1)(x, y), C.GradOperation(get_all=True)(net)(x, y)

    g1, (h0, h1) = inside(T(X), T(Y))
    close(g1, want[1])
    close(h0, want[0])


def loops(x, y):
    """Runs on Tensors in the graph and on numpy arrays for the finite differences."""
    t = (x, y)
    if x.sum() > 0:
        for _ in range(3):
            t = (t[0] * t[1], t[1] + 0.5)
    n = 0
    while t[0].sum() < 6.0 and n < 4:
        for _ in range(2):
            t = (t[0] + t[1] * t[1], t[1] * 1.5)
        n += 1
    return t[0] * 2.0 + t[1]


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_for_loops_carrying_tuples_inside_if_and_while(mode, sign):
    x, y = sign * X, Y
    want = fd.vjp(loops, [x, y], fd.ones_like_outputs(loops, [x, y]))
    dx, dy = ms.grad(loops, (0, 1))(T(x), T(y))
    close(dx, want[0])
    close(dy, want[1])


# --- structures (MindSpore 2.10, GRAPH_MODE) ------------------------------------------------


class NoInputs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T(W), name="w")

    def construct(self):
        return self.w * self.w


def test_return_structures_as_mindspore(mode):
    net = One()
    x, y = T(X), T(Y)
    want = fd.vjp(np_one, [X, Y, W], fd.ones_like_outputs(np_one, [X, Y, W]))
    # GradOperation(get_by_list=True) over one Parameter: that gradient's Tensor
    got = C.GradOperation(get_by_list=True)(net, net.w)(x, y)
    assert isinstance(got, Tensor)
    close(got, want[2])
    got = C.GradOperation(get_by_list=True)(net, ParameterTuple(net.trainable_params()))(x, y)
    assert isinstance(got, tuple) and len(got) == 1
    # a Cell without inputs: () for the inputs' gradients
    ni = NoInputs()
    assert C.GradOperation()(ni)() == ()
    assert C.GradOperation(get_all=True)(ni)() == ()
    both = C.GradOperation(get_all=True, get_by_list=True)(ni, ni.trainable_params())()
    assert both[0] == () and len(both[1]) == 1
    close(both[1][0], 2 * W)
    with pytest.raises(IndexError, match="Position index 0 is exceed input size"):
        ms.grad(ni)()
    # return_ids: (position, gradient) and (parameter name, gradient)
    (p0, g0), (p1, g1) = ms.grad(net, (0, 1), return_ids=True)(x, y)
    assert (p0, p1) == (0, 1)
    close(g1, want[1])
    pos, g = ms.grad(net, 1, return_ids=True)(x, y)
    assert pos == 1
    ins, ((name, gw),) = ms.grad(net, 0, net.trainable_params(), return_ids=True)(x, y)
    assert ins[0] == 0 and name == "w"
    close(gw, want[2])
    name, gw = ms.grad(net, None, net.w, return_ids=True)(x, y)
    assert name == "w"
    with pytest.raises(ValueError, match="grad_position must be >= 0"):
        ms.grad(net, -1)
    with pytest.raises(IndexError, match="Position index 2 is exceed input size"):
        ms.grad(net, 2)(x, y)


def aux3(x, y):
    return x * y, x + 1, y * 2


def test_has_aux_structures(mode):
    x, y = T(X), T(Y)
    grads, aux = ms.grad(aux3, (0, 1), has_aux=True)(x, y)
    assert len(grads) == 2 and len(aux) == 2
    close(grads[0], Y)
    close(aux[1], 2 * Y)
    # value_and_grad: ((out, aux...), gradients)
    (value, a1, a2), g = ms.value_and_grad(aux3, 0, has_aux=True)(x, y)
    close(value, X * Y)
    close(a1, X + 1)
    close(g, Y)
    ids, _ = ms.grad(aux3, (0, 1), has_aux=True, return_ids=True)(x, y)
    assert [i for i, _ in ids] == [0, 1]


def test_tensors_inside_tuple_arguments_get_no_gradient(mode):
    """MindSpore 2.10: get_all over (tuple, y) gives (dy,)."""
    def f(t, y):
        return t[0] * t[1] * y

    (dy,) = C.GradOperation(get_all=True)(f)((T(X), T(S)), T(Y))
    close(dy, X * S)


def test_number_outputs_get_no_sensitivity(mode):
    def f(x, y):
        return x * y, 3

    dx, dy = ms.grad(f, (0, 1))(T(X), T(Y))
    close(dx, Y)
    close(dy, X)


# --- the state token -------------------------------------------------------------------------


class PrintsAndAssigns(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(T(W), name="w")
        self.seen = Parameter(T(np.zeros_like(X)), name="seen")
        self.print = P.Print()

    def construct(self, x, y):
        ops.assign(self.seen, x + 1)
        loss = (x * self.w * y).sum()
        shown = self.print("loss", loss)
        return loss, shown


def test_a_differentiated_function_that_prints_and_assigns(mode, capsys):
    """The Print's result among the outputs (it was "must compute tensors, not
    <UMonad>"); the assign and the print happen once."""
    net = PrintsAndAssigns()
    dx, dy = C.GradOperation(get_all=True)(net)(T(X), T(Y))
    close(dx, W * Y)
    close(dy, X * W)
    close(net.seen, X + 1)
    assert capsys.readouterr().out.count("loss") == 1


# --- tensor if returning tuples --------------------------------------------------------------


def np_nested(x, y):
    if x.sum() > 0:
        if y.sum() > 0:
            return x * y
        return x + np.sin(y)
    return x - y * y


def nested(x, y):
    if x.sum() > 0:
        if y.sum() > 0:
            z = x * y
        else:
            z = x + ops.sin(y)
    else:
        z = x - y * y
    return z


@pytest.mark.parametrize("signs", [(1, 1), (1, -1), (-1, 1)])
def test_nested_tensor_ifs_whose_residuals_are_tuples(mode, signs):
    """The forward of the outer if returns the inner If's result tuple as a residual:
    its Select of tuples was an internal error."""
    x, y = signs[0] * X, signs[1] * np.abs(Y)
    want = fd.vjp(np_nested, [x, y], fd.ones_like_outputs(np_nested, [x, y]))
    dx, dy = ms.grad(nested, (0, 1))(T(x), T(y))
    close(dx, want[0])
    close(dy, want[1])


class Block(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.w = Parameter(T(W * k), name="w")

    def construct(self, a, b):
        if a.sum() > b.sum():
            return a * self.w, b
        return b * self.w, ops.sin(a)


class Blocks(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([Block(1.0), Block(-0.5)])

    def construct(self, x, y):
        for layer in self.layers:
            x, y = layer(x, y)
        return (x * y).sum()


def np_blocks(x, y, w0, w1):
    for w in (w0, w1):
        x, y = (x * w, y) if x.sum() > y.sum() else (y * w, np.sin(x))
    return (x * y).sum()


def test_a_list_of_cells_with_tensor_ifs_returning_tuples(mode):
    net = Blocks()
    want = fd.vjp(np_blocks, [X, Y, W, -0.5 * W], [np.ones(())])
    (dx, dy), (dw0, dw1) = C.GradOperation(get_all=True, get_by_list=True)(
        net, net.trainable_params())(T(X), T(Y))
    close(dx, want[0])
    close(dy, want[1])
    close(dw1, want[3])


def test_forward_value_and_grad_forms(mode):
    """MindSpore 2.10: (value, first input's gradient) by default; get_all with
    sens_param takes the sensitivity last; one Parameter for get_by_list is a TypeError."""
    net = One()
    want = fd.vjp(np_one, [X, Y, W], [S])
    value, (dx, dy) = nn.ForwardValueAndGrad(net, get_all=True, sens_param=True)(
        T(X), T(Y), T(S))
    close(value, np_one(X, Y, W))
    close(dy, want[1])
    value, dx = nn.ForwardValueAndGrad(net)(T(X), T(Y))
    assert isinstance(dx, Tensor)
    with pytest.raises(TypeError, match="must be Parameters array"):
        nn.ForwardValueAndGrad(net, net.w, get_by_list=True)
