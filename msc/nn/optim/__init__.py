"""``mindspore.nn.optim``: the optimizers (``from mindspore.nn.optim import Momentum``)."""

from msc.nn.optim.ada_grad import Adadelta, Adagrad, ProximalAdagrad  # noqa: F401
from msc.nn.optim.adam import Adam, AdamOffload, AdamWeightDecay, LazyAdam  # noqa: F401
from msc.nn.optim.adamax import AdaMax  # noqa: F401
from msc.nn.optim.asgd import ASGD  # noqa: F401
from msc.nn.optim.ftrl import FTRL  # noqa: F401
from msc.nn.optim.lamb import Lamb  # noqa: F401
from msc.nn.optim.momentum import Momentum  # noqa: F401
from msc.nn.optim.optimizer import Optimizer  # noqa: F401
from msc.nn.optim.rmsprop import RMSProp  # noqa: F401
from msc.nn.optim.rprop import Rprop  # noqa: F401
from msc.nn.optim.sgd import SGD  # noqa: F401

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "LazyAdam", "AdamOffload",
           "Adagrad", "ProximalAdagrad", "Adadelta", "AdaMax", "ASGD", "FTRL", "RMSProp",
           "Rprop", "Lamb"]
