"""The health check: contract `Finding`s, each only when it has items (engine/AGENT.md, Analysis, for the rules
and why their thresholds are what they are). Severity as the contract says: error when training fails or learns
wrong, warning when it learns worse, info when worth a look."""
from collections import defaultdict

import numpy as np

from loupe_engine.analysis.data import iou_same
from loupe_engine.analysis.images import close_pairs
from loupe_engine.analysis.stats import box_sizes

MAX_IMAGES = 500
MAX_PAIRS = 1000
NEAR_BITS = 6          # pHash Hamming distance of a near duplicate (of 64 bits)
NEAR_SCENE_SHARE = 0.5  # more images with a near twin than this: one scene shot again and again (below)
TINY_AREA_PX2 = 16
DOUBLE_IOU = 0.9
RARE_INSTANCES = 10
IMBALANCE_WARN = 10
BLUR_RATIO, BLUR_FLOOR = 0.2, 100.0
DARK_LUMA, BRIGHT_LUMA, CLIPPED_SHARE = 40, 215, 0.5
SPLIT_RANK = {"train": 0, "val": 1, "test": 2, "none": 3}


def finding(code, severity, count, params=None, image_ids=(), **extra):
    out = {"code": code, "severity": severity, "count": int(count), "params": params or {},
           "imageIds": list(dict.fromkeys(image_ids))[:MAX_IMAGES]}
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def names_list(names, most=10):
    names = list(names)
    return ", ".join(names[:most]) + (f" (+{len(names) - most})" if len(names) > most else "")


def image_findings(images):
    """unlabeled, duplicate, near_duplicate, leakage, blurred, dark, bright."""
    out = []
    unlabeled = [im["id"] for im in images if not im["labeled"]]
    if unlabeled:
        out.append(finding("unlabeled", "info", len(unlabeled), {}, unlabeled))
    out += _duplicates(images)
    out += _quality(images)
    return out


def _ordered(a, b):
    """A pair as [the one that stays, its twin]: the earlier split (train, val, test, none), then the lower id."""
    return sorted((a, b), key=lambda im: (SPLIT_RANK[im["split"]], im["id"]))


def _duplicates(images):
    groups = defaultdict(list)
    for im in images:
        groups[im["digest"]].append(im)
    exact, firsts = [], []
    for group in groups.values():
        group.sort(key=lambda im: (SPLIT_RANK[im["split"]], im["id"]))
        firsts.append(group[0])
        exact += [(group[0], other) for other in group[1:]]
    near, near_total, twins, near_leaks = _near(firsts)
    out = []
    if exact:
        out.append(finding("duplicate", "info", len(exact), {}, [im["id"] for p in exact for im in p],
                           pairs=[[a["id"], b["id"]] for a, b in exact[:MAX_PAIRS]]))
    if near:
        out.append(finding("near_duplicate", "info", near_total, {"bits": NEAR_BITS},
                           [im["id"] for p in near for im in p], pairs=[[a["id"], b["id"]] for a, b in near]))
    # A fixed camera shooting one part type gives images whose hashes all lie within a few bits: when most images
    # have a near twin the hash cannot tell this dataset's images apart, so near twins are shown but do not make
    # leakage (an error whose fix would move most of validation into training)
    exact_leaks = [(a, b) for a, b in exact if _crosses(a, b)]
    n_near, near_pairs = near_leaks if twins <= NEAR_SCENE_SHARE * len(images) else (0, [])
    leaks = exact_leaks + near_pairs
    if leaks:
        out.append(finding("leakage", "error", len(exact_leaks) + n_near, {"exact": len(exact_leaks), "near": n_near},
                           [b["id"] for _, b in leaks] + [a["id"] for a, _ in leaks],
                           pairs=[[a["id"], b["id"]] for a, b in leaks[:MAX_PAIRS]], fix="moveLeaked"))
    return out


def _crosses(a, b):
    return a["split"] != b["split"] and "none" not in (a["split"], b["split"])


def _near(images):
    """Near-duplicate pairs among distinct images (one per group of identical ones), in blocks: (the first
    MAX_PAIRS pairs, their number, how many images have a near twin, (number, first MAX_PAIRS) of those pairs
    that cross splits)."""
    rank = np.array([SPLIT_RANK[im["split"]] for im in images])
    pairs, leaks, total, n_leaks, twins = [], [], 0, 0, set()
    for ii, jj in close_pairs([im["phash"] for im in images], NEAR_BITS):
        total += len(ii)
        twins.update(ii.tolist(), jj.tolist())
        cross = (rank[ii] != rank[jj]) & (rank[ii] < 3) & (rank[jj] < 3)
        n_leaks += int(cross.sum())
        room = MAX_PAIRS - len(pairs)
        pairs += [_ordered(images[i], images[j]) for i, j in zip(ii[:room].tolist(), jj[:room].tolist())]
        room = MAX_PAIRS - len(leaks)
        leaks += [_ordered(images[i], images[j]) for i, j in zip(ii[cross][:room].tolist(), jj[cross][:room].tolist())]
    return pairs, total, len(twins), (n_leaks, leaks)


def _quality(images):
    """Blur is judged against the dataset's own median (sharpness depends on the subject: a plain metal part
    has little texture) and an absolute floor (in a very sharp set a merely smoother image is not blurred)."""
    out = []
    dark = [im["id"] for im in images if im["luma"] < DARK_LUMA or im["clipDark"] > CLIPPED_SHARE]
    bright = [im["id"] for im in images if im["luma"] > BRIGHT_LUMA or im["clipBright"] > CLIPPED_SHARE]
    if len(images) >= 3:
        # a badly exposed image has little contrast, which lowers the Laplacian as blur does: it is reported as
        # dark or bright only (its exposure is the thing to fix)
        median = float(np.median([im["blur"] for im in images]))
        limit = min(BLUR_RATIO * median, BLUR_FLOOR)
        exposed = set(dark + bright)
        blurred = [im["id"] for im in images if im["blur"] < limit and im["id"] not in exposed]
        if blurred:
            out.append(finding("blurred", "info", len(blurred),
                               {"ratio": BLUR_RATIO, "median": round(median, 1), "floor": BLUR_FLOOR}, blurred))
    if dark:
        out.append(finding("dark", "info", len(dark), {"luma": DARK_LUMA, "clipped": round(CLIPPED_SHARE * 100)}, dark))
    if bright:
        out.append(finding("bright", "info", len(bright),
                           {"luma": BRIGHT_LUMA, "clipped": round(CLIPPED_SHARE * 100)}, bright))
    return out


def box_findings(boxes, imgsz):
    """degenerate_box, outside_image, tiny_box, double_label."""
    out = []
    # a box past the edge is an error: the detector's training refuses the dataset over it (data/coco.py)
    for code, severity, pick, params, fix in (
            ("degenerate_box", "warning", lambda b: b["degenerate"], {"px": 1}, "deleteDegenerate"),
            ("outside_image", "error", lambda b: b["outside"], {"percent": 1}, None)):
        hit = [b for b in boxes if pick(b)]
        if hit:
            out.append(finding(code, severity, len(hit), params, [b["image_id"] for b in hit],
                               annotationIds=[b["id"] for b in hit], fix=fix))
    kept, w, h, W, H, _ = box_sizes(boxes, imgsz)
    area_at = w * h * (imgsz / np.maximum(np.maximum(W, H), 1)) ** 2
    tiny = [b for b, a in zip(kept, area_at) if a < TINY_AREA_PX2]
    if tiny:
        out.append(finding("tiny_box", "warning", len(tiny), {"px2": TINY_AREA_PX2, "imgsz": imgsz},
                           [b["image_id"] for b in tiny], annotationIds=[b["id"] for b in tiny]))
    doubles = _doubles(kept)
    if doubles:
        out.append(finding("double_label", "warning", len(doubles), {"iou": DOUBLE_IOU},
                           [b["image_id"] for b in doubles], annotationIds=[b["id"] for b in doubles],
                           fix="deleteDoubles"))
    return out


def _doubles(boxes):
    """The second box (in annotation order) of every same-class pair in one image with IoU ≥ DOUBLE_IOU; bounds
    first (vectorised), the rotated IoU only for the candidates."""
    groups = defaultdict(list)
    for b in boxes:
        groups[(b["image_id"], b["cat"])].append(b)
    seconds = []
    for group in groups.values():
        if len(group) < 2:
            continue
        xy = np.array([[b["x0"], b["y0"], b["x1"], b["y1"]] for b in group])
        iw = np.clip(np.minimum(xy[:, None, 2], xy[None, :, 2]) - np.maximum(xy[:, None, 0], xy[None, :, 0]), 0, None)
        ih = np.clip(np.minimum(xy[:, None, 3], xy[None, :, 3]) - np.maximum(xy[:, None, 1], xy[None, :, 1]), 0, None)
        area = (xy[:, 2] - xy[:, 0]) * (xy[:, 3] - xy[:, 1])
        iou = iw * ih / np.maximum(area[:, None] + area[None, :] - iw * ih, 1e-9)
        taken = set()
        for i, j in zip(*np.nonzero(np.triu(iou >= 0.7, 1))):
            if j not in taken and iou_same(group[i], group[j]) >= DOUBLE_IOU:
                taken.add(j)
                seconds.append(group[j])
    return seconds


def class_findings(counts, class_images):
    """class_missing_split (SPEC §5: each label needs a train and a validation image), rare_class,
    class_imbalance. `class_images`: category id → ids of the images that show it."""
    out = []

    def images_of(found):
        return [i for c in found for i in class_images.get(c["id"], [])]

    classes = counts["perClass"]
    no_train = [c for c in classes if c["images"]["train"] == 0]
    no_val = [c for c in classes if c["images"]["val"] == 0]
    missing = {c["id"]: c for c in no_train + no_val}
    if missing:
        out.append(finding("class_missing_split", "error", len(missing),
                           {"classes": names_list(c["name"] for c in missing.values()),
                            "noTrain": names_list(c["name"] for c in no_train),
                            "noVal": names_list(c["name"] for c in no_val)}, images_of(missing.values())))
    rare = [c for c in classes if sum(c["instances"].values()) < RARE_INSTANCES]
    if rare:
        out.append(finding("rare_class", "warning", len(rare),
                           {"classes": names_list(c["name"] for c in rare), "min": RARE_INSTANCES}, images_of(rare)))
    if counts["imbalance"] >= IMBALANCE_WARN:
        present = sorted(((sum(c["instances"].values()), c) for c in classes if sum(c["instances"].values())),
                         key=lambda t: t[0])
        most = present[-1][0]
        # the classes concerned: those with a tenth or less of the largest class's instances
        few = [c for n, c in present if most / n >= IMBALANCE_WARN]
        out.append(finding("class_imbalance", "warning", len(few),
                           {"ratio": round(counts["imbalance"], 1), "most": present[-1][1]["name"],
                            "fewest": present[0][1]["name"]}, images_of(few)))
    return out
