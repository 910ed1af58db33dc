"""The lab's private network: a namespace holding a bridge and one tap per guest.

Everything is created inside a namespace named homalab-<pid>-<n>, and the
namespace is deleted on exit, which removes the taps and the bridge with it.
Namespaces of lab processes that died without cleaning up are removed by the
next run.
"""
import os
import subprocess

from .util import LabError, progress, run

PREFIX = "homalab-"


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def reap_stale():
    """Delete lab namespaces whose owning process no longer exists."""
    out = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        name = line.split()[0] if line.split() else ""
        if not name.startswith(PREFIX):
            continue
        try:
            pid = int(name[len(PREFIX):].split("-")[0])
        except ValueError:
            continue
        if not _alive(pid):
            progress(f"removing stale namespace {name}")
            subprocess.run(["ip", "netns", "del", name])


class LabNet:
    """Context manager: namespace + bridge br0 + taps tap0..tapN-1."""
    _count = 0

    def __init__(self, guests):
        LabNet._count += 1
        self.name = f"{PREFIX}{os.getpid()}-{LabNet._count}"
        self.guests = guests
        self.taps = [f"tap{i}" for i in range(guests)]
        self.bridge = "br0"

    def ip(self, *args):
        run(["ip", "-n", self.name, *args], quiet=True)

    def __enter__(self):
        reap_stale()
        progress(f"creating namespace {self.name} with {self.bridge} and {', '.join(self.taps)}")
        run(["ip", "netns", "add", self.name], quiet=True)
        try:
            self.ip("link", "set", "lo", "up")
            self.ip("link", "add", self.bridge, "type", "bridge")
            # No addresses: the namespace must not answer guests' Homa packets.
            self.ip("link", "set", self.bridge, "up")
            for tap in self.taps:
                self.ip("tuntap", "add", "dev", tap, "mode", "tap")
                self.ip("link", "set", tap, "master", self.bridge)
                self.ip("link", "set", tap, "up")
            # The bridge must not delay forwarding while it learns.
            run(["ip", "netns", "exec", self.name, "sh", "-c",
                 f"echo 0 > /sys/class/net/{self.bridge}/bridge/forward_delay"], quiet=True)
        except LabError:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        subprocess.run(["ip", "netns", "del", self.name], stderr=subprocess.DEVNULL)
        progress(f"removed namespace {self.name}")
        return False

    def exec_prefix(self):
        return ["ip", "netns", "exec", self.name]
