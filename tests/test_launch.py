"""Launch configuration of real CUDA files (no GPUVerify header): host launches, project
configuration, ``__launch_bounds__``, the default with its note, and the order between them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app
from autosync.pipeline.launch import expr_text
from kpl.frontend import load_kernels, select_kernel

KERNEL = """\
__global__ void k(int *d, int n) {
    d[threadIdx.x + blockIdx.x * blockDim.x] = n;
}
"""


def _check(path: Path, *extra: str) -> tuple[dict, str, int]:
    res = CliRunner().invoke(app, ["check", str(path), "--format", "json", *extra])
    return json.loads(res.stdout), res.stderr, res.exit_code


def _host(text: str, tmp_path: Path) -> list:
    f = tmp_path / "h.cu"
    f.write_text(text)
    return select_kernel(load_kernels(str(f)), "k", str(f)).host_launches


def test_host_launch_constants(tmp_path: Path) -> None:
    text = KERNEL + """
#define N 1024
const int T = 128;
constexpr int W = 2 * 4;
static int div_up(int a, int b) { return (a + b - 1) / b; }
template <int B> void run(int *d) { k<<<N / B, B>>>(d, 3); }
int main() {
    int *d;
    dim3 block(16, 16);
    dim3 grid(N / 16, N / 16);
    int threads = 64;
    k<<<4, 256>>>(d, 10);
    k<<<grid, block>>>(d, 10);
    k<<<(N + T - 1) / T, T, 0, 0>>>(d, 10);
    k<<<dim3(2, 3), dim3(8, 4, 2)>>>(d, 10);
    k<<<div_up(N, threads), threads>>>(d, W);
    run<32>(d);
}
"""
    got = [(h.grid, h.block, h.line) for h in _host(text, tmp_path)]
    assert got == [((32, 1, 1), (32, 1, 1), 9), ((4, 1, 1), (256, 1, 1), 15), ((64, 64, 1), (16, 16, 1), 16),
                   ((8, 1, 1), (128, 1, 1), 17), ((2, 3, 1), (8, 4, 2), 18), ((16, 1, 1), (64, 1, 1), 19)]


def test_runtime_launch_calls(tmp_path: Path) -> None:
    """``cudaLaunchKernel`` and ``cudaLaunchCooperativeKernel`` launch the kernel they are
    given behind a ``(void *)`` cast, with the grid and block of their next arguments; a
    runtime launch of another kernel is not this kernel's."""
    text = KERNEL + """
__global__ void other(int *d) { d[0] = 1; }
void run(int *d, int n) {
    void *args[] = {&d, &n};
    dim3 block(32, 4);
    cudaLaunchKernel((void *)k, dim3(6), block, args, 0, 0);
    cudaLaunchCooperativeKernel((const void *)&k, 12, 64, args);
    cudaLaunchKernel((void *)other, 99, 99, args, 0, 0);
}
"""
    got = [(h.grid, h.block, h.line) for h in _host(text, tmp_path)]
    assert got == [((6, 1, 1), (32, 4, 1), 9), ((12, 1, 1), (64, 1, 1), 10)]


def test_host_launch_not_constant_is_symbolic_with_its_relation(tmp_path: Path) -> None:
    """``n`` is passed to the kernel unchanged: the grid is a relation to the kernel's ``n``;
    ``m`` is not passed: the grid is unknown (symbolic), never guessed."""
    text = KERNEL + """
void h(int n, int *d) { dim3 grid((n + 255) / 256); k<<<grid, 256>>>(d, n); }
void g(int m, int *d) { k<<<m, 64>>>(d, 1); }
void w(int n, int *d) { n = n * 2; k<<<n, 64>>>(d, n); }
static int most(int a, int b) { return a < b ? b : a; }
void c(int n, int *d) { k<<<most(n / 64, 1), 64>>>(d, n); }
"""
    h, g, w, c = _host(text, tmp_path)
    assert h.block == (256, 1, 1) and h.grid[1:] == (1, 1)
    assert expr_text(h.grid[0]) == "(n + 255) / 256"
    assert g.grid == (None, 1, 1) and [expr_text(a) for a in g.args] == ["n == 1"]
    assert w.grid == (None, 1, 1) and w.args == ()  # n is written before the launch: not trusted
    assert expr_text(c.grid[0]) == "n / 64 < 1 ? 1 : n / 64"  # through a one-line helper


def test_check_uses_each_distinct_host_launch(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(KERNEL + "int main() { int *d; k<<<4, 256>>>(d, 1); k<<<4, 256>>>(d, 2); "
                 "k<<<2, 32>>>(d, 3); }\n")
    doc, stderr, code = _check(f)
    launches = [k["launch"] for k in doc["kernels"]]
    # the two calls with 4 x 256 are one check; n differs between them: no fact on n is kept
    assert launches == [
        {"blockDim": [256, 1, 1], "gridDim": [4, 1, 1], "source": f"host launch at {f}:4"},
        {"blockDim": [32, 1, 1], "gridDim": [2, 1, 1], "source": f"host launch at {f}:4",
         "assumptions": ["n == 3"]},
    ]
    assert "note" not in stderr
    assert code == 0


def test_no_launch_is_symbolic_with_a_note(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(KERNEL)
    doc, stderr, code = _check(f)
    assert doc["launch"] == {"blockDim": [None, 1, 1], "gridDim": [None, 1, 1], "source": "symbolic",
                             "maxThreadsPerBlock": 1024}
    assert f"{f}:1:17: note: no launch of kernel 'k' found; checked for every launch CUDA allows " \
        "in the dimensions it reads (blockDim=* gridDim=*, * = any)" in stderr
    assert code == 0  # d[threadIdx.x + blockIdx.x * blockDim.x] is race-free for every launch


def test_order_flags_header_config_host(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        "[tool.autosync]\ngridDim = 8\n[tool.autosync.kernels.k]\nblockDim = [32, 2]\n")
    sub = tmp_path / "src"
    sub.mkdir()
    f = sub / "k.cu"
    f.write_text(KERNEL + "int main() { int *d; k<<<4, 256>>>(d, 1); }\n")
    doc, _, _ = _check(f)  # the configuration wins over the host launch
    assert doc["launch"]["blockDim"] == [32, 2, 1] and doc["launch"]["gridDim"] == [8, 1, 1]
    assert doc["launch"]["source"].startswith("configuration ")
    f.write_text("//pass\n//--blockDim=64\n" + KERNEL)
    doc, _, _ = _check(f)  # the header wins over the configuration
    assert doc["launch"]["blockDim"] == [64, 1, 1] and doc["launch"]["gridDim"] == [8, 1, 1]
    doc, _, _ = _check(f, "--blockDim", "16")  # the flag wins over everything
    assert doc["launch"]["blockDim"] == [16, 1, 1]
    assert doc["launch"]["source"].startswith("blockDim: command line; gridDim: configuration")


def test_config_search_stops_at_git(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.autosync]\nblockDim = 32\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    f = repo / "k.cu"
    f.write_text(KERNEL)
    doc, _, _ = _check(f)
    assert doc["launch"]["source"] == "symbolic"


def test_launch_bounds_bound_the_block(tmp_path: Path) -> None:
    """``__launch_bounds__(128)`` bounds a symbolic block to 128 threads: ``s[threadIdx.x %
    128]`` is then race-free, and racy without the bound (a block of 129 or more threads)."""
    body = "(int *d) {\n    __shared__ int s[128];\n    s[threadIdx.x % 128] = d[threadIdx.x];\n}\n"
    f = tmp_path / "k.cu"
    f.write_text("__global__ void __launch_bounds__(128) k" + body)
    doc, stderr, code = _check(f)
    assert doc["launch"]["blockDim"] == [None, 1, 1] and doc["launch"]["maxThreadsPerBlock"] == 128
    assert doc["launch"]["source"] == "symbolic"
    assert code == 0, doc
    f.write_text("__global__ void k" + body)
    doc, _, code = _check(f)
    assert code == 1 and doc["races"][0]["array"] == "s"


def test_host_launch_finds_a_race_the_default_misses(tmp_path: Path) -> None:
    """A shared array sized for 64 threads: racy only when launched with blockDim 128."""
    f = tmp_path / "k.cu"
    f.write_text("""\
__global__ void k(int *d) {
    __shared__ int s[64];
    s[threadIdx.x % 64] = d[threadIdx.x];
}
int main() { int *d; k<<<1, 128>>>(d); }
""")
    doc, _, code = _check(f)
    assert doc["launch"]["blockDim"] == [128, 1, 1]
    assert code == 1 and doc["races"]


TWO_LAUNCHES = """\
__global__ void k(int *d) {
    __shared__ int s[64];
    __shared__ int t[64];
    s[threadIdx.x] = d[threadIdx.x];
    t[threadIdx.x] = s[threadIdx.x % 32];
    d[threadIdx.x] = t[threadIdx.x ^ 1];
}
int main() { int *d; k<<<1, 32>>>(d); k<<<1, 64>>>(d); }
"""


def test_fix_verifies_one_placement_under_every_launch(tmp_path: Path) -> None:
    """Launched with 32 threads only the race on 't' (lines 5/6) exists; with 64 also the one
    on 's' (lines 4/5, thread 32 reads what thread 0 wrote).  The first launch alone needs one
    barrier; ``fix`` must find both, and ``check`` (every launch) must then verify."""
    f = tmp_path / "k.cu"
    f.write_text(TWO_LAUNCHES)
    code_before = CliRunner().invoke(app, ["check", str(f)]).exit_code
    assert code_before == 1
    one = CliRunner().invoke(app, ["fix", str(f), "--blockDim", "32", "--gridDim", "1", "--format", "json",
                                   "--diff"])
    assert one.exit_code == 1 and len(json.loads(one.stdout)["barriers"]) == 1, one.stdout
    res = CliRunner().invoke(app, ["fix", str(f)])
    assert res.exit_code == 0, res.stdout + res.stderr
    assert "2 launch configurations" in res.stdout
    patched = f.read_text().splitlines()
    # the race on 's' crosses warps (thread 32 reads what thread 0 wrote): a block barrier;
    # the one on 't' is between lanes t and t^1 of one warp: a warp barrier suffices
    assert [(i, line.strip()) for i, line in enumerate(patched, 1) if "sync" in line] == [
        (5, "__syncthreads();"), (7, "__syncwarp();")]
    check = CliRunner().invoke(app, ["check", str(f), "--format", "json"])
    assert check.exit_code == 0, check.stdout
    assert sorted(kd["launch"]["blockDim"][0] for kd in json.loads(check.stdout)["kernels"]) == [32, 64]


def test_fix_with_several_launches_refused_for_naive(tmp_path: Path) -> None:
    f = tmp_path / "k.cu"
    f.write_text(TWO_LAUNCHES)
    res = CliRunner().invoke(app, ["fix", str(f), "--naive"])
    assert res.exit_code == 2 and "kernel 'k' is launched with 2 different configurations" in res.stderr
    assert f.read_text() == TWO_LAUNCHES


def test_text_summary_names_each_launch(tmp_path: Path) -> None:
    """Two launches of one kernel give two summary lines: each names its launch (racy with 64
    threads only, so the lines differ and must be told apart); one launch keeps the plain line."""
    f = tmp_path / "k.cu"
    f.write_text(TWO_LAUNCHES.replace("k<<<1, 64>>>(d);", "\n  k<<<dim3(1, 1), 64>>>(d);"))
    res = CliRunner().invoke(app, ["check", str(f)])
    summaries = [line for line in res.stdout.splitlines() if ": kernel 'k'" in line]
    assert len(summaries) == 2, res.stdout
    assert summaries[0].startswith(f"{f}: kernel 'k' (launch <<<1, 32>>> at {f}:8): 1 race,")
    assert summaries[1].startswith(f"{f}: kernel 'k' (launch <<<1, 64>>> at {f}:9): 2 races,")
    doc, _, _ = _check(f)  # JSON names the launch of each entry too
    assert [kd["launch"]["source"] for kd in doc["kernels"]] == [f"host launch at {f}:8", f"host launch at {f}:9"]
    f.write_text(KERNEL + "int main() { int *d; k<<<4, 256>>>(d, 1); }\n")
    res = CliRunner().invoke(app, ["check", str(f)])
    assert f"{f}: kernel 'k': verified" in res.stdout


@pytest.mark.parametrize(("header", "racy"), [("#define TILE 64\n", False), ("#define TILE 128\n", True),
                                              ("#ifdef BIG\n#define TILE 128\n#else\n#define TILE 64\n#endif\n",
                                               False)])
def test_launch_constant_from_an_included_header(tmp_path: Path, header: str, racy: bool) -> None:
    """``k<<<1, TILE>>>`` with TILE defined in a header: the launch is the header's TILE (s[64]
    races only with 128 threads), read from the preprocessor's macros, never the default."""
    (tmp_path / "tile.h").write_text("#pragma once\n" + header)
    f = tmp_path / "k.cu"
    f.write_text('#include "tile.h"\n__global__ void k(int *d) {\n    __shared__ int s[64];\n'
                 "    s[threadIdx.x % 64] = d[threadIdx.x];\n}\nint main() { int *d; k<<<1, TILE>>>(d); }\n")
    doc, stderr, code = _check(f)
    assert doc["launch"] == {"blockDim": [128 if racy else 64, 1, 1], "gridDim": [1, 1, 1],
                             "source": f"host launch at {f}:6"}
    assert "note" not in stderr
    assert code == (1 if racy else 0)
    if "BIG" in header:  # the branch the preprocessor took, not the last #define in the text
        doc, _, code = _check(f, "-D", "BIG")
        assert doc["launch"]["blockDim"] == [128, 1, 1] and code == 1


def test_launch_from_another_file_of_the_compilation_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel defined in k.cu and launched from main.cu (which declares it through k.h): its
    launch, with the relation to ``n``, comes from main.cu, read with main.cu's own flags; the
    same launch with one block too many is racy.  An edit of main.cu is never answered from the
    result cache."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "k.h").write_text("__global__ void k(int *d, int n);\n")
    (tmp_path / "k.cu").write_text('#include "k.h"\n__global__ void k(int *d, int n) {\n'
                                   "    d[blockIdx.x % n * 64 + threadIdx.x] = blockIdx.x;\n}\n")
    main = '#include "k.h"\nvoid run(int *d, int n) {\n    k<<<PARTS, 64>>>(d, n);\n}\n'
    (tmp_path / "main.cu").write_text(main)
    (tmp_path / "compile_commands.json").write_text(json.dumps([
        {"directory": str(tmp_path), "file": "k.cu", "arguments": ["nvcc", "-c", "k.cu"]},
        {"directory": str(tmp_path), "file": "main.cu", "arguments": ["nvcc", "-DPARTS=n", "-c", "main.cu"]}]))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOSYNC_CACHE_DIR", str(tmp_path / "cache"))
    res = CliRunner().invoke(app, ["check", "k.cu", "--format", "json"])
    doc = json.loads(res.stdout)
    assert doc["launch"] == {"blockDim": [64, 1, 1], "gridDim": [None, 1, 1], "source": "host launch at main.cu:3",
                             "assumptions": ["gridDim.x == n"]}
    assert res.exit_code == 0, doc
    (tmp_path / "main.cu").write_text(main.replace("PARTS", "PARTS + 1"))
    res = CliRunner().invoke(app, ["check", "k.cu", "--format", "json"])
    assert json.loads(res.stdout)["launch"]["assumptions"] == ["gridDim.x == n + 1"]
    assert res.exit_code == 1


def test_dynamic_oracle_says_which_launches_it_ran(tmp_path: Path) -> None:
    """The dynamic oracle executes numbers: under a symbolic launch it runs representative
    launches and names them; a race it finds names its launch in the witness."""
    f = tmp_path / "k.cu"
    f.write_text("__global__ void k(int *d) {\n    __shared__ int s[40];\n    s[threadIdx.x % 40] = d[threadIdx.x];\n}\n")
    doc, stderr, code = _check(f, "--oracle", "dynamic", "--no-cache")
    assert "the dynamic oracle ran only the launches blockDim=64 gridDim=2 and blockDim=33 gridDim=3" in stderr
    assert code == 1  # 64 threads: thread 40 and thread 0 store to s[0]
    assert doc["races"][0]["witness"]["launch"]["blockDim"] == [64, 1, 1]
