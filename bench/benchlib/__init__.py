"""Host side of the Homa/TCP benchmark (see bench/README.md)."""
