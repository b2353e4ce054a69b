"""`sts view`: sessions as one self-contained, offline HTML page (see `sts.view.page`)."""

from sts.view.page import Mark, write_page

__all__ = ["Mark", "write_page"]
