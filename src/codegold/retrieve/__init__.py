"""The reference retriever: query analysis, signals, fusion, role-aware reranking."""
