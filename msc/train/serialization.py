"""``mindspore.train.serialization``: checkpoints in MindSpore's ``.ckpt`` format."""

from msc.frontend.api.checkpoint import (  # noqa: F401
    __all__,
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)
