"""Typical wrong answers and other right answers to the lessons' code exercises whose code is a
function over a graph of Values (05's topological order without recursion, 07's neuron,
ReLU(w·x + b)): what `lesson_checks`' checks of them must refuse and accept, re-exported by
`lesson_answers`. A wrong answer maps a description to (code, words the verdict must contain).
"""

from __future__ import annotations

__all__ = ["NEURON", "TOPOLOGICAL_ORDER"]


TOPOLOGICAL_ORDER = {  # 05: a topological order without recursion
    "wrong": {
        "a recursive DFS": (
            """def my_topological_order(root):
    order, visited = [], set()
    def visit(v):
        if v not in visited:
            visited.add(v)
            for p in v.parents:
                visit(p)
            order.append(v)
    visit(root)
    return order""",
            "`visit` calls itself",
        ),
        "a recursive DFS that raises the recursion limit": (
            """import sys

def my_topological_order(root):
    sys.setrecursionlimit(100_000)
    order, visited = [], set()
    def visit(v):
        if v not in visited:
            visited.add(v)
            for p in v.parents:
                visit(p)
            order.append(v)
    visit(root)
    return order""",
            "that is recursion",
        ),
        "the engine's own method": (
            "def my_topological_order(root):\n    return root.topological_order()",
            "engine's own topological_order()",
        ),
        "the engine's method through getattr": (
            "def my_topological_order(root):\n"
            "    return list(getattr(root, 'topological_' + 'order')())",
            "engine's own topological_order()",
        ),
        "output first (not reversed)": (
            """def my_topological_order(root):
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents)
    return order[::-1]""",
            "before its parent",
        ),
        "reversed pre-order": (
            """def my_topological_order(root):
    order, visited, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node not in visited:
            visited.add(node)
            order.append(node)
            stack.extend(node.parents)
    return order[::-1]""",
            "before its parent",
        ),
        "reversed breadth-first": (
            """def my_topological_order(root):
    order, visited, queue = [], {root}, [root]
    while queue:
        node = queue.pop(0)
        order.append(node)
        for p in node.parents:
            if p not in visited:
                visited.add(p)
                queue.append(p)
    return order[::-1]""",
            "before its parent",
        ),
        "no visited set": (
            """def my_topological_order(root):
    order, stack = [], [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        else:
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents)
    return order""",
            "lists a node twice",
        ),
        "a set, not a list": (
            """def my_topological_order(root):
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node.parents)
    return seen""",
            "not a list",
        ),
    },
    "right": {
        "a loop whose comment mentions root.topological_order()": (
            """def my_topological_order(root):
    # the same order as root.topological_order(), without calling it
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        node, parents_placed = stack.pop()
        if parents_placed:
            order.append(node)
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents)
    return order"""
        ),
        "Kahn's algorithm": """def my_topological_order(root):
    nodes, stack, users = [], [root], {}
    seen = {root}
    while stack:                      # every node, and how many nodes use each one
        node = stack.pop()
        nodes.append(node)
        for p in set(node.parents):
            users[p] = users.get(p, 0) + 1
            if p not in seen:
                seen.add(p)
                stack.append(p)
    ready, order = [root], []
    while ready:                      # the root first, then each node once all users are done
        node = ready.pop()
        order.append(node)
        for p in set(node.parents):
            users[p] -= 1
            if users[p] == 0:
                ready.append(p)
    return order[::-1]""",
        "a stack of parent iterators": """def my_topological_order(root):
    order, visited = [], {root}
    stack = [(root, iter(root.parents))]
    while stack:
        node, parents = stack[-1]
        for p in parents:
            if p not in visited:
                visited.add(p)
                stack.append((p, iter(p.parents)))
                break
        else:
            stack.pop()
            order.append(node)
    return order""",
    },
}


_NEURON = "def my_neuron(w, x, b):\n"

NEURON = {  # 07: ReLU(w·x + b)
    "wrong": {
        "no ReLU": (
            _NEURON + "    return sum((wi * xi for wi, xi in zip(w, x)), b)",
            "ReLU turns it into 0",
        ),
        "through .data": (
            _NEURON + "    return Value(sum((wi * xi for wi, xi in zip(w, x)), b).data).relu()",
            "cuts the graph",
        ),
        "no bias": (
            _NEURON + "    return sum((wi * xi for wi, xi in zip(w, x)), Value(0.0)).relu()",
            "gives 0.5; ReLU(w·x + b) = 0.75",
        ),
        "the last pair left out": (
            _NEURON + "    total = b\n    for i in range(len(w) - 1):\n"
            "        total = total + w[i] * x[i]\n    return total.relu()",
            "is not in your graph",
        ),
        "calls backward() itself": (
            _NEURON + "    out = sum((wi * xi for wi, xi in zip(w, x)), b).relu()\n"
            "    out.backward()\n    return out",
            "calls backward() itself",
        ),
        "inputs as dict keys (a shared input counted once)": (
            _NEURON + "    pairs = {xi: wi for wi, xi in zip(w, x)}\n"
            "    return sum((wi * xi for xi, wi in pairs.items()), b).relu()",
            "both weights count",
        ),
    },
    "right": {
        "sum() from b": _NEURON + "    return sum((wi * xi for wi, xi in zip(w, x)), b).relu()",
        "sum() from 0, then + b": _NEURON
        + "    return (sum(wi * xi for wi, xi in zip(w, x)) + b).relu()",
        "ReLU as a gate": _NEURON
        + "    total = b\n    for i in range(len(w)):\n        total = total + w[i] * x[i]\n"
        "    return total * (total.data > 0)",
    },
}
