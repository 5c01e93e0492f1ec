"""Values no field or flag may accept quietly (shared by the CLI flag sweep and the
window's hostile-fields test)."""

from __future__ import annotations

#: Empty, zero, negative, nan, inf, huge, non-ASCII, shell metacharacters, a pasted newline.
VALUES = ["", "0", "-1", "nan", "inf", "-inf", "1e309", "99999999999", "ünïcødé",
          "$(touch /tmp/pwned)", "; rm -rf x", "\n,x=1"]
