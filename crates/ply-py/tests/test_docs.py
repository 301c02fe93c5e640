"""docs/python.md cannot drift: its `>>>` sessions run as doctests and its
other Python blocks run as written, in order, in one namespace, in a
scratch folder (the exports they write land there)."""

import doctest
import os
import re

from conftest import ROOT

DOC = ROOT / "docs" / "python.md"


def python_blocks():
    """The ```python blocks of the page, in order."""
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_page_has_sessions_and_code():
    blocks = python_blocks()
    assert any(b.lstrip().startswith(">>>") for b in blocks)
    assert any(not b.lstrip().startswith(">>>") for b in blocks)


def test_every_python_block_runs_and_prints_what_it_shows(tmp_path, db_dir):
    import ply

    namespace = {"ply": ply}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        for number, block in enumerate(python_blocks()):
            if block.lstrip().startswith(">>>"):
                test = parser.get_doctest(block, namespace, f"python.md block {number}", str(DOC), 0)
                runner.run(test, clear_globs=False)
            else:
                exec(compile(block, f"python.md block {number}", "exec"), namespace)
    finally:
        os.chdir(old)
    failed, tried = runner.summarize(verbose=False)
    assert tried > 5
    assert failed == 0, f"{failed} of {tried} examples in docs/python.md printed something else"
