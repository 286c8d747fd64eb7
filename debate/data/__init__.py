"""The research datasets on this machine: which ones exist, where each file is found, and fetching the
ones the project may not ship.

catalog.py names every file with its pinned SHA-256, licence and what needs it; locate.py is the one
search order (`locate.find`); fetch.py downloads what may be downloaded into DEBATE_HOME. Parts layer:
the dataset loaders and the evidence corpus read their files through `locate`, nothing here imports
them.
"""

from debate.data.catalog import SOURCES, DataFile, Source, file_for
from debate.data.locate import find, missing_message, search_roots

__all__ = ["SOURCES", "DataFile", "Source", "file_for", "find", "missing_message", "search_roots"]
