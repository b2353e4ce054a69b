"""Memory allocator settings for the ``sts`` command (never applied by importing the library)."""

from __future__ import annotations

#: glibc ``mallopt`` parameters.
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3


def keep_freed_memory() -> None:
    """Let glibc keep memory freed by one file for the next, instead of handing it back at once.

    By default glibc shrinks the heap as soon as a file's objects are freed and grows it again
    for the next file, so every file of a batch pays for fresh, zeroed pages from the kernel:
    about a fifth of the time of a batch of small sessions, and worse with several workers.
    Fixed thresholds (blocks of 16 MiB and more mapped on their own, the heap trimmed only past
    64 MiB of free space) keep the heap warm without raising the peak. Does nothing where
    ``mallopt`` is missing (macOS, Windows).
    """
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, TypeError, AttributeError):
        return
    mallopt(M_MMAP_THRESHOLD, 16 << 20)
    mallopt(M_TRIM_THRESHOLD, 64 << 20)
