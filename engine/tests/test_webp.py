"""WebP images (issue 33): the gallery stores them as uploaded and the training snapshot names them
`<sha>.webp`; the engine reads them through the same calls it reads JPEG and PNG with."""
import json

import cv2
import numpy as np

from loupe_engine.data.coco import check_images, load_coco
from loupe_engine.data.dataset import Images


def _webp(path, img, params):
    ok, buf = cv2.imencode(".webp", img, params)
    assert ok, "this OpenCV cannot write WebP"
    buf.tofile(str(path))


def test_training_reads_lossy_and_lossless_alpha_webp(tmp_path):
    left_red = np.zeros((40, 60, 3), np.uint8)
    left_red[:, :30] = (0, 0, 255)  # BGR red on the left, black on the right
    rgba = np.dstack([left_red, np.full((40, 60), 128, np.uint8)])
    _webp(tmp_path / "a1.webp", left_red, [cv2.IMWRITE_WEBP_QUALITY, 80])
    _webp(tmp_path / "b2.webp", rgba, [cv2.IMWRITE_WEBP_QUALITY, 101])  # quality > 100: lossless, alpha kept
    coco = {"images": [{"id": 1, "file_name": "a1.webp"}, {"id": 2, "file_name": "b2.webp"}],
            "categories": [{"id": 1, "name": "part"}],
            "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [2, 3, 20, 10]},
                            {"id": 2, "image_id": 2, "category_id": 1, "bbox": [30, 5, 20, 20]}]}
    (tmp_path / "ds.json").write_text(json.dumps(coco))
    # No width/height in the file: load_coco decodes each image for its size, as it does for other kinds.
    records, names, _ = load_coco(str(tmp_path / "ds.json"), str(tmp_path))
    assert names == ["part"] and [(r["width"], r["height"]) for r in records] == [(60, 40), (60, 40)]
    check_images(records, keep=True)
    for i in range(2):
        img, _ = Images(records, 60, cache=False).get(i)
        assert img.shape == (40, 60, 3)
        assert img[20, 10, 2] > 200 and img[20, 10, 0] < 40, f"image {i}: left should be red, is {img[20, 10]}"
        assert img[20, 50].max() < 40, f"image {i}: right should be black, is {img[20, 50]}"
