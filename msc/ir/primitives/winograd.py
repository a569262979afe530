"""Winograd's minimal filtering for stride-1 3x3 convolutions: F(4x4, 3x3).

A 6x6 tile ``d`` of the input (in its zero border) and a 3x3 filter ``g`` give a 4x4 tile of
the output as ``A^T [(G g G^T) * (B^T d B)] A``: 36 multiplications per tile and channel
pair instead of 144. Over channels the elementwise products become 36 matrix products,
one per tile element ``xi``: ``M[xi] = U[xi] @ V[xi]`` with the filters ``U`` (out
channels x channels) and the input tiles ``V`` (channels x tiles) transformed, so the
BLAS does 4x fewer multiply-adds and the transforms are short runs of additions.

The matrices come from interpolation points (Toom-Cook). The points {0, -1, 1, 1/2, -2}
(and infinity) give float32 results about 4e-6 of the output's largest magnitude from a
float64 reference on ResNet's layer shapes, against 9e-6 for the textbook {0, +-1, +-2};
``tests/codegen/test_winograd.py`` derives the matrices in rationals and checks the
runtime's transforms (``msc/runtime/numba_winograd_rt.py``; the native runtime's
``msc_wino_conv`` does the same arithmetic) against them.

The transformed filters, inputs and products are laid out (channels, xi, ...), each
product's operand a strided matrix to the BLAS, so that the 36 values of one filter or
tile lie close together: laid out (xi, channels, tiles) the output transform took 8 of a
layer's 12.7 ms, its reads 36 planes apart fighting over the same cache sets, and the
filter transform of 256 x 256 filters 16 ms. The tiles go block by block, a block's
transformed inputs and products sized to stay in cache.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from msc.errors import InternalCompilerError
from msc.ir import dtypes
from msc.ir.kernel import (
    Assign,
    Branch,
    Expr,
    Lit,
    Name,
    Not,
    Slice,
    Stmt,
    contiguous,
    empty,
    helper,
)
from msc.ir.primitives.emitting import Loops, in_type, out_type

#: Output tile size, filter size and input tile size.
TILE, TAPS, SIZE = 4, 3, 6


#: The fewest output tiles of the whole batch: the transformed filters (4x the filters) are
#: read once per call whatever the tiles, so on few tiles that read costs more than the
#: multiplications it saves. ResNet's 512-channel 7x7 layer (4 tiles an image), one core,
#: the native library, Winograd against im2col: 3.9 ms against 3.2 at batch 1, 4.2
#: against 5.4 at batch 2, 4.9 against 10.0 at batch 4.
MIN_BATCH_TILES = 8


def tile_grid(shape: tuple[int, ...]) -> tuple[int, int]:
    """Rows and columns of 4x4 tiles covering one image of an (N, C, H, W) output."""
    return -(-shape[2] // TILE), -(-shape[3] // TILE)


def fits(node: Any) -> bool:
    """Whether a float32 2-D convolution of a nonempty batch goes through F(4x4, 3x3):
    ungrouped, 3x3, stride and dilation 1, padding at most 1, at least 32 channels in and
    out, an output of at least 7x7 and at least ``MIN_BATCH_TILES`` tiles."""
    x, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    return (x.ndim == 4 and x.shape[0] > 0 and x.dtype == w.dtype == o.dtype == dtypes.float32
            and node.attr["groups"] == 1 and w.shape[2:] == (TAPS, TAPS)
            and node.attr["stride"] == (1, 1) and node.attr["dilation"] == (1, 1)
            and max(node.attr["pad"]) <= 1 and min(w.shape[:2]) >= 32
            and min(o.shape[2:]) >= 7
            and o.shape[0] * math.prod(tile_grid(o.shape)) >= MIN_BATCH_TILES)


#: A block of tiles is transformed and multiplied at a time, its transformed inputs and
#: products (36 x (channels + out channels) x tiles floats) at most about this many bytes
#: (one core's L2 cache here), so they stay in cache between the three steps...
BLOCK_BYTES = 1 << 20
#: ... unless that leaves fewer than this many tiles (the products' columns) where the
#: batch has them: 256 x 256 filters times 8 columns ran far below the BLAS's speed.
MIN_TILES = 64


def block_rows(total: int, cols: int, channels: int) -> int:
    """Rows of tiles per block, a divisor of ``total`` (the batch's rows of tiles,
    ``cols`` tiles each): the largest whose block fits ``BLOCK_BYTES``, or the smallest
    of ``MIN_TILES`` tiles if that is larger."""
    fits = BLOCK_BYTES // (SIZE * SIZE * channels * 4 * cols)
    divisors = [r for r in range(1, total + 1) if total % r == 0]
    enough = next((r for r in divisors if r * cols >= MIN_TILES), total)
    return max(enough, max(r for r in divisors if r <= fits or r == 1))


def leading(n: int) -> int:
    """A row length of at least ``n`` floats that is an odd number of 64-byte lines, so
    that the 36 rows of one filter or tile fall in different cache sets (rows of 256
    floats, 16 lines, put nine of them in each of four sets: the filter transform of 256
    x 256 filters took 6.8 ms instead of 1.2)."""
    lines = -(-n // 16)
    return 16 * (lines + 1 - lines % 2)


def conv_loops(a: list[Expr], node: Any, out: str, fresh: Callable[[str], str],
               direct: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    """The statements computing convolution ``node`` (``fits``) into ``out``: the arrays
    the transforms fill, and the runtime's ``_rt_wino_conv`` (the filters transformed,
    then block by block of tiles the inputs transformed, 36 BLAS products and the outputs
    transformed). The runtime reads the input where it lies and puts each row of tiles'
    six rows in their zero border itself (``pad``'s top and left, out to whole tiles on
    the other sides): a bordered copy of the whole input cost a pass over it, and its
    border strips were written by one thread. Where it declines (a value not finite, or
    too large for the transforms), ``direct``, the statements of the products' way,
    compute ``out`` instead (they begin by allocating it, which the Winograd statements
    did already)."""
    first = direct[0]
    if not (isinstance(first, Assign) and first.target == Name(out)):
        raise InternalCompilerError(f"the direct convolution begins with {first}, not the "
                                    f"allocation of {out}")
    x, w, o = in_type(node, 0), in_type(node, 1), out_type(node)
    c_in, k_out = x.shape[1], w.shape[0]
    top, left = node.attr["pad"][0], node.attr["pad"][2]
    rows, cols = tile_grid(o.shape)
    per = block_rows(x.shape[0] * rows, cols, c_in + k_out)
    tiles, xis = per * cols, SIZE * SIZE
    f32 = dtypes.float32
    filt, tin, prod = fresh("wfilt"), fresh("wtiles"), fresh("wprod")
    loops = Loops(fresh)

    def strided(name: str, shape: tuple[int, ...]) -> Expr:
        """A new (shape[0], 36, shape[2]) array whose rows are ``leading`` long."""
        loops.emit(Assign(Name(name), empty((shape[0], xis, leading(shape[2])), f32)))
        return Name(name)[Slice(), Slice(), Slice(Lit(0), Lit(shape[2]))]

    loops.emit(Assign(Name(out), empty(o.shape, f32)))
    u = strided(filt, (k_out, xis, c_in))
    v, m = strided(tin, (c_in, xis, tiles)), strided(prod, (k_out, xis, tiles))
    done = fresh("winograd")
    loops.emit(Assign(Name(done), helper("_rt_wino_conv", contiguous(a[0]), contiguous(a[1]),
                                         u, v, m, Name(out), Lit(top), Lit(left))))
    loops.emit(Branch(Not(Name(done)), direct[1:]))
    return loops.lines
