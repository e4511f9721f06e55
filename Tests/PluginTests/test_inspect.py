# SPDX-License-Identifier: LGPL-2.1-or-later
"""gst-inspect-1.0 reads like a stock plugin: the plugin's description names
every element it registers, the origin is not a placeholder, enum values are
listed in value order, and a property shared by several elements has one
range and one description everywhere."""
import re
import subprocess

import pytest
from gi.repository import GObject, Gst


def plugin():
    p = Gst.Registry.get().find_plugin("depthmatte")
    assert p is not None
    return p


def element_names():
    return sorted(f.get_name() for f in Gst.Registry.get().get_feature_list_by_plugin("depthmatte")
                  if isinstance(f, Gst.ElementFactory))


def test_description_names_every_element():
    desc = plugin().get_description()
    names = element_names()
    assert {"depthmatte", "rgbdtestsrc", "sparkle", "framestack", "depthview"} <= set(names)
    for n in names:
        assert n in desc, (n, desc)


def test_origin_is_not_a_placeholder():
    origin = plugin().get_origin()
    assert "example.invalid" not in origin and origin


def test_gst_inspect_lists_enum_values_in_order():
    r = subprocess.run(["gst-inspect-1.0", "depthmatte"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0
    out = r.stdout
    block = out[out.index("  output "):]
    values = [int(v) for v in re.findall(r"^\s+\((\d+)\): ", block, re.M)[:4]]
    assert values == [0, 1, 2, 3]
    # every enum of the plugin, in value order
    for name in element_names():
        e = Gst.ElementFactory.make(name)
        for spec in e.list_properties():
            if spec.value_type.is_a(GObject.TYPE_ENUM) and spec.owner_type == e.__gtype__:
                vals = [int(v) for v in spec.enum_class.__enum_values__]
                assert vals == sorted(vals), (name, spec.name)


@pytest.mark.parametrize("prop", ["depth-scale", "depth-kind", "depth-near", "depth-far", "depth-colormap",
                                  "depth-range-min", "depth-range-max", "hole-color"])
def test_shared_properties_agree_across_elements(prop):
    specs = []
    for name in element_names():
        spec = Gst.ElementFactory.make(name).find_property(prop)
        if spec is not None:
            specs.append((name, spec))
    assert len(specs) >= 2, prop
    _, first = specs[0]
    for name, spec in specs[1:]:
        assert spec.value_type == first.value_type, name
        if hasattr(first, "minimum"):
            assert (spec.minimum, spec.maximum) == (first.minimum, first.maximum), name
        assert spec.default_value == first.default_value, name
        if "src" not in name:   # a source writes the quantity the others read
            assert spec.blurb == first.blurb, name
