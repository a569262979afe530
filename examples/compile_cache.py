"""The reference tutorial's compile-cache program: 200 unrolled updates of one tensor.

`python examples/compile_cache.py` runs it under ``@jit`` with the compile cache on (in
the folder ``my_compile_cache``, as the tutorial does) and prints the result and how
long the first call took: run it twice, and the second process loads the first one's
compiled code instead of compiling (``--no-cache`` turns the cache off). The
``input_signature`` fixes the input types, so it also compiles ahead of time without
``--input``:

    msc compile examples/compile_cache.py func -o build/func

The 200 iterations unroll into 400 elementwise ops that the numba target fuses into a
single loop.
"""

import sys
import time

import msc as ms
from msc import set_context


@ms.jit(input_signature=(ms.Tensor(shape=[1], dtype=ms.float32),
                         ms.Tensor(shape=[1], dtype=ms.float32)))
def func(input_x, input_y):
    output = input_x
    for _ in range(200):
        output = input_x + input_x * input_y + output
    return output


if __name__ == "__main__":
    cache = "--no-cache" not in sys.argv[1:]
    set_context(enable_compile_cache=cache, compile_cache_path="my_compile_cache")
    x = ms.Tensor([1], ms.float32)
    y = ms.Tensor([2], ms.float32)
    start_time = time.time()
    out = func(x, y)
    end_time = time.time()
    print(out)
    state = "Enable" if cache else "Disable"
    print(f"{state} compile_cache cost time:", end_time - start_time)
    start_time = time.time()
    func(x, y)
    print("second call cost time:", time.time() - start_time)
