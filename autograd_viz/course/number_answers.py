"""Typical wrong answers and other right answers to the lessons' code exercises whose code
computes with plain numbers (06's central difference, 10's backward pass by hand, 12's gradient of
softmax with cross-entropy, 14's quotient of dual numbers): what the checks of
`autograd_viz.course.number_checks` must refuse and accept, re-exported by `lesson_answers`. A wrong
answer maps a description to (code, words the verdict must contain).
"""

from __future__ import annotations

__all__ = ["BY_HAND_BACKWARD", "CENTRAL_DIFFERENCE", "CROSS_ENTROPY_GRAD", "DUAL_DIV"]


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
        "the smallest score subtracted: exp still overflows": (
            """def cross_entropy_grad(z, c):
    low = min(z)
    exps = [math.exp(zk - low) for zk in z]
    return [e / sum(exps) - (k == c) for k, e in enumerate(exps)]""",
            "subtract the largest score",
        ),
        "the mean subtracted: exp still overflows": (
            """def cross_entropy_grad(z, c):
    mean = sum(z) / len(z)
    exps = [math.exp(zk - mean) for zk in z]
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
