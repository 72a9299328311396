"""The statement scanner of ``kpl.spans.SourceText`` remembers the brackets it has matched,
so that nested statements (``if`` nested 1,000 deep) are not re-read from every level.  The
memory must never change an answer: every query, asked in any order on one instance, equals
the answer of a fresh instance."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from kpl.spans import SourceText

PIECES = ["(", ")", "{", "}", "[", "]", ";", ",", "x", " ", "\n", "/* ) */", "// }\n",
          "')'", '"(;"', "#pragma unroll\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40), st.randoms(use_true_random=False))
def test_remembered_brackets_change_no_answer(pieces: list[str], rnd) -> None:  # type: ignore[no-untyped-def]
    text = "".join(pieces)
    opens = [i for i, ch in enumerate(text) if ch in "({["]
    rnd.shuffle(opens)
    shared = SourceText(text)
    for pos in opens:
        assert shared.match_bracket(pos) == SourceText(text).match_bracket(pos), (text, pos)
        assert shared.scan_to(pos + 1, ";,") == SourceText(text).scan_to(pos + 1, ";,"), (text, pos)
        assert shared.statement_end(pos) == SourceText(text).statement_end(pos), (text, pos)


def test_deeply_nested_statements_are_scanned_in_linear_time() -> None:
    depth = 3000
    text = "".join(f"if (t < {i}) {{\n" for i in range(depth)) + "s[t] = 1;\n" + "}\n" * depth
    src = SourceText(text)
    start = time.process_time()
    ends = [src.statement_end(src.offset(line, 1)) for line in range(1, depth + 1)]
    assert ends[0] == len(text) - 1 and ends == sorted(ends, reverse=True)
    assert time.process_time() - start < 5  # was ~30 s: each level re-read its whole body
