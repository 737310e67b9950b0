"""What a learner's backward pass gets wrong as a whole, said in words: the output never seeded with
1, a node's `_backward` run twice, before all its uses sent their share, or never; for an engine
that stores local gradients, the first value whose sum disagrees; and, for one wrong share, the
classic bug its numbers point to (`=` for `+=`, out.grad left out, 1 − x² for 1 − t², out.data for
out.grad, operands swapped). `autograd_viz.open.engines.check` judges each rule and asks here how to
say what went wrong."""

from __future__ import annotations

import math

from autograd_viz.core._numbers import format_number
from autograd_viz.open.engines.findings import Finding, _close
from autograd_viz.open.engines.read import ForeignGraph
from autograd_viz.open.engines.run import BackwardRun

__all__ = ["diagnose", "never_ran", "ran_early", "ran_twice", "seed_finding", "their_sums"]


def _dot_grad(name: str) -> str:
    """`y.grad`, or `(a · b).grad` for a value named by its expression."""
    return f"({name}).grad" if " " in name else f"{name}.grad"


def seed_finding(graph: ForeignGraph, names: tuple[str, ...], run: BackwardRun) -> Finding | None:
    """Their backward() must leave the output's own gradient at 1 (∂z/∂z): else nothing, or
    the wrong amount, flows back from it."""
    r = len(graph) - 1
    if run.order != "your backward()" or not graph.operands[r]:
        return None
    got = run.grads[r]
    if _close(got, 1.0, 1e-12):
        return None
    if got == 0:
        message = (
            f"after your backward(), {_dot_grad(names[r])} is 0: it never seeds the output's "
            "gradient with 1, so every rule multiplies by 0 and every gradient stays 0"
        )
        hint = "set `self.grad = 1.0` in backward() before the loop that runs each node's rule"
    else:
        message = (
            f"after your backward(), {_dot_grad(names[r])} is {format_number(got)}, not 1 "
            f"(∂{names[r]}/∂{names[r]} = 1)"
        )
        hint = "set `self.grad = 1.0` in backward() once, before the loop, and never add to it"
    return Finding(r, names[r], "backward", message, hint, None, got, 1.0, "seed")


def their_sums(graph: ForeignGraph, names: tuple[str, ...], run: BackwardRun) -> Finding | None:
    """For an engine that stores local gradients: the first value (in the order a backward
    pass meets them) whose gradient after their backward() is not what those stored local
    gradients give when each share is added (`child.grad += local * v.grad`)."""
    if run.order != "your backward()":
        return None
    given = [0.0] * len(graph)
    given[-1] = 1.0
    shares: list[list[float]] = [[] for _ in range(len(graph))]
    for i in range(len(graph) - 1, -1, -1):
        local = graph.local_grads[i]
        if local is None:
            if graph.operands[i]:
                return None  # a closure of its own: the calls were checked one by one
            continue
        for p, slope in zip(graph.operands[i], local):
            shares[p].append(slope * given[i])
            given[p] += slope * given[i]
    for p in range(len(graph) - 1, -1, -1):
        if _close(run.grads[p], given[p], 1e-9):
            continue
        got = format_number(run.grads[p])
        message = (
            f"your backward() left {_dot_grad(names[p])} = {got}; the local gradients stored in "
            f"the graph give {format_number(given[p])}"
        )
        if len(shares[p]) > 1:
            message += (
                f" ({names[p]} is used {len(shares[p])} times: "
                + " + ".join(format_number(x) for x in shares[p])
                + ")"
            )
        hint = ""
        if len(shares[p]) > 1 and any(_close(run.grads[p], x, 1e-9) for x in shares[p]):
            hint = "it replaced the gradient instead of adding to it: `=` where `+=` belongs"
        return Finding(p, names[p], "backward", message, hint, None, run.grads[p], given[p])
    return None


def diagnose(call, p, positions, partials, g, canonical, args, tol, out_data=None) -> str:
    """A guess at which classic bug produced a wrong contribution."""
    sent, before = call.sent[p], call.before[p]
    after = before + sent
    shares = [partials[k] * g for k, q in enumerate(positions) if q == p]
    if (before != 0 or len(shares) > 1) and any(_close(after, s, tol) for s in shares):
        return "it replaced the gradient instead of adding to it: `=` where `+=` belongs"
    if g != 1 and _close(sent, sum(partials[k] for k, q in enumerate(positions) if q == p), tol):
        return f"it left out the chain rule's factor out.grad (here {format_number(g)})"
    if canonical == "tanh" and _close(sent, (1 - args[0] ** 2) * g, tol):
        return "it used the input (1 − x²) where the rule needs the output t = tanh(x): 1 − t²"
    own = sum(partials[k] for k, q in enumerate(positions) if q == p)
    if out_data is not None and not _close(out_data, g, tol) and _close(sent, own * out_data, tol):
        return (
            f"it multiplied by the output's value out.data (here {format_number(out_data)}) "
            "where the chain rule needs its gradient out.grad"
        )
    if len(positions) == 2 and positions[0] != positions[1]:
        k = positions.index(p)
        q = positions[1 - k]
        other = partials[1 - k] * g
        mine = partials[k] * g
        if (  # only where both operands got each other's share: the numbers say so
            _close(sent, other, tol)
            and not _close(other, mine, tol)
            and _close(call.sent.get(q, math.nan), mine, tol)
        ):
            return "it sent what the other operand should get: operands swapped in the rule?"
        if (
            canonical == "*"
            and _close(sent, args[k] * g, tol)
            and not _close(args[k], args[1 - k], tol)
        ):
            return "it multiplied by the operand's own value; the product rule uses the other one"
    return ""


def ran_twice(names, i, times) -> Finding:
    count = "twice" if times == 2 else f"{times} times"
    return Finding(
        i,
        names[i],
        "backward",
        f"your backward() ran {names[i]}'s `_backward` {count}, so it sent its gradient {count}",
        "the topological sort visited it twice: keep a `visited` set and skip nodes already in it",
    )


def ran_early(names, i, early, call) -> Finding:
    waiting = ", ".join(names[u] for u in early)
    return Finding(
        i,
        names[i],
        "backward",
        f"your backward() ran {names[i]}'s `_backward` before {waiting} had sent "
        f"{names[i]} its gradient (it had {format_number(call.out_grad)} so far)",
        "visit nodes in reverse topological order: every use of a value before the value",
    )


def never_ran(names, i) -> Finding:
    return Finding(
        i,
        names[i],
        "backward",
        f"your backward() never ran {names[i]}'s `_backward`, so its operands got nothing from it",
        "the topological sort must reach every node the output depends on",
    )
