"""``mindspore.amp``: loss scalers and ``all_finite`` for mixed-precision training."""

from msc.frontend.api.amp import (  # noqa: F401
    DynamicLossScaler,
    LossScaler,
    StaticLossScaler,
    __all__,
    all_finite,
    auto_mixed_precision,
)
