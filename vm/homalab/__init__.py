"""The Homa QEMU lab: kernels, initramfs, namespaces, guests, reports."""
