# SPDX-License-Identifier: LGPL-2.1-or-later
"""The element reference cannot drift from the elements: docs/<element>.md is
exactly what scripts/element-docs writes from the registered element (pads,
properties, flags, defaults), every property gst-inspect-1.0 lists has its row,
the hand-written blocks are written, and the links between the README and the
docs resolve. The Python element realsensesrc, when not registered here (it
needs pyrealsense2), is skipped, saying why."""
import difflib
import os
import re
import subprocess

import pytest
from gi.repository import Gst

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")
SCRIPT = os.path.join(ROOT, "scripts", "element-docs")
ELEMENTS = ("depthmatte", "depthalign", "depthview", "framestack", "sparkle", "rgbdtestsrc",
            "personmask", "mpfacedetect", "realsensesrc")
NEEDS = {"realsensesrc": "pyrealsense2"}


def registered(name):
    return Gst.ElementFactory.find(name) is not None


def require(name):
    if not registered(name):
        if name in NEEDS:
            pytest.skip(f"{name} is not registered: it needs {NEEDS[name]} for /usr/bin/python3, Debian's "
                        "gst-python loader (scripts/setup installs both) and gst-python/ on GST_PLUGIN_PATH")
        pytest.fail(f"{name} is not registered: is .build/release on GST_PLUGIN_PATH?")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """One run of the generator over every registered element, into a fresh folder."""
    out = tmp_path_factory.mktemp("element-docs")
    names = [n for n in ELEMENTS if registered(n)]
    r = subprocess.run([SCRIPT, "--out", str(out)] + names, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("name", ELEMENTS)
def test_reference_is_what_the_generator_writes(name, generated):
    require(name)
    path = os.path.join(DOCS, f"{name}.md")
    assert os.path.exists(path), f"docs/{name}.md is missing: run scripts/element-docs {name}"
    want = open(os.path.join(generated, f"{name}.md"), encoding="utf-8").read()
    have = open(path, encoding="utf-8").read()
    diff = "".join(difflib.unified_diff(have.splitlines(True), want.splitlines(True),
                                        f"docs/{name}.md", "scripts/element-docs"))
    assert not diff, f"docs/{name}.md is stale; run scripts/element-docs {name}:\n{diff}"


@pytest.mark.parametrize("name", ELEMENTS)
def test_every_property_gst_inspect_lists_has_a_row(name):
    """A check independent of the generator: gst-inspect-1.0's own listing."""
    require(name)
    r = subprocess.run(["gst-inspect-1.0", name], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    listing = r.stdout[r.stdout.index("Element Properties:"):]
    listing = listing.split("\nElement Signals:")[0].split("\nChildren:")[0]
    props = set(re.findall(r"^  ([a-z][a-z0-9-]*)\s*:", listing, re.M)) - {"name", "parent"}
    assert len(props) >= 2, listing
    doc = open(os.path.join(DOCS, f"{name}.md"), encoding="utf-8").read()
    rows = set(re.findall(r"^\| `([a-z][a-z0-9-]*)` \|", doc, re.M))
    assert props <= rows, sorted(props - rows)
    for t in re.findall(r"(?:SINK|SRC) template: '([^']+)'", r.stdout):
        assert f"| `{t}` | s" in doc, t


@pytest.mark.parametrize("name", ELEMENTS)
def test_hand_written_blocks_are_written(name):
    text = open(os.path.join(DOCS, f"{name}.md"), encoding="utf-8").read()
    blocks = re.findall(r"<!-- hand-written: (\w+) -->\n(.*?)<!-- end hand-written -->", text, re.S)
    assert [b for b, _ in blocks] == ["intro", "messages"], blocks
    for block, body in blocks:
        assert "scripts/element-docs keeps this block" not in body and len(body.strip()) > 40, (name, block)


def slug(heading):
    """GitHub's anchor for a heading."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return s.replace(" ", "-")


def test_links_between_readme_and_docs_resolve():
    files = [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(DOCS, f) for f in os.listdir(DOCS) if f.endswith(".md"))
    broken = []
    for f in files:
        text = open(f, encoding="utf-8").read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+://", target):
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(dest):
                broken.append((os.path.relpath(f, ROOT), target))
            elif anchor and dest.endswith(".md"):
                heads = re.findall(r"^#+ (.*)$", open(dest, encoding="utf-8").read(), re.M)
                if anchor not in {slug(h) for h in heads}:
                    broken.append((os.path.relpath(f, ROOT), target))
    assert not broken, broken


def test_docs_named_in_the_code_exist():
    named = set()
    for top in ("Sources", "Tests", "scripts", "pipelines", "Benchmarks", "meson-examples", "examples",
                "gst-python"):
        for d, _, fs in os.walk(os.path.join(ROOT, top)):
            if "/.build" in d:
                continue
            for f in fs:
                try:
                    text = open(os.path.join(d, f), encoding="utf-8").read()
                except (UnicodeDecodeError, OSError):
                    continue
                named |= set(re.findall(r"\bdocs/([\w.-]+\.(?:md|png))", text))
    assert "quality.md" in named, named
    missing = sorted(n for n in named if not os.path.exists(os.path.join(DOCS, n)))
    assert not missing, missing
