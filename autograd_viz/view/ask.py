"""Ask the graph — the data behind "click `y` to ask why its gradient is 8": `ask_of(graph)`
(`autograd_viz.api.ask_table(root)` for a Value) gives, for every value node, its chain-rule sum
with one term per use (each term with the SVG edge ids it travels) and, for every operand edge, its
local derivative written the autodiff way, as a JSON-able dict the front end (`front/static/ask.js`)
shows; every line is one the kit's own trace writes (its blog-notation steps for the sums,
`local_equations` for the edges), nothing recomputed, so the panel can never disagree with the
player, the worksheet or `backward()`; where a learner's rule went wrong, a line's text keeps the
trace's "✗" sentence (its LaTeX stays the maths)."""

from __future__ import annotations

from typing import Any

from autograd_viz.core.derive import derive, local_equations
from autograd_viz.core.errors import GraphTooLargeError
from autograd_viz.core.graph import Graph
from autograd_viz.core.naming import expression_names
from autograd_viz.core.steps import Step

__all__ = ["ask_of", "too_large_to_ask"]

_EQ = " = "  # `autograd_viz.core._equations.chain` joins the parts of a line with it
_FLAG = "   ✗ "  # where a learner's engine went wrong, the trace appends this and a sentence


def ask_of(
    graph: Graph, *, digits: int = 4, steps: list[Step] | None = None, latex: bool = True
) -> dict[str, Any]:
    """The chain-rule sum of every value and the local derivative of every edge, as data.

    `graph` is an opened graph (`autograd_viz.api.ask_table` opens a Value); `steps`, if given,
    is its trace in blog notation, one step per operation (`trace(root, "backward")` or
    `"both"`; a forward-only one is ignored), so a caller that has one does not trace twice.
    `latex=False` leaves out the LaTeX forms (half the bytes: a view that shows only text,
    updated on every change, sends less). Keys are the drawing's SVG ids
    (`autograd_viz.view.render`): `nodes["v1"]` is `{"name", "grad", "total", "sum", "latex",
    "why", "terms"}`, each term `{"text", "latex", "lhs", "lhs_latex", "value", "edges",
    "path"}` (`edges`: the use's two edges; `path`: every edge on the way from the operation's
    result on to the output); `edges["v1-op3-1"]` is `{"text", "latex"}`. Constants get no
    entry: no gradient flows into a number written in the expression.
    """
    steps = [s for s in steps or () if s.phase == "backward"]
    if not steps:  # none given, or a forward-only trace (a player of phase="forward")
        steps = derive(graph, "backward", digits=digits)
    grads = steps[-1].grads if steps else {}
    names = [e.text for e in expression_names(graph, digits)]
    root_name = names[-1]

    terms: dict[int, list[Step]] = {}
    totals: dict[int, Step] = {}
    for step in steps:
        if step.kind in ("local", "contribution"):
            terms.setdefault(step.active, []).append(step)
        elif step.kind in ("seed", "accumulate"):
            totals[step.active] = step

    onward = _onward_edges(graph)
    nodes: dict[str, dict[str, Any]] = {}
    for node in graph.nodes:
        i = node.index
        if node.role == "const" or i not in grads:
            continue
        uses = terms.get(i, [])
        entry: dict[str, Any] = {
            "name": names[i],
            "terms": [_term(s, onward) for s in uses],
        }
        if i in totals and totals[i].kind == "seed":  # the output: ∂z/∂z = 1
            entry.update(_plain(totals[i]))
            entry["why"] = f"the seed: the gradient of {root_name} with respect to itself is 1"
        elif i in totals:  # a value used several times: the sum of its shares
            entry.update(_summed(totals[i], entry["terms"]))
            entry["why"] = (
                f"{names[i]} is used {_times(len(uses))}, so its gradient adds up one share per use"
            )
        elif uses:  # used once: its one chain-rule line is the whole story
            entry.update(_plain(uses[0]))
            entry["why"] = f"{names[i]} is used once: one chain-rule term"
        else:
            continue
        # the trace's number, as it wrote it (before any "✗" sentence)
        entry["grad"] = entry["sum"].split(_FLAG, 1)[0].rsplit(_EQ, 1)[-1]
        nodes[f"v{i}"] = entry

    edges = {
        e: {"text": eq.text, "latex": eq.latex} for e, eq in local_equations(graph, digits).items()
    }
    table = {"root": root_name, "nodes": nodes, "edges": edges}
    return table if latex else _without_latex(table)


def too_large_to_ask(max_nodes: int) -> GraphTooLargeError:
    """The error of `ask_table` for a graph of more than `max_nodes` values."""
    return GraphTooLargeError(
        f"ask_table(): this graph has more than {max_nodes} values (max_nodes={max_nodes}), "
        "too many chain-rule sums to read (counting stopped there, before any work). Ask a "
        "sub-expression (an intermediate Value), or raise max_nodes."
    )


def _without_latex(table: dict[str, Any]) -> dict[str, Any]:
    def plain(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if "latex" not in k}

    nodes = {
        k: {**plain(v), "terms": [plain(t) for t in v["terms"]]} for k, v in table["nodes"].items()
    }
    edges = {k: plain(v) for k, v in table["edges"].items()}
    return {**table, "nodes": nodes, "edges": edges}


def _times(n: int) -> str:
    return {2: "twice", 3: "three times"}.get(n, f"{n} times")


def _unflagged(step: Step) -> tuple[str, str]:
    """A step's text without a learner-engine flag (to read its parts), and its LaTeX."""
    return step.text.split(_FLAG, 1)[0], step.latex


def _flag(step: Step) -> str:
    """The trace's "   ✗ …" sentence at the end of a step's text, where a learner's rule went
    wrong ('' elsewhere): the panel says it too, or its line would state false arithmetic."""
    text = step.text
    return text[text.index(_FLAG):] if _FLAG in text else ""


def _onward_edges(graph) -> list[list[str]]:
    """Per value, the edges of every path from it to the output (in SVG order of ids): what
    the ∂z/∂s factor of a term through s sums over."""
    uses = graph.consumers()
    onward: list[set[str]] = [set() for _ in graph.nodes]
    for node in reversed(graph.nodes):  # the output first: a consumer comes after its operands
        for c, k in uses[node.index]:
            onward[node.index] |= {f"v{node.index}-op{c}-{k}", f"op{c}-v{c}"} | onward[c]
    return [sorted(edges) for edges in onward]


def _term(step: Step, onward: list[list[str]]) -> dict[str, Any]:
    """One use of a value: its chain-rule line, its left side, its result, the two edges of
    the use (operand edge, then the operation's result edge) and the path on to the output."""
    text, latex = _unflagged(step)
    parts = text.split(_EQ)
    lparts = latex.split(_EQ)
    return {
        "text": step.text,  # with a learner-engine flag, if any: the panel says it too
        "latex": latex,
        "lhs": parts[0],
        "lhs_latex": lparts[0],
        "value": parts[-1],
        "edges": list(step.edges),
        "path": onward[int(step.edges[0].split("-v")[-1])] if step.edges else [],
    }


def _plain(step: Step) -> dict[str, str]:
    text, latex = _unflagged(step)
    return {"total": text.split(_EQ)[0], "sum": step.text, "latex": latex}


def _summed(step: Step, terms: list[dict[str, Any]]) -> dict[str, str]:
    """`∂z/∂y = ȳ via the product + ȳ via the sum = 5 + 3 = 8`: the trace's sum line with
    the terms' names written in between (its numbers stay the trace's own)."""
    text, latex = _unflagged(step)
    head, _, numbers = text.partition(_EQ)
    lhead, _, lnumbers = latex.partition(_EQ)
    named = " + ".join(t["lhs"] for t in terms)
    lnamed = " + ".join(t["lhs_latex"] for t in terms)
    return {
        "total": head,
        "sum": f"{head}{_EQ}{named}{_EQ}{numbers}{_flag(step)}",
        "latex": f"{lhead}{_EQ}{lnamed}{_EQ}{lnumbers}",
    }
