"""Diagnosis: walk the pipeline's boundaries in order, stop at the first that broke."""

from codegold.diagnose.walk import DiagnosisContext, diagnose_record, diagnose_records

__all__ = ["DiagnosisContext", "diagnose_record", "diagnose_records"]
