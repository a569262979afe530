"""``mindspore.amp``: loss scalers and ``all_finite`` for mixed-precision training."""

from msc.train.amp import (
    DynamicLossScaler,
    LossScaler,
    StaticLossScaler,
    __all__,
    all_finite,
    auto_mixed_precision,
)
