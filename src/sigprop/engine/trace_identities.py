"""Identities of M(H) = H H^T / N in terms of its recorded traces (torch-free: plain arithmetic
on floats, numpy arrays or tensors), for jobs that read the traces a simulation cached."""

from __future__ import annotations

__all__ = ["frobenius_drift_from_traces"]


def frobenius_drift_from_traces(d: int, frobenius_m_sq, trace_m_cubed, trace_diag_m2_sq):
    """delta_F = 2 d^2 - 2 ||M||_F^2 - 8 Tr(M^3) + 8 Tr(diag(M^2)^2), Dan+20 Eq. (43), from the
    traces ``metrics.spectral_statistics`` keeps per layer; ``metrics.frobenius_drift`` is this
    on the traces of H."""
    return 2 * d**2 - 2 * frobenius_m_sq - 8 * trace_m_cubed + 8 * trace_diag_m2_sq
