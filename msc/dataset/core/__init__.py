"""``mindspore.dataset.core``: the pipeline's global configuration."""
