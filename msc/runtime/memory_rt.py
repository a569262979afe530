"""How a generated module asks the C allocator to keep freed memory, every target alike.

A model's call allocates its large intermediates (activations, im2col columns: tens of
MB each for ResNet-18) and frees them before the next call. glibc's malloc gives such
blocks back to the kernel (``mmap``/``munmap``, or trimming the heap's top), so each call
takes them again as fresh pages and pays a page fault per 4 KiB: 22,000 faults and about
a quarter of ResNet-18's call time on this kind of machine. Raising the mmap threshold to
its ceiling (32 MiB) and the trim threshold to 1 GiB keeps the freed blocks in the heap
for the next call, as the caching allocators of other frameworks do; the cost is that
up to 1 GiB of freed memory stays with the process.

Only glibc is asked (each module asks again when imported: the same answer), and never
where the user chose these settings (the ``MALLOC_*_THRESHOLD_`` variables glibc reads).
"""


def _rt_keep_freed_memory():
    """Ask glibc's malloc to keep freed blocks under 32 MiB and up to 1 GiB of free heap."""
    import ctypes
    import os

    try:
        glibc = (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (AttributeError, ValueError, OSError):  # not a GNU system
        glibc = False
    if not glibc or "MALLOC_MMAP_THRESHOLD_" in os.environ \
            or "MALLOC_TRIM_THRESHOLD_" in os.environ:
        return
    mallopt = ctypes.CDLL(None).mallopt
    m_trim_threshold, m_mmap_threshold = -1, -3  # malloc.h
    mallopt(m_mmap_threshold, 32 << 20)
    mallopt(m_trim_threshold, 1 << 30)
