"""msc's exception hierarchy and source locations.

Every error msc raises is an ``MscError`` that also subclasses the built-in type
MindSpore 2.10 raises for the same mistake, so a script's ``except`` clauses keep
working. An error that knows where it happened renders ``file:line:col: message``,
then the user's source line and a caret under the span.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Loc:
    """A span in a user's source file (1-based lines, 0-based columns)."""

    file: str
    line: int
    col: int = 0
    end_line: int | None = None
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"

    def excerpt(self) -> str:
        """The source line and a caret under the span, or '' if the file is unreadable."""
        text = linecache.getline(self.file, self.line).rstrip("\n")
        if not text:
            return ""
        end = self.end_col if self.end_line in (None, self.line) and self.end_col else len(text)
        width = max(1, min(end, len(text)) - self.col)
        return f"    {text}\n    {' ' * self.col}^{'~' * (width - 1)}"


class MscError(Exception):
    """Base of every error msc raises on purpose."""

    def __init__(self, message: str, loc: Loc | None = None, notes: tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.notes = tuple(notes)

    def with_loc(self, loc: Loc | None) -> MscError:
        """Attach ``loc`` if the error has none yet; returns self for ``raise e.with_loc(..)``."""
        if self.loc is None and loc is not None:
            self.loc = loc
        return self

    def add_note_line(self, note: str) -> MscError:
        self.notes = self.notes + (note,)
        return self

    def __str__(self) -> str:
        head = f"{self.loc}: {self.message}" if self.loc else self.message
        parts = [head]
        if self.loc is not None:
            excerpt = self.loc.excerpt()
            if excerpt:
                parts.append(excerpt)
        parts.extend(f"note: {n}" for n in self.notes)
        return "\n".join(parts)


class UnsupportedSyntaxError(MscError, RuntimeError):
    """Python syntax that a graph cannot contain (MindSpore raises RuntimeError)."""


class GraphTypeError(MscError, TypeError):
    """Wrong argument count or kind, wrong dtype, a value of the wrong type."""


class ShapeError(MscError, ValueError):
    """Shapes that do not broadcast, an impossible reshape, an axis out of range."""


class MatmulShapeError(ShapeError, RuntimeError):
    """Matmul inner dimensions differ: MindSpore raises RuntimeError, numpy-minded users
    catch ValueError; this error is both."""


class GraphValueError(MscError, ValueError):
    """A value that is not allowed where it is used (MindSpore raises ValueError)."""


class GraphNameError(MscError, NameError):
    """A name that is not defined where a graph uses it."""


class GraphAttributeError(MscError, AttributeError):
    """An attribute that does not exist on the object a graph reads it from."""


class GraphIndexError(MscError, IndexError):
    """An index out of range (MindSpore raises IndexError)."""


class GraphKeyError(MscError, KeyError):
    """A missing key of a dict the graph reads."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return MscError.__str__(self)


def as_user_error(e: Exception, message: str) -> MscError:
    """The msc error of the same built-in kind as ``e`` (a Python-level operation the
    user's graph code ran failed): IndexError stays an IndexError, and so on; a division
    by zero is MindSpore's graph-mode ValueError ("The divisor could not be zero")."""
    for kind, error in ((IndexError, GraphIndexError), (KeyError, GraphKeyError),
                        (ValueError, GraphValueError), (AttributeError, GraphAttributeError),
                        (ZeroDivisionError, GraphValueError)):
        if isinstance(e, kind):
            return error(message)
    return GraphTypeError(message)


class ExportError(MscError, RuntimeError):
    """A network or format ``export`` cannot write (an op ONNX lacks, a weight written in
    place, the MINDIR format); MindSpore's export raises RuntimeError when it cannot."""


class ModelSyntaxError(MscError, SyntaxError):
    """A model file (or a file it imports) that Python cannot parse: the parser's message
    at the user's line and column, with a caret, instead of importlib's traceback."""


class ModelCodeError(MscError, RuntimeError):
    """An exception the user's own code raised while msc loaded the model: importing the
    file, constructing the ENTRY Cell class or calling the ENTRY factory. It names the
    user's line the exception came from; the original exception is its ``__cause__``."""


class InternalCompilerError(MscError, RuntimeError):
    """A bug in msc, reported with the user's location rather than a deep traceback."""


class SideEffectWarning(UserWarning):
    """A write inside a graph that the compiled code does not perform (a Python global, a
    plain attribute): reported at the user's line, since the program still compiles."""
