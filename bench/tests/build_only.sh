#!/bin/sh
# bench_run_build_only: `bench/run --build-only --build-dir DIR` configures a
# fresh CMake build tree in DIR, builds the homa_bench target there and prints
# the binary's path (and nothing else) on stdout; that binary runs `--help`.
# No guest boots. Usage: build_only.sh BENCH_RUN DIR (DIR is wiped first).
set -eu
run=$1
dir=$2
rm -rf "$dir"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$run" --build-only --build-dir "$dir" > "$out" ||
	{ echo "not ok - bench/run --build-only failed (status $?)"; exit 1; }
[ "$(wc -l < "$out")" -eq 1 ] ||
	{ cat "$out"; echo "not ok - --build-only printed more than the binary's path"; exit 1; }
bin=$(cat "$out")
rdir=$(cd "$dir" && pwd -P)
case $bin in
"$rdir"/*) ;;
*) echo "not ok - $bin is not in the build folder $dir"; exit 1 ;;
esac
[ -f "$dir/CMakeCache.txt" ] || { echo "not ok - $dir is no CMake build tree"; exit 1; }
[ -x "$bin" ] || { echo "not ok - $bin is not an executable file"; exit 1; }
"$bin" --help > "$out" 2>&1 || { cat "$out"; echo "not ok - $bin --help failed"; exit 1; }
grep -q "homa_bench server" "$out" || { cat "$out"; echo "not ok - $bin --help: no usage"; exit 1; }
# A second call reuses the tree and gives the same path.
[ "$("$run" --build-only --build-dir "$dir")" = "$bin" ] ||
	{ echo "not ok - a second --build-only in the same tree gave another path"; exit 1; }
echo "ok - bench/run --build-only built $bin with CMake; --help exits 0"
