"""The adoption check's decision: a tuned configuration replaces the base only when its gain over the base, both
trained with the same seeds, is larger than the seeds' own spread (AGENT.md, Tuning)."""

MIN_NOISE = 0.005  # below this a fitness difference is rounding and batch order, whatever the seeds agreed on


def spread(scores):
    """How far the seeds of one configuration disagree (|s1 - s2| for two seeds); 0 for one seed."""
    return max(scores) - min(scores) if scores else 0.0


def adopt(base_scores, tuned_scores):
    """{adopted, gain, noise}: gain = mean(tuned) - mean(base); noise = the larger seed spread, at least
    MIN_NOISE; adopted when gain > noise."""
    if not base_scores or not tuned_scores:
        raise ValueError("adopt needs at least one score per configuration")
    gain = sum(tuned_scores) / len(tuned_scores) - sum(base_scores) / len(base_scores)
    noise = max(spread(base_scores), spread(tuned_scores), MIN_NOISE)
    return {"adopted": gain > noise, "gain": gain, "noise": noise}
