"""Which lines of a compiled program point into the user's file (no Qt, no JAX)."""

from __future__ import annotations

from jaxviz.views.panes.link_index import program_source_lines

HLO = """HloModule jit_f
ENTRY %main {
  %x = f32[8]{0} parameter(0), metadata={op_name="x"}
  %sin = f32[8]{0} sine(%x), metadata={op_name="jit(f)/sin" source_file="lecture.py" source_line=7}
  %cos = f32[8]{0} cosine(%x), metadata={op_name="jit(f)/cos" source_file="other.py" source_line=3}
  ROOT %m = f32[8]{0} multiply(%sin, %cos), metadata={source_file="lecture.py" source_line=9}
}"""


def test_only_lines_located_in_the_users_file_are_linked():
    assert program_source_lines(HLO, "/home/me/lecture.py") == {3: 7, 5: 9}
    assert program_source_lines(HLO, "lecture.py") == {3: 7, 5: 9}
    assert program_source_lines(HLO, "/home/me/other.py") == {4: 3}
    assert program_source_lines("", "lecture.py") == {}
