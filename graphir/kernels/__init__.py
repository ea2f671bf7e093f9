"""Fast numpy kernels shared by the dialects' ``evaluate`` methods."""
