"""A text line's class from what it says (loupe_engine/ocr/formats.py). The cases in CASES are also the runtime's
(packages/runtime/test/ocr-formats.test.ts), so the engine, the Node SDK and the Python SDK relabel alike."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "apps", "server", "sdk", "python"))

from loupe_engine.ocr.formats import MAX_FORMATS, distance, formats, relabel, text_format  # noqa: E402

CASES = os.path.join(os.path.dirname(__file__), "..", "..", "packages", "runtime", "test", "ocr-formats.json")


def load_cases():
    with open(CASES) as f:
        return json.load(f)


def test_formats_write_digits_as_9_and_keep_the_most_frequent_first():
    assert text_format("LOT:26-0411V") == "LOT:99-9999V" and text_format("2024-05-01") == "9999-99-99"
    assert text_format("Ä12é") == "Ä99é"
    got = formats({0: ["SN 12", "SN 34", "S/N 5"], 1: ["2024-05-01"], 3: ["x"]}, 4)
    assert got == [["SN 99", "S/N 9"], ["9999-99-99"], [], ["x"]]
    many = formats({0: [f"{'A' * k}" for k in range(1, 100)]}, 1)
    assert len(many[0]) == MAX_FORMATS


def test_a_class_of_many_formats_keeps_the_rare_ones_far_from_the_rest():
    # 200 distinct serials with one prefix, each once, and one of another prefix that sorts after them all
    serials = [f"XY {chr(65 + i % 26)}{chr(65 + i // 26)}-{i}" for i in range(200)] + ["ZZ:12345"] + ["XY AA-1"] * 3
    kept = formats({0: serials}, 1)[0]
    assert len(kept) == MAX_FORMATS and kept[0] == "XY AA-9" and "ZZ:99999" in kept
    assert len(set(kept)) == MAX_FORMATS


def test_distance_counts_letter_swaps_as_half():
    assert distance("SN 99", "SN 99") == 0
    assert distance("AB", "AC") == 0.5 and distance("A9", "99") == 1 and distance("A-", "A:") == 1
    assert distance("", "LOT") == 3 and distance("LOT", "") == 3 and distance("99", "999") == 1
    assert distance("LOT:99-9999V", "SN:AAAA-9999") > 3


@pytest.mark.parametrize("case", load_cases(), ids=lambda c: c["why"])
def test_relabel_cases(case):
    assert relabel(case["text"], case["cls"], case["formats"]) == case["want"]


def test_the_python_sdk_relabels_alike():
    import loupe_sdk
    for case in load_cases():
        assert loupe_sdk.relabel(case["text"], case["cls"], case["formats"]) == case["want"], case["why"]
