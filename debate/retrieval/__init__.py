"""Evidence retrieval: ingest a corpus, embed it with the packaged all-MiniLM-L6-v2, index it with
faiss, and return top-k passages numbered E1..Ek. Importing this package is cheap: numpy, faiss,
torch and sentence-transformers are imported on first use.

Parts layer: may import only the foundation (errors, config); the embedder's pieces go one way:
embed.py (which embedder to use) -> embed_process.py (the worker process) -> minilm.py (the model).
"""

from debate.retrieval.corpus import Document, Passage, load_corpus, read_documents
from debate.retrieval.retriever import Retriever, default_retriever, get_retriever, tweet_query

__all__ = [
    "Document",
    "Passage",
    "Retriever",
    "default_retriever",
    "get_retriever",
    "load_corpus",
    "read_documents",
    "tweet_query",
]
