"""Errors raised by mcprice."""


class InputError(Exception):
    """A market or book that cannot be read: the file, line and column it names (0 when the
    error is about the whole file or line), and the engine's message."""

    def __init__(self, message, file="", line=0, column=0):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
