"""Small models written the way MindSpore's public model collections write them, for the
model-zoo tests and the model benchmark; each file compiles on its own with ``msc compile``."""
