"""Scale benchmark of the named-barrier oracle (issue 6, item 5; [WEFT] Figs. 9-10).

Generates a CudaDMA-style warp-specialised kernel directly in KPL: ``P`` producer (DMA) warps
fill one of two shared buffers while ``C`` consumer warps read the other; barriers
``EMPTY+s``/``FULL+s`` over all threads hand each buffer back and forth.  Every iteration
completes two dynamic barriers, so ``ITERS`` iterations give ``2*ITERS`` dynamic barriers.

Each size runs in a fresh interpreter so that the peak resident set (``ru_maxrss``) belongs
to that size alone.  Usage::

    python microbench/named_scale.py                 # default sizes
    python microbench/named_scale.py 125 500 1000    # iteration counts
    python microbench/named_scale.py --racy 500      # with Listing 3's write-after-read bug
    python microbench/named_scale.py --pairs 60 125 250   # 16 warps, 8 pairs, 16 units
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "tests")]  # the test builder

from conftest import TID, arrive, bop, for_, if_, kernel, read, shared, store, sync, v, warp_id  # noqa: E402

from kpl.ast import Kernel, Stmt  # noqa: E402
from oracle.named import NamedBarrierOracle  # noqa: E402

PRODUCER_WARPS = 4
CONSUMER_WARPS = 12
WRITES = 4  # shared writes per producer thread per iteration
READS = 2  # shared reads per consumer thread per iteration
EMPTY, FULL = 2, 4


def build(iters: int, racy: bool = False) -> Kernel:
    """The generated kernel; ``racy`` moves the consumers' "empty" arrive before their last
    read ([WEFT] Listing 3)."""
    threads = 32 * (PRODUCER_WARPS + CONSUMER_WARPS)
    prod = 32 * PRODUCER_WARPS
    span = threads  # one buffer
    buf = shared("buf", 2 * span)
    stage = bop("&", v("it"), 1)
    base = bop("*", stage, span)
    producer = for_("it", 0, iters, [
        sync(bop("+", EMPTY, stage), threads),
        *[store(buf, bop("+", base, bop("+", TID, prod * j))) for j in range(WRITES)],
        arrive(bop("+", FULL, stage), threads),
    ])
    ctid = bop("-", TID, prod)
    reads = [read("x", buf, bop("+", base, bop("%", bop("+", ctid, 97 * j), span)))
             for j in range(READS)]
    release = if_(bop("<", bop("+", v("it"), 2), iters), [arrive(bop("+", EMPTY, stage), threads)])
    body: list[Stmt] = [sync(bop("+", FULL, stage), threads)]
    body += [reads[0], release, *reads[1:]] if racy else [*reads, release]
    consumer = [arrive(EMPTY, threads), arrive(EMPTY + 1, threads), *for_("it", 0, iters, body)]
    main = [if_(bop("<", warp_id(), PRODUCER_WARPS), producer, consumer)]
    return kernel(main, threads, name=f"named_scale_{iters}")


def build_pairs(iters: int, racy: bool = False, accesses: int = 16) -> Kernel:
    """Singe-style variant: 16 warps in 8 producer/consumer pairs, pair ``p`` on its own
    barriers ``2p`` (empty) and ``2p+1`` (full), so every warp has its own program (16
    scheduling units) and all 16 hardware barriers are live."""
    threads = 512
    buf = shared("buf", 8 * 32 * accesses)
    lane = bop("%", TID, 32)
    pair = bop("/", warp_id(), 2)
    base = bop("*", pair, 32 * accesses)
    empty = bop("*", pair, 2)
    full = bop("+", bop("*", pair, 2), 1)
    producer = for_("it", 0, iters, [
        sync(empty, 64),
        *[store(buf, bop("+", base, bop("+", lane, 32 * j))) for j in range(accesses)],
        arrive(full, 64)])
    reads = [read("x", buf, bop("+", base, bop("%", bop("+", lane, 32 * j + 1), 32 * accesses)))
             for j in range(accesses)]
    release = if_(bop("<", bop("+", v("it"), 1), iters), [arrive(empty, 64)])
    body: list[Stmt] = [sync(full, 64)]
    body += [reads[0], release, *reads[1:]] if racy else [*reads, release]
    consumer = [arrive(empty, 64), *for_("it", 0, iters, body)]
    main = [if_(bop("==", bop("%", warp_id(), 2), 0), producer, consumer)]
    return kernel(main, threads, name=f"named_pairs_{iters}")


def run_one(iters: int, racy: bool, pairs: bool = False) -> dict[str, float | int]:
    t0 = time.perf_counter()
    k = build_pairs(iters, racy) if pairs else build(iters, racy)
    t_build = time.perf_counter() - t0
    oracle = NamedBarrierOracle()
    verdict = oracle.check(k)
    st = oracle.stats
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"iters": iters, "threads": st.threads, "commands": st.commands,
            "dynamic_barriers": st.dynamic_barriers, "units": st.units,
            "shared_addresses": st.shared_addresses, "race_tests": st.race_tests,
            "races": len(verdict.races), "findings": len(verdict.findings),
            "unknowns": len(verdict.unknowns), "build_s": round(t_build, 3),
            "check_s": round(verdict.seconds, 3), "peak_rss_mib": round(rss_kib / 1024, 1)}


def main(argv: list[str]) -> None:
    racy = "--racy" in argv
    pairs = "--pairs" in argv
    args = [a for a in argv if not a.startswith("--")]
    if "--one" in argv:
        print(json.dumps(run_one(int(args[0]), racy, pairs)))
        return
    sizes = [int(a) for a in args] or [125, 250, 500, 1000]
    cols = ["iters", "threads", "commands", "dynamic_barriers", "units", "shared_addresses",
            "race_tests", "races", "findings", "check_s", "peak_rss_mib"]
    print(" | ".join(cols))
    for n in sizes:
        cmd = [sys.executable, __file__, "--one", str(n)] + (["--racy"] if racy else []) + (
            ["--pairs"] if pairs else [])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        row = json.loads(out.strip().splitlines()[-1])
        print(" | ".join(str(row[c]) for c in cols), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
