"""Split a COCO file whose images carry `split` ("train" / "val") into train.json and val.json in OUT (the engine
takes one file per split). Prints the counts as JSON: {"train": images, "val": images, "train_boxes": ...}.
Usage: ocr-real-data.py COCO_JSON OUT"""
import json
import os
import sys


def main(src, out):
    with open(src) as f:
        d = json.load(f)
    os.makedirs(out, exist_ok=True)
    counts = {}
    for split in ("train", "val"):
        ims = [im for im in d["images"] if im.get("split") == split]
        ids = {im["id"] for im in ims}
        anns = [a for a in d["annotations"] if a["image_id"] in ids]
        with open(os.path.join(out, f"{split}.json"), "w") as f:
            json.dump({"images": ims, "annotations": anns, "categories": d["categories"]}, f)
        counts[split], counts[f"{split}_boxes"] = len(ims), len(anns)
    print(json.dumps(counts))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
