"""The one list of errors a user can cause, and how each reads as a single message.

Every error raised because of what a user chose, typed or uploaded (a bad workload file,
an impossible request, a missing or corrupt pretrained file) derives from
:class:`LabError`. The CLI and the app both catch :data:`USER_ERRORS` and show
:func:`describe` of it: one readable message, never a traceback.
"""

from __future__ import annotations


class LabError(Exception):
    """Base of the errors a user's input or files cause (not bugs in the engine)."""


class UnknownName(LabError, KeyError):
    """A name (of a policy, a speedup model, ...) that is not among the known ones.

    A ``KeyError`` too, for callers that look names up; its message reads as a sentence
    (a plain ``KeyError`` would print with quotes around it).
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown name"


USER_ERRORS: tuple[type[BaseException], ...] = (LabError, ValueError, OSError)
"""What the CLI and the app show as a message. ``ValueError`` covers bad option values
and ``OSError`` unreadable files; anything else is a bug and keeps its traceback."""


def describe(error: BaseException) -> str:
    """``error`` as one message a user can act on."""
    if isinstance(error, FileNotFoundError) and error.filename is not None:
        return f"{error.filename}: no such file"
    if isinstance(error, IsADirectoryError) and error.filename is not None:
        return f"{error.filename}: is a folder, expected a file"
    if isinstance(error, PermissionError) and error.filename is not None:
        return f"{error.filename}: permission denied"
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    return str(error)
