"""Write the fuzzer's large or byte-exact hostile inputs into a folder (not committed: generated).

Usage: ``python tests/fuzz/make_corpus.py OUTDIR`` -- writes the generated files, then copies
the hand-made ones of ``tests/fuzz/corpus/`` beside them; ``python tests/fuzz/run.py --corpus``
runs them all.  Generated rather than committed: a 20,000-line kernel or a 100,000-character
line would swamp diffs, and CRLF/BOM files do not survive every editor or git setting.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"
HEADER = "//--blockDim=64 --gridDim=1\n// fuzz-expect-exit: 0\n"   # run.py checks the exit code


def deep_if(depth: int) -> str:
    """A store guarded by ``depth`` nested ``if`` statements (stack depth of every recursive walk)."""
    lines = [HEADER, "__global__ void deep(int *a) {\n", "  __shared__ int s[64];\n",
             "  int tid = threadIdx.x;\n"]
    lines += [f"{' ' * (2 + i % 40)}if (tid < {1000 - i}) {{\n" for i in range(depth)]
    lines.append("  s[tid] = a[tid];\n")
    lines += ["}\n"] * depth
    lines += ["  __syncthreads();\n", "  a[tid] = s[(tid + 1) % 64];\n", "}\n"]
    return "".join(lines)


def deep_parens(depth: int) -> str:
    expr = "(" * depth + "tid" + " + 1)" * depth
    return (HEADER + "__global__ void parens(int *a) {\n  int tid = threadIdx.x;\n"
            f"  a[tid] = {expr};\n}}\n")


def long_line(chars: int) -> str:
    terms = []
    n = 0
    i = 0
    while n < chars:
        t = f"a[(tid + {i}) % 64]"
        terms.append(t)
        n += len(t) + 3
        i += 1
    return (HEADER + "__global__ void longline(int *a, int *out) {\n  int tid = threadIdx.x;\n"
            f"  out[tid] = {' + '.join(terms)};\n}}\n")


def many_lines(n: int) -> str:
    body = []
    for i in range(n):
        if i % 4 == 0:
            body.append(f"  s[tid] = x + {i};")
        elif i % 4 == 1:
            body.append("  __syncthreads();")
        elif i % 4 == 2:
            body.append(f"  x = s[(tid + {1 + i % 63}) % 64];")
        else:
            body.append("  __syncthreads();")
    return (HEADER + "__global__ void big(int *out) {\n  __shared__ int s[64];\n"
            "  int tid = threadIdx.x;\n  int x = tid;\n" + "\n".join(body)
            + "\n  out[tid] = x;\n}\n")


PLAIN = (HEADER + "__global__ void plain(int *a) {\n  __shared__ int s[64];\n"
         "  s[threadIdx.x] = a[threadIdx.x];\n  __syncthreads();\n"
         "  a[threadIdx.x] = s[63 - threadIdx.x];\n}\n")


def generated() -> dict[str, bytes]:
    """File name -> exact bytes of every generated input."""
    return {
        "deep_if_200.cu": deep_if(200).encode(),
        "deep_if_500.cu": deep_if(500).encode(),
        "deep_parens_3000.cu": deep_parens(3000).encode(),
        "long_line_100k.cu": long_line(100_000).encode(),
        "lines_20000.cu": many_lines(20_000).encode(),
        "crlf.cu": PLAIN.replace("\n", "\r\n").encode(),
        "bom.cu": b"\xef\xbb\xbf" + PLAIN.encode(),
        "bom_crlf.cu": b"\xef\xbb\xbf" + PLAIN.replace("\n", "\r\n").encode(),
        # not UTF-8: read losslessly like every source file, so analysed (exit 0)
        "latin1_comment.cu": PLAIN.encode().replace(
            b"__global__", "// caf\xe9 cr\xe8me\n__global__".encode("latin-1"), 1),
        # a NUL between tokens: clang (like nvcc) ignores it with a warning, so analysed (exit 0)
        "nul_byte.cu": PLAIN.encode().replace(b"s[64];", b"s[64];\x00", 1),
    }


def write_corpus(out: Path) -> list[Path]:
    """Generated plus hand-made inputs in ``out``; returns the kernel files (not the headers)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, data in generated().items():
        (out / name).write_bytes(data)
    for p in CORPUS.iterdir():
        if p.is_file():
            shutil.copy(p, out / p.name)
    return sorted(p for p in out.iterdir() if p.suffix == ".cu")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for p in write_corpus(Path(sys.argv[1])):
        print(p)
