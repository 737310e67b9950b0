"""The player's advice for an animation too large to keep is followed, offer by offer, and
each one works; a network drawn one box per neuron is stepped one neuron at a time."""

from __future__ import annotations

import re

import pytest

from autograd_viz import Value
from autograd_viz.frames import Frames
from autograd_viz.front.player import DEFAULT_MAX_FRAMES, AnimationTooLargeError
from autograd_viz.nn import MLP
from autograd_viz.player import Player


def _loss(sizes):
    return (MLP(2, sizes, seed=0)([1.0, -1.0]) - 1.0) ** 2


def _offers(message: str) -> list[dict]:
    """Every concrete thing the message offers, as the option change (or 'draw') it names."""
    found: list[dict] = []
    if "by='neuron'" in message:
        found.append({"by": "neuron"})
    found += [{"phase": p} for p in re.findall(r"phase='(forward|backward)'", message)]
    found += [{"max_frames": int(n)} for n in re.findall(r"raise max_frames to (\d+)", message)]
    if ".draw()" in message:
        found.append({"draw": True})
    return found


def _follow(root, options: dict, offer: dict) -> None:
    if "draw" in offer:  # the same drawing options, one static picture
        root.draw(**{k: v for k, v in options.items() if k not in ("by", "max_frames")})
        return
    changed = {**options, **offer}
    if changed.get("by") == "neuron":
        changed.pop("collapse", None)  # by='neuron' draws one box per neuron itself
    player = Player(root, **changed)
    assert player.n_frames <= changed.get("max_frames", DEFAULT_MAX_FRAMES)
    player.close()


_CASES = {
    # 1,914 steps (a row each, 0.9 MB in all): over this max_frames, so it is refused
    "neuron boxes stepped by operation": (
        [16, 16, 1], {"collapse": "neuron", "by": "operation", "max_frames": 1000}),
    # 198 steps, every operation of the network
    "a small network, every operation": ([4, 4, 1], {"max_frames": 100}),
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("case", list(_CASES))
def test_every_offer_of_the_too_large_message_works_when_followed(case):
    sizes, options = _CASES[case]
    root = _loss(sizes)
    with pytest.raises(AnimationTooLargeError) as caught:
        Player(root, **options)
    message = str(caught.value)
    offers = _offers(message)
    assert offers, message
    for offer in offers:
        _follow(root, options, offer)


def test_raising_max_frames_is_offered_where_it_fits_and_works():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = ((x + y) * y).tanh() * x + y
    options = {"max_frames": 10}
    with pytest.raises(AnimationTooLargeError) as caught:
        Player(z, **options)
    message = str(caught.value)
    assert f"raise max_frames to {len(Frames(z))}" in message
    offers = _offers(message)
    assert {"phase": "forward"} in offers and {"max_frames": len(Frames(z))} in offers
    for offer in offers:
        _follow(z, options, offer)


def test_a_network_drawn_one_box_per_neuron_steps_one_neuron_at_a_time():
    loss = _loss([4, 4, 1])
    assert len(Frames(loss, collapse="neuron")) == len(Frames(loss, by="neuron")) == 25
    assert len(Frames(loss, collapse="neuron", by="operation")) == 198  # asked for: kept
    assert len(Frames(loss, collapse="layer")) == 198  # layers: still one per operation
    player = Player(loss, collapse="neuron")
    assert player.n_frames == 25 and player.frames.by == "neuron"
    player.close()
