"""``mindspore.amp``: mixed-precision training (``train/amp.py``)."""

from msc.train.amp import (
    DynamicLossScaleManager,
    DynamicLossScaler,
    FixedLossScaleManager,
    LossScaleManager,
    LossScaler,
    StaticLossScaler,
    __all__,
    all_finite,
    auto_mixed_precision,
    build_train_network,
    custom_mixed_precision,
    get_black_list,
    get_white_list,
)
