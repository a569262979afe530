"""Whether the CPU can run kernels (always), and how many CPU devices there are (one, as
MindSpore counts them)."""


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1
