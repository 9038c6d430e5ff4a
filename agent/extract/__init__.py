"""The L4 statistics: cross-job filter, spatial and temporal comparison, ranking."""

from .rank import EventCandidate, Extraction, NodeCandidate, extract

__all__ = ["EventCandidate", "Extraction", "NodeCandidate", "extract"]
