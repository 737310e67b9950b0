"""Typical wrong answers and other right answers to the lessons' code exercises, as code: each
notebook's exercise keeps a cell that runs its check on these
(`CodeExercise.try_answers(**lesson_answers.SIGMOID)`), and `tests/test_lesson_checks.py` runs the
same lists on the same checks (`lesson_checks`); every wrong answer must be refused, for the reason
named next to it, and every right answer, in whatever style, accepted. A wrong answer maps a
description to (code, words the verdict must contain).
"""

from __future__ import annotations

__all__ = [
    "BY_HAND_BACKWARD",
    "CENTRAL_DIFFERENCE",
    "CROSS_ENTROPY_GRAD",
    "DIV",
    "DUAL_DIV",
    "MUL",
    "NEURON",
    "SIGMOID",
    "TOPOLOGICAL_ORDER",
]


_RULE = "self.grad += out.data * (1 - out.data) * out.grad"


def _sigmoid(forward: str = "1 / (1 + math.exp(-self.data))", parents: str = "(self,)",
             rule: str = _RULE, more: str = "") -> str:  # fmt: skip
    return f"""def my_sigmoid(self):
    out = TinyValue({forward}, {parents}, "sigmoid")
    def _backward():
        {rule}
    out._backward = _backward{more}
    return out"""


SIGMOID = {  # 04: a sigmoid method for TinyValue
    "wrong": {
        "a node with no parents: TinyValue(s, (), 'sigmoid')": (
            _sigmoid(parents="()"),
            "does not lead back to x",
        ),
        "no * out.grad": (_sigmoid(rule="self.grad += out.data * (1 - out.data)"), "At x"),
        "= instead of +=": (
            _sigmoid(rule="self.grad = out.data * (1 - out.data) * out.grad"),
            "At x",
        ),
        "the rule from the input, a(1 − a)": (
            _sigmoid(rule="self.grad += self.data * (1 - self.data) * out.grad"),
            "At x",
        ),
        "calls backward() itself": (
            _sigmoid(more="\n    out.backward()"),
            "calls backward() itself",
        ),
        "e^(+a) in the forward value": (
            _sigmoid(forward="1 / (1 + math.exp(self.data))"),
            "the right value is",
        ),
        "returns the number": (
            "def my_sigmoid(self):\n    return 1 / (1 + math.exp(-self.data))",
            "not a node of your class",
        ),
    },
    "right": {
        "the rule from a saved s": """def my_sigmoid(self):
    s = 1 / (1 + math.exp(-self.data))
    out = TinyValue(s, (self,), "sigmoid")
    def _backward():
        self.grad += s * (1 - s) * out.grad   # sigmoid' = s(1 - s)
    out._backward = _backward
    return out""",
        "built from exp and **": """def my_sigmoid(self):
    return (1 + (-self).exp()) ** -1""",
        "built from tanh": """def my_sigmoid(self):
    return (1 + (self * 0.5).tanh()) * 0.5""",
    },
}

_MUL = """def my_mul(self, other):
    other = other if isinstance(other, Tiny) else Tiny(other)
    out = Tiny(self.data * other.data, {parents}, "*")
    def _backward():
        {rule_self}
        {rule_other}
    out._backward = _backward
    return out"""


def _mul(parents: str = "(self, other)", rule_self: str = "self.grad += other.data * out.grad",
         rule_other: str = "other.grad += self.data * out.grad") -> str:  # fmt: skip
    return _MUL.format(parents=parents, rule_self=rule_self, rule_other=rule_other)


MUL = {  # 09: fix the = of Tiny's __mul__
    "wrong": {
        "= instead of += (the planted bug)": (
            _mul(
                rule_self="self.grad = other.data * out.grad",
                rule_other="other.grad = self.data * out.grad",
            ),
            "At t = 3",
        ),
        "the factors swapped": (
            _mul(
                rule_self="self.grad += self.data * out.grad",
                rule_other="other.grad += other.data * out.grad",
            ),
            "At x = 0.5, y = −1.5",
        ),
        "no * out.grad": (
            _mul(rule_self="self.grad += other.data", rule_other="other.grad += self.data"),
            "At x = 2, y = −0.25",
        ),
        "parents (self,) only": (_mul(parents="(self,)"), "does not lead back to"),
        "parents ()": (_mul(parents="()"), "does not lead back to x"),
        "only one of the two rules": (_mul(rule_self="pass"), "At x = 0.5, y = −1.5"),
        "the rules as out.data / operand (0 has no quotient)": (
            _mul(
                rule_self="self.grad += out.data / self.data * out.grad",
                rule_other="other.grad += out.data / other.data * out.grad",
            ),
            "ZeroDivisionError",
        ),
        "parents (self) without the comma": (_mul(parents="(self)"), "not a tuple of nodes"),
    },
    "right": {
        "parents in a set, as micrograd": _mul(parents="{self, other}"),
        "parents listed (other, self): the same product": _mul(parents="(other, self)"),
        "the rules through local names": """def my_mul(self, other):
    if not isinstance(other, Tiny):
        other = Tiny(other)
    a, b = self, other
    out = Tiny(a.data * b.data, (a, b), "*")
    def _backward():
        a.grad = a.grad + b.data * out.grad
        b.grad = b.grad + a.data * out.grad
    out._backward = _backward
    return out""",
    },
}

_HAND_DIV = """def my_truediv(self, other):
    other = other if isinstance(other, Tiny) else Tiny(other)
    out = Tiny(self.data / other.data, {parents}, "/")
    def _backward():
        {rule_self}
        {rule_other}
    out._backward = _backward
    return out"""


_B_RULE = "other.grad += -self.data / other.data**2 * out.grad"


def _div(parents: str = "(self, other)", rule_self: str = "self.grad += out.grad / other.data",
         rule_other: str = _B_RULE) -> str:  # fmt: skip
    return _HAND_DIV.format(parents=parents, rule_self=rule_self, rule_other=rule_other)


DIV = {  # 08: __truediv__ for Tiny
    "wrong": {
        "upside down: other * self**-1": (
            "def my_truediv(self, other):\n    return other * self**-1",
            "the right value is",
        ),
        "a quotient rule with the sign of the b rule lost": (
            _div(rule_other="other.grad += self.data / other.data**2 * out.grad"),
            "At x = 1.5, y = −0.5",
        ),
        "a quotient rule without * out.grad": (
            _div(
                rule_self="self.grad += 1 / other.data",
                rule_other="other.grad += -self.data / other.data**2",
            ),
            "At x = 2, y = 0.25",
        ),
        "a quotient rule with parents (self,) only": (
            _div(parents="(self,)"),
            "does not lead back to",
        ),
        "a quotient rule with = instead of +=": (
            _div(
                rule_self="self.grad = out.grad / other.data",
                rule_other="other.grad = -self.data / other.data**2 * out.grad",
            ),
            "At t = 0.75",
        ),
        "a quotient rule with its parents listed (other, self)": (
            _div(parents="(other, self)"),
            "lists its parents as (y, x)",
        ),
        "divides by the number other.data": (
            "def my_truediv(self, other):\n"
            "    other = other if isinstance(other, Tiny) else Tiny(other)\n"
            "    return self * (1 / other.data)",
            "does not lead back to y",
        ),
    },
    "right": {
        "the quotient rule by hand": _div(),
        "a reciprocal in brackets": "def my_truediv(self, other):\n    return self * (other**-1)",
        "a reciprocal of the upside-down quotient": (
            "def my_truediv(self, other):\n    return (other * self**-1) ** -1"
        ),
    },
}

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

CENTRAL_DIFFERENCE = {  # 06: the central difference
    "wrong": {
        "one-sided": (
            "def central_difference(f, x, h):\n    return (f(x + h) - f(x)) / h",
            "one-sided",
        ),
        "divided by h, not 2h": (
            "def central_difference(f, x, h):\n    return (f(x + h) - f(x - h)) / h",
            "twice the slope",
        ),
        "the sign flipped": (
            "def central_difference(f, x, h):\n    return (f(x - h) - f(x + h)) / (2 * h)",
            "sign flipped",
        ),
        "a fixed h": (
            "def central_difference(f, x, h):\n    return (f(x + 1e-5) - f(x - 1e-5)) / 2e-5",
            "the central difference with this h",
        ),
        "/ 2 * h": (
            "def central_difference(f, x, h):\n    return (f(x + h) - f(x - h)) / 2 * h",
            "the central difference with this h",
        ),
    },
    "right": {
        "divided twice": (
            "def central_difference(f, x, h):\n    return (f(x + h) - f(x - h)) / h / 2"
        ),
        "named steps": """def central_difference(f, x, h):
    above, below = f(x + h), f(x - h)
    return 0.5 * (above - below) / h""",
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

BY_HAND_BACKWARD = {  # 10: (dL/da, dL/db, dL/dc) of L = (a·b + c)², by hand
    "wrong": {
        "the square's rule as e, not 2e": (
            "def my_backward(a, b, c):\n    e = a * b + c\n    return e * b, e * a, e",
            "Half of it",
        ),
        "the product's inputs swapped": (
            "def my_backward(a, b, c):\n    e = a * b + c\n    return 2 * e * a, 2 * e * b, 2 * e",
            "backward() gives -24",
        ),
        "the local derivatives without the chain": (
            "def my_backward(a, b, c):\n    return b, a, 1",
            "backward() gives -24",
        ),
        "the engine": (
            """def my_backward(a, b, c):
    va, vb, vc = Value(a), Value(b), Value(c)
    ((va * vb + vc) ** 2).backward()
    return va.grad, vb.grad, vc.grad""",
            "runs an engine",
        ),
        "measured slopes": (
            """def my_backward(a, b, c):
    h = 1e-6
    L = lambda a, b, c: (a * b + c) ** 2
    return ((L(a + h, b, c) - L(a - h, b, c)) / (2 * h),
            (L(a, b + h, c) - L(a, b - h, c)) / (2 * h),
            (L(a, b, c + h) - L(a, b, c - h)) / (2 * h))""",
            "measured slope",
        ),
    },
    "right": {
        "a docstring saying backward() and a comment saying Value": '''def my_backward(a, b, c):
    """What backward() would give, by hand."""
    e = a * b + c           # a plain number, not a Value
    return 2 * e * b, 2 * e * a, 2 * e''',
        "one line": "def my_backward(a, b, c):\n"
        "    return 2*(a*b + c)*b, 2*(a*b + c)*a, 2*(a*b + c)",
    },
}

CROSS_ENTROPY_GRAD = {  # 12: p − y
    "wrong": {
        "p, without − y": (
            """def cross_entropy_grad(z, c):
    top = max(z)
    exps = [math.exp(zk - top) for zk in z]
    return [e / sum(exps) for e in exps]""",
            "that is p",
        ),
        "y − p": (
            """def cross_entropy_grad(z, c):
    top = max(z)
    exps = [math.exp(zk - top) for zk in z]
    return [(k == c) - e / sum(exps) for k, e in enumerate(exps)]""",
            "the sign flipped",
        ),
        "no shift: exp overflows": (
            """def cross_entropy_grad(z, c):
    exps = [math.exp(zk) for zk in z]
    return [e / sum(exps) - (k == c) for k, e in enumerate(exps)]""",
            "subtract the largest score",
        ),
        "only the correct class's entry": (
            """def cross_entropy_grad(z, c):
    top = max(z)
    exps = [math.exp(zk - top) for zk in z]
    return [e / sum(exps) - 1 if k == c else 0.0 for k, e in enumerate(exps)]""",
            "your entry 1 is 0",
        ),
        "the class off by one": (
            """def cross_entropy_grad(z, c):
    top = max(z)
    exps = [math.exp(zk - top) for zk in z]
    return [e / sum(exps) - (k == c + 1) for k, e in enumerate(exps)]""",
            "backward() gives",
        ),
    },
    "right": {
        "its own softmax helper": """def softmax(z):
    top = max(z)
    exps = [math.exp(zk - top) for zk in z]
    return [e / sum(exps) for e in exps]

def cross_entropy_grad(z, c):
    p = softmax(z)
    p[c] -= 1
    return p""",
        "log-sum-exp": """def cross_entropy_grad(z, c):
    top = max(z)
    lse = top + math.log(sum(math.exp(zk - top) for zk in z))
    return [math.exp(zk - lse) - (1 if k == c else 0) for k, zk in enumerate(z)]""",
    },
}

DUAL_DIV = {  # 14: the quotient of two dual numbers (the notebook shows + and *, not /)
    "wrong": {
        "derivatives divided": (
            "def dual_div(a, b):\n    return Dual(a.val / b.val, a.der / b.der)",
            "the quotient rule",
        ),
        "the sign flipped: a·b' − a'·b": (
            "def dual_div(a, b):\n"
            "    return Dual(a.val / b.val, (a.val * b.der - a.der * b.val) / b.val ** 2)",
            "sign is flipped",
        ),
        "divided by b, not b²": (
            "def dual_div(a, b):\n"
            "    return Dual(a.val / b.val, (a.der * b.val - a.val * b.der) / b.val)",
            "not by b",
        ),
        "b held still: a'/b": (
            "def dual_div(a, b):\n    return Dual(a.val / b.val, a.der / b.val)",
            "leaves out b's derivative",
        ),
        "the product rule": (
            "def dual_div(a, b):\n    return Dual(a.val / b.val, a.der * b.val + a.val * b.der)",
            "the product rule",
        ),
        "a measured slope": (
            """def dual_div(a, b):
    h = 1e-7
    nudged = (a.val + h * a.der) / (b.val + h * b.der)
    return Dual(a.val / b.val, (nudged - a.val / b.val) / h)""",
            "measured slope",
        ),
        "changes a in place": (
            """def dual_div(a, b):
    a.der = (a.der * b.val - a.val * b.der) / b.val ** 2
    a.val = a.val / b.val
    return a""",
            "changed its input",
        ),
    },
    "right": {
        "two terms: a'/b − a·b'/b²": (
            "def dual_div(a, b):\n"
            "    return Dual(a.val / b.val, a.der / b.val - a.val * b.der / b.val ** 2)"
        ),
        "times the reciprocal, with the class's own *": (
            "def dual_div(a, b):\n"
            "    return a * Dual(1 / b.val, -b.der / b.val ** 2)   # d(1/b) = −b'/b²"
        ),
        "type(a)(...)": (
            "def dual_div(a, b):\n"
            "    value = a.val / b.val\n"
            "    return type(a)(value, (a.der - value * b.der) / b.val)"
        ),
    },
}
