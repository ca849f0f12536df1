"""--half: on CUDA the networks and their inputs are float16 together; on a CPU it is mapped to float32 and says so.

Every prediction loop gives a network its input in the network's own dtype. A CPU cannot run float16 convolutions,
so the loops are checked with bfloat16 networks (the other reduced precision a CPU runs): each gives its network
bfloat16 input and answers what the float32 network answers, within bfloat16's precision. Before, the loops cast
the input to float16 on `--half` alone (`ocr test --half` left its networks in float32: a dtype error on CUDA).
The CLI's mapping on a CPU is tested for every task in its own test file (test_cli, test_obb, test_classify,
test_segment, test_ocr: `check_half_on_cpu`)."""
import numpy as np
import pytest
import torch

from loupe_engine.classify.data import load_coco_labels
from loupe_engine.classify.val import predict as classify_predict
from loupe_engine.data.coco import load_coco
from loupe_engine.half import apply_half, model_input
from loupe_engine.models.classifier import Classifier
from loupe_engine.models.detector import Detector
from loupe_engine.models.segmenter import Segmenter
from loupe_engine.ocr.model import Recognizer
from loupe_engine.ocr.val import recognize
from loupe_engine.segment.data import load_polygons
from loupe_engine.segment.val import predict as segment_predict
from loupe_engine.trainer.validate import predict_batches
from shapes import make_classify, make_segment

BF16 = torch.bfloat16


def _pair(build):
    torch.manual_seed(0)
    m32 = build().eval()
    m16 = build().eval()
    m16.load_state_dict(m32.state_dict())
    return m32, m16.to(BF16)


def _close(a, b, tol):
    a, b = (torch.as_tensor(v).float() if torch.is_tensor(v) else torch.as_tensor(np.asarray(v, np.float32))
            for v in (a, b))
    assert a.shape == b.shape and (a - b).abs().max() <= tol * max(1.0, float(a.abs().max())), (a, b)


@pytest.mark.parametrize("rotated", [False, True])
def test_detector_loop_feeds_the_networks_dtype(det_data, obb_data, rotated):
    data = obb_data if rotated else det_data
    records, names, _ = load_coco(f"{data}/val.json", f"{data}/images", "obb" if rotated else "detect")
    m32, m16 = _pair(lambda: Detector(len(names), "p", rotated=rotated, imgsz=64))
    kw = dict(conf=0.0, max_det=5)
    a = [p for _, p in predict_batches(m32, records, 64, rotated, **kw)]
    b = [p for _, p in predict_batches(m16, records, 64, rotated, **kw)]
    assert len(a) == len(b) == len(records)
    assert all(p.dtype == torch.float32 and len(p) for p in b)  # boxes come back in float32 whatever the network
    # an untrained network's scores are near-ties: compare the best score of each image, not the box order
    _close([float(p[:, -2].max()) for p in a], [float(p[:, -2].max()) for p in b], 0.05)


def test_classifier_loop_feeds_the_networks_dtype(tmp_path):
    data = make_classify(str(tmp_path), n=8)
    records = load_coco_labels(f"{data}/all.json", f"{data}/images", need_labels=False)[0]
    m32, m16 = _pair(lambda: Classifier(2, "p"))
    a = [p for _, p in classify_predict(m32, records, 64)]
    b = [p for _, p in classify_predict(m16, records, 64)]
    _close(np.stack(a), np.stack(b), 0.05)


def test_segmenter_loop_feeds_the_networks_dtype(tmp_path):
    data = make_segment(str(tmp_path), n=8)
    records = load_polygons(f"{data}/all.json", f"{data}/images", need_labels=False)[0]
    m32, m16 = _pair(lambda: Segmenter(2, "p"))
    a = [p for _, p, *_ in segment_predict(m32, records, 64)]
    b = [p for _, p, *_ in segment_predict(m16, records, 64)]
    _close(torch.stack(a).float(), torch.stack(b).float(), 0.05)


def test_recognizer_reads_in_its_own_dtype():
    rng = np.random.RandomState(0)
    crops = [rng.rand(3, 32, 96).astype(np.float32) for _ in range(3)]
    m32, m16 = _pair(lambda: Recognizer(11))
    a, b = recognize(m32, crops, "0123456789"), recognize(m16, crops, "0123456789")
    assert len(a) == len(b) == 3
    _close([s for _, s in a], [s for _, s in b], 0.05)


def test_half_on_a_cpu_is_float32_and_said(capsys):
    m = torch.nn.Conv2d(3, 4, 3)
    assert apply_half(True, torch.device("cpu"), m) == "float32" and m.weight.dtype == torch.float32
    assert "--half needs CUDA" in capsys.readouterr().err
    assert apply_half(False, torch.device("cpu"), m) == "float32"
    assert model_input(m.to(BF16), torch.zeros(1, 3, 8, 8, dtype=torch.uint8)).dtype == BF16


@pytest.mark.skipif(not torch.cuda.is_available(), reason="float16 inference needs CUDA")
def test_half_on_cuda_casts_every_network():
    dev = torch.device("cuda")
    det, rec = torch.nn.Conv2d(3, 4, 3).to(dev), Recognizer(11).to(dev)
    assert apply_half(True, dev, det, rec) == "float16"
    assert det.weight.dtype == torch.float16 and all(p.dtype == torch.float16 for p in rec.parameters())
    crops = [np.random.rand(3, 32, 96).astype(np.float32)]
    assert len(recognize(rec, crops, "0123456789")) == 1
