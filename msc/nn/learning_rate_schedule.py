"""``mindspore.nn.learning_rate_schedule``: the schedule Cells (``WarmUpLR``, ...)."""

from msc.frontend.api.lr_schedule import (  # noqa: F401
    CosineDecayLR,
    ExponentialDecayLR,
    InverseDecayLR,
    LearningRateSchedule,
    NaturalExpDecayLR,
    PolynomialDecayLR,
    WarmUpLR,
    __all__,
)
